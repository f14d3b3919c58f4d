"""The one place a run's or a step's status changes.

A run's life::

    running --> waiting (a pause is open) --> running ... --> done
       |            |--> superseded (a new turn)   \\--> cancelled (cancel_all)
       \\--> done | cancelled                         done (a question timed out)

``run_status_set`` allows only these transitions, as one conditional UPDATE
(``... WHERE status IN (<the states it may come from>)``), and stamps
``updated_at``. A transition the lifecycle has not got raises
``LifecycleError``: a bug in the engine, never a person's mistake.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.utils import timezone

from threads.engine.events import EventType, event_append
from threads.engine.lease import lease_take, worker_id
from threads.models import Interrupt, Message, Run, Step

S = Run.Status
# For each status, the statuses a run may reach it from. Setting the status a
# run already has is allowed where it is harmless (a run found done again).
RUN_SOURCES: dict[str, frozenset[str]] = {
    S.RUNNING: frozenset({S.RUNNING, S.WAITING}),
    S.WAITING: frozenset({S.RUNNING, S.WAITING}),
    S.DONE: frozenset({S.RUNNING, S.WAITING, S.DONE}),
    S.CANCELLED: frozenset({S.RUNNING, S.WAITING}),
    S.SUPERSEDED: frozenset({S.RUNNING, S.WAITING}),
}

# Steps that need nothing more: the engine never takes them again.
FINISHED: frozenset[str] = frozenset({
    Step.Status.SUCCEEDED, Step.Status.FAILED, Step.Status.REFUSED, Step.Status.SKIPPED,
    Step.Status.CANCELLED, Step.Status.SUPERSEDED, Step.Status.OUTCOME_UNKNOWN, Step.Status.UNDONE,
})
# Steps that a cancel leaves as they are: what they did is already said.
ENDED: frozenset[str] = frozenset({
    Step.Status.SUCCEEDED, Step.Status.FAILED, Step.Status.REFUSED, Step.Status.SKIPPED, Step.Status.UNDONE,
})


class LifecycleError(RuntimeError):
    pass


def new_id(prefix: str) -> str:
    return f"{prefix}-{secrets.token_hex(12)}"


@dataclass
class Held:
    """The run's steps (and the verdicts of their receipts, by step id) read once in a transaction."""

    steps: list[Step]
    verdicts: dict[int, str]


@dataclass
class Advance:
    """What one call into the engine did, for the reply."""

    run: Run
    lines: list[str] = field(default_factory=list)
    reply: Message | None = None
    # What the engine holds in memory when it knows it whole: the run's steps
    # (a run made in this call, nothing sent) and the thread's open pauses
    # (a new turn closed the others). None: read them back.
    steps: list[Step] | None = None
    waiting: list[Interrupt] | None = None
    sent: bool = False  # a call was sent in this call into the engine
    # The run's steps as the transaction after a sent call read them, kept
    # current in it, with their receipts' verdicts; None: read them back.
    held: Held | None = None
    view_wanted: bool = False  # a person waits for the answer: read it in the last transaction
    view: dict[str, Any] | None = None


def run_status_set(run: Run | str, status: str, *, only_from: Iterable[str] | None = None) -> bool:
    """Move a run to ``status``; call inside the transaction that makes the change.

    With ``only_from``, the move happens only from those statuses and a run
    in any other is left alone (False). Without it, the run must be in a
    status the lifecycle allows ``status`` from, else ``LifecycleError``.
    """
    run_id = run if isinstance(run, str) else run.pk
    sources = frozenset(only_from) if only_from is not None else RUN_SOURCES[status]
    changed = Run.objects.filter(pk=run_id, status__in=sources).update(status=status, updated_at=timezone.now())
    if not changed and only_from is None:
        current = Run.objects.filter(pk=run_id).values_list("status", flat=True).first()
        raise LifecycleError(f"run {run_id} cannot go from {current!r} to {status!r}: "
                             f"the lifecycle allows it only from {sorted(sources)}")
    if changed and isinstance(run, Run):
        run.status = status
    return bool(changed)


def step_status_set(step: Step, status: str, *, rule: str = "", sentence: str = "", release: bool = False) -> bool:
    """Save a step's new status with what the engine filled in on it.

    ``release``: the worker's last word on a step it ran (SPEC §9). Saved only
    while this worker still holds the step's lease, which the same conditional
    UPDATE gives up; False when a sweep took the step over (nothing saved)."""
    was = step.status
    step.status = status
    fields = ["status", "arguments", "reasons", "irreversible", "updated_at"]
    if status == Step.Status.RUNNING:  # a running call holds a lease (SPEC §9)
        lease_take(step)
        fields += ["lease_owner", "lease_at"]
    if rule:
        step.rule, step.sentence = rule, sentence
        fields += ["rule", "sentence"]
    if step.result is not None:
        fields.append("result")
    if step.error:
        fields.append("error")
    if step.compensation is not None:
        fields.append("compensation")
    if not release:
        step.save(update_fields=fields)
        return True
    values = {f: getattr(step, f) for f in fields} | {"lease_owner": "", "lease_at": None,
                                                       "updated_at": timezone.now()}
    if not Step.objects.filter(pk=step.pk, status=Step.Status.RUNNING, lease_owner=worker_id()).update(**values):
        step.status = was
        return False
    step.lease_owner, step.lease_at = "", None
    return True


def steps_cancel(run: Run, *, from_index: int) -> None:
    """``cancel_all``: this step and every later one are left out."""
    run.steps.filter(index__gte=from_index).exclude(status__in=ENDED).update(
        status=Step.Status.CANCELLED, updated_at=timezone.now()
    )


def steps_supersede(run_id: str) -> None:
    """A new turn set the run aside: what had not started never will."""
    Step.objects.filter(run_id=run_id, status__in=[Step.Status.WAITING, Step.Status.PLANNED]).update(
        status=Step.Status.SUPERSEDED, updated_at=timezone.now()
    )


def run_pauses_close(run: Run, *, status: str) -> list[str]:
    """Close every pause of ``run`` still open (a run that ends waits on nothing),
    their steps cancelled; call inside the transaction that ends the run."""
    closed = []
    now = timezone.now()
    for pause in run.interrupts.filter(status=Interrupt.Status.OPEN):
        if Interrupt.objects.filter(pk=pause.pk, status=Interrupt.Status.OPEN).update(status=status, answered_at=now):
            closed.append(pause.id)
            if pause.step_id:
                Step.objects.filter(pk=pause.step_id, status=Step.Status.WAITING).update(
                    status=Step.Status.CANCELLED, updated_at=now)
            event_append(run.thread_id, EventType.ANSWERED, {"interrupt": pause.id, "status": status})
    return closed
