"""The one place a run's or a step's status changes.

A run's life::

    nothing --> running | waiting (inserted so: a turn whose first step the check pauses)
    running <--> waiting (a pause is open)
       |            |--> superseded (a new turn closed its pauses)
       |            \\--> done (a deadline passed) | cancelled (cancel_all)
       \\--> done | cancelled | superseded (a saga that ends as the run would have)
    done | cancelled | superseded | waiting --an operator's rollback--> running (its saga undoes) --> ...

A step's life::

    nothing --> planned | waiting (inserted so: a turn's first step the check paused)
    planned --check--> refused | waiting (a pause opened) | running (claimed under a lease)
    waiting --approve--> approved --claim--> running (the two one write when the claim is in the answer's unit)
            --skip--> skipped;  --happened--> succeeded
            --did_not_happen, an answered question, an edit--> planned (checked again)
            --a mirrored pause answered--> handed_back (the graph that asked runs it)
    running --> succeeded | failed | waiting (outcome unknown) | planned (a probe: it did not happen)
    planned | waiting | approved --> cancelled | superseded
    succeeded (a write) --its undo succeeded--> undone
    an undo (its own step): planned | failed | cancelled --claim--> running --> succeeded | failed
                            failed --saga_stuck--> waiting --> failed (retry) | skipped (by hand) | cancelled (abandon)

``RUN_SOURCES`` and ``STEP_SOURCES`` say, for each status, the statuses it
may be reached from; ``NOTHING`` is a row not stored yet, given its first
status before its INSERT stores it (a transition from nothing: a turn whose
first step the check pauses inserts the run and that step ``waiting``, with
no UPDATE after). ``run_status_set``, ``step_status_set``,
``steps_status_set`` and ``step_claim`` are the only writers of those
statuses (``tests/test_architecture.py`` fails on any other), each one
conditional ``UPDATE`` that allows only the table's moves and stamps
``updated_at``. A move the table has not got raises ``LifecycleError``: a
bug in the engine, never a person's mistake. Pauses have the same in
``threads.engine.pauses`` (``pause_open``, ``pause_close``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import connection
from django.utils import timezone

from threads.engine.lease import lease_take, worker_id
from threads.models import Run, Step

NOTHING = None  # a row not stored yet: the status it is inserted with

R = Run.Status
RUN_SOURCES: dict[str, frozenset[str | None]] = {
    R.RUNNING: frozenset({NOTHING, R.RUNNING, R.WAITING, R.DONE, R.CANCELLED, R.SUPERSEDED}),  # the last three: a rollback
    R.WAITING: frozenset({NOTHING, R.RUNNING, R.WAITING}),
    R.DONE: frozenset({R.RUNNING, R.WAITING, R.DONE}),  # a run found done again is left so
    R.CANCELLED: frozenset({R.RUNNING, R.WAITING}),
    R.SUPERSEDED: frozenset({R.RUNNING, R.WAITING}),
}

S = Step.Status
STEP_SOURCES: dict[str, frozenset[str | None]] = {
    S.PLANNED: frozenset({NOTHING, S.WAITING, S.RUNNING}),
    S.WAITING: frozenset({NOTHING, S.PLANNED, S.RUNNING, S.FAILED}),
    S.APPROVED: frozenset({S.WAITING}),
    # waiting: approved and claimed in one write, in the answer's own unit; failed, cancelled: an undo tried again
    S.RUNNING: frozenset({S.PLANNED, S.APPROVED, S.WAITING, S.FAILED, S.CANCELLED}),
    S.SUCCEEDED: frozenset({S.RUNNING, S.WAITING}),
    S.FAILED: frozenset({S.RUNNING, S.WAITING}),
    S.REFUSED: frozenset({S.PLANNED, S.APPROVED, S.WAITING}),  # waiting: approved, its tool gone meanwhile
    S.SKIPPED: frozenset({S.WAITING}),
    S.CANCELLED: frozenset({S.PLANNED, S.WAITING, S.APPROVED}),
    S.SUPERSEDED: frozenset({S.PLANNED, S.WAITING}),
    S.UNDONE: frozenset({S.SUCCEEDED}),
    S.HANDED_BACK: frozenset({S.WAITING}),  # a mirrored pause answered (threads.engine.handback)
}

# Steps that need nothing more: the engine never takes them again.
FINISHED: frozenset[str] = frozenset({
    S.SUCCEEDED, S.FAILED, S.REFUSED, S.SKIPPED, S.CANCELLED, S.SUPERSEDED, S.OUTCOME_UNKNOWN, S.UNDONE,
    S.HANDED_BACK,
})

# What a step's save writes besides its status: everything the engine fills in on it.
_STEP_FIELDS = ("tool", "kind", "arguments", "generation", "reasons", "irreversible", "rule", "sentence",
                "result", "error", "compensation")


class LifecycleError(RuntimeError):
    pass


def _names(statuses: Iterable[str | None]) -> str:
    return ", ".join(sorted("nothing" if s is NOTHING else str(s) for s in statuses))


def _stored(sources: frozenset[str | None]) -> list[str]:
    """The statuses of ``sources`` a stored row can be in (``NOTHING`` is none)."""
    return [s for s in sources if s is not NOTHING]


def _first(what: str, status: str, sources: frozenset[str | None]) -> None:
    """A row not stored yet may be given ``status`` first (its INSERT stores it)?"""
    if NOTHING not in sources:
        raise LifecycleError(f"a {what} is not stored '{status}' at first: the lifecycle allows it only from "
                             f"{_names(sources)}")


def _in_transaction(what: str) -> None:
    if not connection.in_atomic_block:
        raise LifecycleError(f"{what} changes a status: call it inside the engine's unit of work "
                             "(with unit(thread_id) as u: ...)")


def run_status_set(run: Run | str, status: str, *, expect: str | Iterable[str] | None = None) -> bool:
    """Move a run to ``status``, inside the transaction that makes the change.

    Without ``expect`` the run must be in a status the table allows
    ``status`` from, else ``LifecycleError``. With ``expect`` (statuses the
    table allows), the move is a claim: it happens only from those, and a run
    in any other is left as it is (False), as when two rollbacks race."""
    _in_transaction("run_status_set")
    if isinstance(run, Run) and run._state.adding:  # not stored yet: its INSERT stores the status
        _first("run", status, RUN_SOURCES[status])
        run.status = status
        return True
    run_id = run if isinstance(run, str) else run.pk
    sources = RUN_SOURCES[status]
    if expect is not None:
        expected = frozenset({expect} if isinstance(expect, str) else expect)
        if not expected <= sources:
            raise LifecycleError(f"a run cannot go from {_names(expected - sources)} to '{status}'")
        sources = expected
    changed = Run.objects.filter(pk=run_id, status__in=_stored(sources)).update(
        status=status, updated_at=timezone.now())
    if not changed and expect is None:
        current = Run.objects.filter(pk=run_id).values_list("status", flat=True).first()
        raise LifecycleError(f"run {run_id} cannot go from '{current}' to '{status}': "
                             f"the lifecycle allows it only from {_names(sources)}")
    if changed and isinstance(run, Run):
        run.status = status
    return bool(changed)


def _step_values(step: Step) -> dict[str, Any]:
    return {f: getattr(step, f) for f in _STEP_FIELDS} | {"updated_at": timezone.now()}


def _step_sources(step: Step, status: str) -> None:
    if step.status not in STEP_SOURCES[status]:
        raise LifecycleError(f"step {step.index} of run {step.run_id} cannot go from '{step.status}' to "
                             f"'{status}': the lifecycle allows it only from {_names(STEP_SOURCES[status])}")


def step_status_set(step: Step, status: str, *, release: bool = False) -> bool:
    """Save a step's new status with what the engine filled in on it (its
    arguments, result, error, ...), from the status it has in memory.

    ``release``: the worker's last word on a step it ran (docs/operating.md, "A
    worker that dies mid-call"), saved only while this worker still holds the
    step's lease, which the same UPDATE gives up; False when a sweep took the
    step over (nothing saved). A step not stored yet is given its first status,
    which its INSERT stores."""
    _in_transaction("step_status_set")
    if step._state.adding:
        _first("step", status, STEP_SOURCES[status])
        step.status = status
        return True
    _step_sources(step, status)
    rows = Step.objects.filter(pk=step.pk, status=step.status)
    values = _step_values(step) | {"status": status}
    if release:
        rows = rows.filter(lease_owner=worker_id())
        values |= {"lease_owner": "", "lease_at": None}
    if not rows.update(**values):
        if release:
            return False
        raise LifecycleError(f"step {step.index} of run {step.run_id} is no longer '{step.status}'")
    step.status = status
    if release:
        step.lease_owner, step.lease_at = "", None
    return True


def step_claim(step: Step) -> bool:
    """Claim a step to run it: one conditional UPDATE from the status and
    generation it was read with, taking this worker's lease, with what the
    check filled in on it. Of two workers carrying the same run on, one wins."""
    _in_transaction("step_claim")
    _step_sources(step, Step.Status.RUNNING)
    lease_take(step)
    won = Step.objects.filter(pk=step.pk, status=step.status, generation=step.generation).update(
        **_step_values(step), status=Step.Status.RUNNING, lease_owner=step.lease_owner, lease_at=step.lease_at)
    if won:
        step.status = Step.Status.RUNNING
    return bool(won)


def steps_status_set(run: Run | str, status: str, *, from_index: int = 0) -> int:
    """Move every step of ``run`` from ``from_index`` on that the table lets
    reach ``status`` (what has ended, or is running, is left as it is)."""
    _in_transaction("steps_status_set")
    run_id = run if isinstance(run, str) else run.pk
    return Step.objects.filter(run_id=run_id, index__gte=from_index, status__in=_stored(STEP_SOURCES[status])).update(
        status=status, updated_at=timezone.now())
