"""Opening pauses and showing them (SPEC §7, §10).

``pause_open`` is the one place a pause opens: the row, the step and the run
set waiting, the ``waiting`` event, and the listeners told (they store their
deliveries, sent after commit), in the caller's transaction. A pause's id is derived (``threads.tokens``): the
same call paused for the same reason at the same point has the same id. Its
token is never stored: it is recomputed from the pause under ``SECRET_KEY``.
Answering is the other side's (``approvals.answers``).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from catalogue.questions import is_timed_out
from threads.engine.deadlines import pause_expire, pause_times
from threads.engine.events import EventType, event_append
from threads.engine.hooks import pause_opened
from threads.engine.inserts import insert_new
from threads.engine.lifecycle import Advance, run_status_set, step_status_set
from threads.engine.rows import Columns, read, statement
from threads.models import PAUSE_ANSWERS, Interrupt, Run, Step, Thread
from threads.tokens import pause_id, pause_token


def pause_open(
    *, run: Run, step: Step | None, kind: str, tool: str, payload: dict[str, Any], generation: int = 0,
    fresh: bool = False, advance: Advance | None = None, stored_waiting: bool = False,
) -> Interrupt:
    """Open a pause and set its step and run waiting. ``fresh``: the run was
    made in this transaction, so no pause of it can exist yet. The pause joins
    ``advance.waiting`` when the caller keeps that list. ``stored_waiting``:
    the step and run rows were inserted waiting in this transaction."""
    with transaction.atomic(savepoint=False):
        index = step.index if step else None
        generation = step.generation if step else generation
        # A question's identity is also what it asks (which argument, or which tools):
        # two questions on one step are two pauses.
        asked = [payload.get("argument"), payload.get("tools")] if kind == Interrupt.Kind.ASK else []
        pid = pause_id(run_id=run.id, step=index, kind=kind, generation=generation,
                       arguments=[payload.get("arguments"), *asked])
        expires, escalate_at = pause_times(run, kind, timezone.now())
        defaults = {"thread_id": run.thread_id, "run": run, "step": step, "agent": run.agent, "kind": kind,
                    "tool": tool, "payload": {**payload, "choices": list(PAUSE_ANSWERS[kind])},
                    "expires_at": expires, "escalate_at": escalate_at}
        if fresh:
            pause, created = Interrupt.objects.create(id=pid, **defaults), True
        else:
            pause = Interrupt(id=pid, **defaults)
            created = insert_new(pause)
            if not created:  # the same call paused for the same reason before: that pause, as it is
                pause = Interrupt.objects.get(pk=pid)
        if advance is not None and advance.waiting is not None and pause.status == Interrupt.Status.OPEN:
            advance.waiting.append(pause)
        if created:
            # The event keeps what was asked, never the token (SPEC §7.2: tokens are not stored).
            shown = {**{k: v for k, v in present(pause).items() if k != "token"}, "run": run.id}
            event_append(run.thread_id, EventType.WAITING, shown)
            # In this transaction: the outbox keeps the notice exactly when the pause commits.
            pause_opened(pause)
        if stored_waiting:
            return pause
        if step is not None:
            step_status_set(step, Step.Status.WAITING)
        run_status_set(run, Run.Status.WAITING)
    return pause


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


def step_index(pause: Interrupt) -> int | None:
    return pause.step.index if pause.step_id else None


def present(pause: Interrupt) -> dict[str, Any]:
    """A PAUSE as SPEC §10 shows it."""
    p = pause.payload
    out: dict[str, Any] = {
        "id": pause.id,
        "kind": pause.kind,
        "tool": pause.tool,
        "question": p.get("question", ""),
        "arguments": p.get("arguments", []),
        "reasons": p.get("reasons", []),
        "irreversible": bool(p.get("irreversible")),
        "choices": p.get("choices", list(PAUSE_ANSWERS[pause.kind])),
        "token": token_for(pause),
        "step": step_index(pause),
    }
    if pause.kind == Interrupt.Kind.ASK:
        out["ask"] = p.get("ask")
        out["argument"] = p.get("argument")
    if pause.kind == Interrupt.Kind.SAGA_STUCK:
        # What still needs undoing, newest first (this write first), and why the undo failed (SPEC §8).
        out["undo_of"] = p.get("undo_of")
        out["left"] = p.get("left", [])
        out["error"] = p.get("error", "")
    return out


def expire_questions(thread_id: str, open_: list[Interrupt] | None = None) -> bool:
    """Close the thread's pauses past their deadline as ``timed_out`` (SPEC §7.5,
    §7.6), the same way the sweep does. True when any closed."""
    now = timezone.now()
    if open_ is None:
        open_ = list(Interrupt.objects.filter(thread_id=thread_id, status=Interrupt.Status.OPEN)
                     .select_related("step"))
    # One rule for the deadline (catalogue.questions.is_timed_out): reaching it counts as past it.
    due = [p for p in open_ if p.expires_at is not None and is_timed_out(p.expires_at, now, 0)]
    closed = [pause_expire(pause, now) for pause in due]
    return any(closed)


_PAUSE, _STEP = Columns(Interrupt, "i"), Columns(Step, "s")
_THREAD, _RUN = Columns(Thread, "t"), Columns(Run, "r")


def _parts(whole: bool) -> list[Columns]:
    return [_PAUSE, _STEP, *((_THREAD, _RUN) if whole else ())]


def _pauses_sql(whole: bool) -> str:
    parts = _parts(whole)
    joins = f" LEFT JOIN {_STEP.table} ON {_STEP.col('id')} = {_PAUSE.col('step')}"
    if whole:
        joins += (f" JOIN {_THREAD.table} ON {_THREAD.col('id')} = {_PAUSE.col('thread')}"
                  f" JOIN {_RUN.table} ON {_RUN.col('id')} = {_PAUSE.col('run')}")
    return (f"SELECT {', '.join(p.select() for p in parts)} FROM {_PAUSE.table}{joins}"
            f" WHERE {_PAUSE.col('thread')} = %s AND {_PAUSE.col('status')} = %s"
            f" ORDER BY {_PAUSE.col('created_at')}, {_PAUSE.col('id')}")


_PAUSES_SQL = {False: statement(lambda: _pauses_sql(False)), True: statement(lambda: _pauses_sql(True))}


def thread_pauses(thread_id: str, *, whole: bool = False) -> list[Interrupt]:
    """The thread's open pauses, oldest first, each with its step; ``whole``:
    with its thread and run too. One read, written out (``threads.engine.rows``)."""
    pauses = []
    for pause, step, *more in read(_PAUSES_SQL[whole](), [thread_id, Interrupt.Status.OPEN], _parts(whole)):
        pause.step = step
        if whole:
            pause.thread, pause.run = more[0], more[1]
        pauses.append(pause)
    return pauses


def open_pauses(thread_id: str) -> list[dict[str, Any]]:
    """The thread's open pauses, oldest first, questions past their time closed first."""
    pauses = thread_pauses(thread_id)
    if expire_questions(thread_id, pauses):
        pauses = thread_pauses(thread_id)
    return [present(p) for p in pauses]
