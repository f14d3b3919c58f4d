"""Pauses: the one place one opens, the one place one closes, and how one is shown (docs/http-api.md,
"The pause").

A pause's life::

    open --an answer's claim--> answered | edited (the call changed: a new proposal)
         --a new turn--> superseded;  --its deadline--> timed_out;  --its run ended--> cancelled

``pause_open`` stores the row, sets its step and run waiting, appends the
``waiting`` event and hands the pause to the notifier, in the caller's unit
of work. A pause's id is derived (``threads.tokens``): the same call paused
for the same reason at the same point has the same id, so opening it again
finds the row already there. Its token is never stored: it is recomputed
from the pause under ``SECRET_KEY``.

``pause_close`` is the only conditional UPDATE of a pause's status (``...
WHERE id = ? AND status = 'open'``; the one caller whose UPDATE counts 1
closed it, on one worker or several) and writes the one ``answered`` event
shape: ``{"interrupt", "status", "decision", "by"}`` and what the closing
adds (an edit's changed ``arguments``).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection
from django.utils import timezone

from catalogue import registry
from catalogue.agentfile import AgentFileError
from catalogue.questions import is_timed_out
from threads.engine.approvals import approvals_shown
from threads.engine.inserts import insert_new
from threads.engine.lifecycle import run_status_set, step_status_set
from threads.engine.notify import NOTICE_WAITING
from threads.engine.rows import Columns, read, statement
from threads.engine.unit import Unit
from threads.engine.views import PauseView
from threads.models import PAUSE_ANSWERS, Event, Interrupt, Run, Step
from threads.tokens import pause_id, pause_token


def pause_open(u: Unit, *, run: Run, step: Step | None, kind: str, tool: str, payload: dict[str, Any],
               generation: int = 0, choices: list[str] | None = None) -> Interrupt:
    """Open a pause and set its step and run waiting, inside ``u``. ``choices``:
    the answers it takes where they are not its kind's (a mirrored pause offers
    what the system that asked allows, ``threads.engine.handback``)."""
    index = step.index if step else None
    generation = step.generation if step else generation
    # A question's identity is also what it asks (which argument, or which tools):
    # two questions on one step are two pauses.
    asked = [payload.get("argument"), payload.get("tools")] if kind == Interrupt.Kind.ASK else []
    pid = pause_id(run_id=run.id, step=index, kind=kind, generation=generation,
                   arguments=[payload.get("arguments"), *asked])
    expires, escalate_at = pause_times(run, kind, timezone.now(), payload.get("policy"))
    # Who proposed the run, kept with the pause too, so the console's queue row says it without a join
    # (never shown to a door: ``pause_view`` picks what it shows).
    proposer = {"proposer": {"door": run.proposed_via, "name": run.proposed_by}} if run.proposed_via else {}
    pause = Interrupt(id=pid, thread_id=run.thread_id, run=run, step=step, agent=run.agent, kind=kind, tool=tool,
                      payload={**payload, **proposer, "choices": list(choices or PAUSE_ANSWERS[kind])},
                      expires_at=expires, escalate_at=escalate_at)
    if insert_new(pause):
        # The event keeps what was asked, never the token (tokens are not stored; docs/http-api.md, "GET
        # /threads/{id}/stream": a waiting event has no token).
        shown = {k: v for k, v in present(pause).items() if k != "token"}
        u.event(Event.Type.WAITING, shown)
        u.notify(pause, NOTICE_WAITING)  # its outbox rows commit with the pause
    else:  # the same call paused for the same reason before: that pause, as it is
        pause = Interrupt.objects.get(pk=pid)
    if step is not None and step.status != Step.Status.WAITING:
        step_status_set(step, Step.Status.WAITING)
    run_status_set(run, Run.Status.WAITING)
    return pause


def pause_times(run: Run, kind: str, now: datetime,
                policy: dict[str, Any] | None = None) -> tuple[datetime | None, datetime | None]:
    """When a pause of ``kind`` opened now expires, and when it escalates (docs/agent-file.md, "Deadlines and
    escalation"). ``policy``: what a policy gave the pause (docs/policies.md): the shorter deadline wins;
    ``on_timeout: keep`` escalates at its deadline instead of closing; ``remind_before`` tells the
    listeners again that long before the deadline."""
    expires, escalate_at = _kind_times(run, kind, now)
    policy = policy or {}
    if not policy.get("deadline"):
        return expires, escalate_at
    at = now + timedelta(seconds=float(policy["deadline"]))
    remind = policy.get("remind_before")
    told = [escalate_at]
    if policy.get("on_timeout") == "keep":  # waits on past it, told again then (or at its reminder)
        told.append(at - timedelta(seconds=float(remind)) if remind else at)
    else:
        expires = min(expires, at) if expires else at
        if remind:
            told.append(at - timedelta(seconds=float(remind)))
    escalate_at = min((t for t in told if t is not None), default=None)
    if escalate_at is not None and expires is not None and escalate_at >= expires:
        escalate_at = None
    return expires, escalate_at


def _kind_times(run: Run, kind: str, now: datetime) -> tuple[datetime | None, datetime | None]:
    handback = (run.plan or {}).get("handback")
    if isinstance(handback, dict):  # a mirrored pause (threads.engine.handback): the deadlines its bridge gave
        deadlines, escalate = dict(handback.get("deadlines") or {}), dict(handback.get("escalate_after") or {})
    else:
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


def pause_close(u: Unit, pause: Interrupt, *, status: str, decision: str = "", answer: Any = None, by: str = "",
                via: str = "", payload: dict[str, Any] | None = None, **shown: Any) -> bool:
    """Close an open pause as ``status``: one conditional UPDATE, True for the
    one caller that closed it; its ``answered`` event in ``u``. ``payload``:
    the pause's payload to store with it (the approval that met a quorum)."""
    now = timezone.now()
    also = {"payload": payload} if payload is not None else {}
    closed = Interrupt.objects.filter(pk=pause.pk, status=Interrupt.Status.OPEN).update(
        status=status, decision=decision, answer=answer, answered_by=by[:200], answered_via=via, answered_at=now,
        **also)
    if not closed:
        return False
    if payload is not None:
        pause.payload = payload
    pause.status, pause.decision, pause.answer = status, decision, answer
    pause.answered_by, pause.answered_via, pause.answered_at = by[:200], via, now
    u.pause_closed(pause)
    u.event(Event.Type.ANSWERED, {"interrupt": pause.id, "status": status, "decision": decision or None,
                                  "by": by or None, **shown})
    return True


def run_pauses_close(u: Unit, run: Run, *, status: str, by: str = "") -> list[str]:
    """Close every pause of ``run`` still open, their steps cancelled (a run
    that ends waits on nothing); inside the unit that ends the run."""
    closed = []
    for pause in run.interrupts.filter(status=Interrupt.Status.OPEN).select_related("step"):
        if pause_close(u, pause, status=status, by=by):
            closed.append(pause.id)
            if pause.step is not None and pause.step.status == Step.Status.WAITING:
                step_status_set(pause.step, Step.Status.CANCELLED)
    return closed


def token_for(pause: Interrupt) -> str:
    return pause_token(
        settings.SECRET_KEY, pause=pause.id, tool=pause.tool, arguments=pause.payload.get("arguments"),
        run_id=pause.run_id, step=step_index(pause),
    )


def shown_with_token(data: dict[str, Any]) -> dict[str, Any]:
    """A stored ``waiting`` event as a stream sends it: with the token made
    again from what the event shows (streams reach only the thread's own
    session and staff, who may answer it)."""
    if not isinstance(data.get("id"), str) or not isinstance(data.get("run"), str):
        return data
    return {**data, "token": pause_token(settings.SECRET_KEY, pause=data["id"], tool=str(data.get("tool", "")),
                                         arguments=data.get("arguments"), run_id=data["run"], step=data.get("step"))}


def pause_choices(pause: Interrupt) -> tuple[str, ...]:
    """The answers ``pause`` takes: its kind's, or a mirrored pause's own (``threads.engine.handback``)."""
    if pause.payload.get("handback"):
        return tuple(pause.payload.get("choices") or PAUSE_ANSWERS[pause.kind])
    return PAUSE_ANSWERS[pause.kind]


def step_index(pause: Interrupt) -> int | None:
    return pause.step.index if pause.step_id else None


def pause_view(pause: Interrupt) -> PauseView:
    """A pause as the doors read it (``PauseView``), its token made now."""
    p = pause.payload
    extra: dict[str, Any] = {}
    if p.get("labels"):
        extra["labels"] = p["labels"]  # each argument's words in the thread's language, by name
    if pause.kind == Interrupt.Kind.ASK:
        extra["ask"] = p.get("ask")
        extra["argument"] = p.get("argument")
    if p.get("approvals") is not None:  # under a policy (docs/policies.md): the approvals it needs, given so far
        extra["approvals"] = approvals_shown(p["approvals"])
    if pause.kind == Interrupt.Kind.SAGA_STUCK:
        # What still needs undoing, newest first (this write first), and why the undo failed (docs/http-api.md).
        extra["undo_of"] = p.get("undo_of")
        extra["left"] = p.get("left", [])
        extra["error"] = p.get("error", "")
    return PauseView(
        id=pause.id, kind=pause.kind, tool=pause.tool, question=p.get("question", ""),
        arguments=p.get("arguments", []), reasons=p.get("reasons", []), irreversible=bool(p.get("irreversible")),
        choices=p.get("choices", list(PAUSE_ANSWERS[pause.kind])), token=token_for(pause),
        step=step_index(pause), run=pause.run_id, thread=pause.thread_id, agent=pause.agent, status=pause.status,
        expires_at=pause.expires_at, mirrored=bool(p.get("handback")), decision=pause.decision,
        answered_by=pause.answered_by, answered_via=pause.answered_via, answered_at=pause.answered_at, extra=extra)


def present(pause: Interrupt) -> dict[str, Any]:
    """A PAUSE as docs/http-api.md shows it."""
    return pause_view(pause).to_json()


def overdue(pauses: list[Interrupt]) -> list[Interrupt]:
    """The pauses past their deadline now (one rule, ``catalogue.questions.is_timed_out``:
    reaching the deadline counts as past it)."""
    now = timezone.now()
    return [p for p in pauses if p.status == Interrupt.Status.OPEN and p.expires_at is not None
            and is_timed_out(p.expires_at, now, 0)]


THREAD_PAUSES = "thread_pauses_"


def thread_pauses_with() -> str:
    """A WITH clause naming a thread's pauses ``thread_pauses_`` (one
    parameter: the thread), found by the thread's index alone; a read then
    keeps the open ones. A thread has few pauses, but PostgreSQL's statistics
    may say that few pauses are open anywhere (analyzed when none were), and
    then plan a read of "this thread's open pauses" through an index led by
    the status, scanning every open pause of every thread: 500 open pauses
    made each answer's read skip 499 (docs/decisions.md, "A thread's pauses
    are found by the thread"). MATERIALIZED keeps the thread's lookup apart
    from the status filter (PostgreSQL 12+, SQLite 3.35+)."""
    q = connection.ops.quote_name
    return (f"WITH {THREAD_PAUSES} AS MATERIALIZED (SELECT * FROM {q(Interrupt._meta.db_table)}"
            f" WHERE {q(Interrupt._meta.get_field('thread').column)} = %s)")


_PAUSE, _STEP = Columns(Interrupt, "i"), Columns(Step, "s")
_PAUSES_SQL = statement(lambda: (
    f"{thread_pauses_with()} SELECT {_PAUSE.select()}, {_STEP.select()} FROM {THREAD_PAUSES} {_PAUSE.alias}"
    f" LEFT JOIN {_STEP.table} ON {_STEP.col('id')} = {_PAUSE.col('step')}"
    f" WHERE {_PAUSE.col('status')} = %s"
    f" ORDER BY {_PAUSE.col('created_at')}, {_PAUSE.col('id')}"))


def thread_pauses(thread_id: str) -> list[Interrupt]:
    """The thread's open pauses, oldest first, each with its step, in one read
    (written out: ``threads.engine.rows``)."""
    pauses = []
    for pause, step in read(_PAUSES_SQL(), [thread_id, Interrupt.Status.OPEN], [_PAUSE, _STEP]):
        pause.step = step
        pauses.append(pause)
    return pauses
