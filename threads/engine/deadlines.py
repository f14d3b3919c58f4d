"""Deadlines and escalation (docs/agent-file.md, "Deadlines and escalation"; docs/operating.md,
"Deadlines"; a question's timeout: docs/http-api.md, "Questions (ask)").

A pause gets its times when it opens (``pause_times``): ``expires_at`` from
the agent's ``deadlines:`` for its kind (``ask`` waits 600 s unless told
otherwise: ``STALWART_ASK_TIMEOUT``), ``escalate_at`` from
``escalate_after:`` (only when it comes before the deadline).

``pauses_expire_due(now=...)`` closes every open pause whose deadline has come
(reaching it counts as past it, as ``catalogue.questions.is_timed_out``
says). Each is **claimed** by one conditional UPDATE (``open -> timed_out``),
so when every serving process sweeps, each pause is closed by exactly one
of them. Closing one: the run ends (``done``), its calls not yet ended are
cancelled and its other open pauses closed, the events ``answered``
(status ``timed_out``) and ``expired`` are written, the run gets a reply
saying so, and after commit the listeners are told (notice ``expired``).
An answer after that is ``409 interrupt_stale``.

``pauses_escalate_due(now=...)`` tells the listeners again (notice
``escalation``) of each pause still open past its ``escalate_at``, once,
claimed by ``UPDATE ... SET escalated_at WHERE escalated_at IS NULL``.

Reading or answering a thread also closes its own overdue pauses first
(``expire_overdue``, and ``pause_expire_in`` inside an answer's unit), so a
late answer is refused between two sweeps too.
"""

from __future__ import annotations

import logging
from datetime import datetime

from django.utils import timezone

from threads.engine.execute import step_refuse
from threads.engine.lifecycle import run_status_set, steps_status_set
from threads.engine.notify import NOTICE_ESCALATION, NOTICE_EXPIRED, NOTICE_REMINDER
from threads.engine.pauses import overdue, pause_close, run_pauses_close, step_index
from threads.engine.progress import Progress
from threads.engine.replies import reply_write
from threads.engine.unit import Unit, unit
from threads.models import Event, Interrupt, Run, Step
from threads.texts import said, text

log = logging.getLogger("stalwart.engine")

# Pauses one sweep closes or escalates at most; the next sweep takes the rest.
SWEEP_BATCH = 200


def pause_expire(pause: Interrupt, now: datetime) -> bool:
    """Close one pause past its deadline, in a unit of its own. True for the
    one caller that closed it."""
    with unit(pause.thread_id) as u:
        return pause_expire_in(u, pause, now)


def pause_expire_in(u: Unit, pause: Interrupt, now: datetime) -> bool:
    """Inside ``u``: close ``pause`` as ``timed_out`` (its claim), end its run
    (what had not ended cancelled, its other pauses closed), write both events
    and the run's reply, and store the listeners' ``expired`` notice. Under a
    policy with ``on_timeout: refuse`` the call is refused by the policy's
    rule first (docs/policies.md): it fails closed, never runs."""
    if not pause_close(u, pause, status=Interrupt.Status.TIMED_OUT):
        return False  # answered, superseded or closed by another worker meanwhile
    run = Run.objects.get(pk=pause.run_id)
    policy = pause.payload.get("policy") or {}
    refused = policy.get("on_timeout") == "refuse" and pause.step_id is not None
    if refused:
        step_refuse(u, Progress(run=run), Step.objects.get(pk=pause.step_id), str(policy.get("rule") or "policy"),
                    text(run.language, "policy_timed_out", tool=said(run, pause.tool)))
    steps_status_set(run, Step.Status.CANCELLED)
    others = run_pauses_close(u, run, status=Interrupt.Status.CANCELLED)
    run_status_set(run, Run.Status.DONE, expect=[Run.Status.RUNNING, Run.Status.WAITING])
    u.event(Event.Type.EXPIRED, {
        "interrupt": pause.id, "kind": pause.kind, "tool": pause.tool, "step": step_index(pause),
        "run": run.id, "deadline": pause.expires_at.isoformat() if pause.expires_at else None, "closed": others,
        **({"refused": policy.get("rule")} if refused else {}),
    })
    u.notify(pause, NOTICE_EXPIRED)
    if refused:
        line = text(run.language, "policy_timed_out", tool=said(run, pause.tool))
    elif pause.kind == Interrupt.Kind.ASK:
        line = text(run.language, "timed_out")
    else:
        line = text(run.language, "expired", tool=said(run, pause.tool) or pause.kind)
    reply_write(u, Progress(run=run, lines=[line]))
    return True


def expire_overdue(pauses: list[Interrupt]) -> bool:
    """Close those of ``pauses`` past their deadline, each in its own unit, the
    way the sweep does. True when any closed."""
    now = timezone.now()
    return any([pause_expire(pause, now) for pause in overdue(pauses)])


def pauses_expire_due(*, now: datetime | None = None, batch: int = SWEEP_BATCH) -> list[str]:
    """Close every open pause whose deadline has come; the ids this caller closed."""
    now = now or timezone.now()
    due = list(Interrupt.objects.select_related("step")
               .filter(status=Interrupt.Status.OPEN, expires_at__lte=now).order_by("expires_at", "id")[:batch])
    return [pause.id for pause in due if pause_expire(pause, now)]


def pauses_escalate_due(*, now: datetime | None = None, batch: int = SWEEP_BATCH) -> list[str]:
    """Tell the listeners again of each pause still open past ``escalate_at``; the ids escalated."""
    now = now or timezone.now()
    due = list(Interrupt.objects.select_related("step")
               .filter(status=Interrupt.Status.OPEN, escalate_at__lte=now, escalated_at__isnull=True)
               .order_by("escalate_at", "id")[:batch])
    escalated = []
    for pause in due:
        with unit(pause.thread_id) as u:
            if not Interrupt.objects.filter(pk=pause.pk, status=Interrupt.Status.OPEN,
                                            escalated_at__isnull=True).update(escalated_at=now):
                continue
            pause.escalated_at = now
            # A policy's reminder before its deadline is told as one (docs/policies.md); else an escalation.
            reminder = bool((pause.payload.get("policy") or {}).get("remind_before"))
            u.notify(pause, NOTICE_REMINDER if reminder else NOTICE_ESCALATION)
        escalated.append(pause.id)
    return escalated


def deadlines_sweep(*, now: datetime | None = None) -> dict[str, list[str]]:
    """One sweep: escalations first (a pause both escalates and expires only once it is told)."""
    now = now or timezone.now()
    return {"escalated": pauses_escalate_due(now=now), "expired": pauses_expire_due(now=now)}
