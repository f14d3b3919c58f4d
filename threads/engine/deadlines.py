"""Deadlines and escalation (SPEC §7.5, §7.6).

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
(``threads.engine.pauses.expire_questions``), so a late answer is refused
between two sweeps too.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from catalogue import registry
from catalogue.agentfile import AgentFileError
from threads.engine.events import EventType, event_append
from threads.engine.hooks import NOTICE_ESCALATION, NOTICE_EXPIRED, pause_notify
from threads.engine.lifecycle import FINISHED, Advance, run_pauses_close, run_status_set
from threads.engine.replies import reply_write
from threads.models import Interrupt, Run, Step
from threads.texts import text

log = logging.getLogger("stalwart.engine")

# Pauses one sweep closes or escalates at most; the next sweep takes the rest.
SWEEP_BATCH = 200


def pause_times(run: Run, kind: str, now: datetime) -> tuple[datetime | None, datetime | None]:
    """When a pause of ``kind`` opened now expires, and when it escalates."""
    try:
        agent = registry.get_agent(run.agent)
        deadlines, escalate = dict(agent.deadlines), dict(agent.escalate_after)
    except (AgentFileError, registry.NoAgentFile):  # the agent left the file since the run began
        deadlines, escalate = {}, {}
    seconds = deadlines.get(kind)
    if seconds is None and kind == Interrupt.Kind.ASK:
        seconds = float(settings.STALWART_ASK_TIMEOUT)
    expires = now + timedelta(seconds=seconds) if seconds else None
    after = escalate.get(kind)
    escalate_at = now + timedelta(seconds=after) if after and (seconds is None or after < seconds) else None
    return expires, escalate_at


def pause_expire(pause: Interrupt, now: datetime) -> bool:
    """Close one pause past its deadline. True for the one caller that closed it."""
    with transaction.atomic():
        if not Interrupt.objects.filter(pk=pause.pk, status=Interrupt.Status.OPEN).update(
            status=Interrupt.Status.TIMED_OUT, answered_at=now
        ):
            return False  # answered, superseded or closed by another worker meanwhile
        pause.status, pause.answered_at = Interrupt.Status.TIMED_OUT, now
        run = Run.objects.get(pk=pause.run_id)
        run.steps.exclude(status__in=FINISHED).update(status=Step.Status.CANCELLED, updated_at=now)
        others = run_pauses_close(run, status=Interrupt.Status.CANCELLED)
        run_status_set(run, Run.Status.DONE, only_from=[Run.Status.RUNNING, Run.Status.WAITING])
        step = pause.step.index if pause.step_id and pause.step else None
        event_append(run.thread_id, EventType.ANSWERED, {"interrupt": pause.id, "status": "timed_out"})
        event_append(run.thread_id, EventType.EXPIRED, {
            "interrupt": pause.id, "kind": pause.kind, "tool": pause.tool, "step": step, "run": run.id,
            "deadline": pause.expires_at.isoformat() if pause.expires_at else None, "closed": others,
        })
        pause_notify(pause, NOTICE_EXPIRED)  # stored with the expiry, delivered after commit
    if pause.kind == Interrupt.Kind.ASK:
        line = text(run.language, "timed_out")
    else:
        line = text(run.language, "expired", tool=pause.tool or pause.kind)
    reply_write(Advance(run=run, lines=[line]))
    return True


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
        with transaction.atomic():
            if not Interrupt.objects.filter(pk=pause.pk, status=Interrupt.Status.OPEN,
                                            escalated_at__isnull=True).update(escalated_at=now):
                continue
            pause.escalated_at = now
            pause_notify(pause, NOTICE_ESCALATION)
        escalated.append(pause.id)
    return escalated


def deadlines_sweep(*, now: datetime | None = None) -> dict[str, list[str]]:
    """One sweep: escalations first (a pause both escalates and expires only once it is told)."""
    now = now or timezone.now()
    return {"escalated": pauses_escalate_due(now=now), "expired": pauses_expire_due(now=now)}
