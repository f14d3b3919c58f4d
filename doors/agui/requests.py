"""An AG-UI request, mapped onto the engine's facade (``threads.engine``).

A request (``RunAgentInput``) is one of three things, decided in this order:

1. **a resume** (``resume[]`` given): the thread's open pauses answered at
   once, all or nothing (``resumes``);
2. **a turn**: the last ``user`` message. Its id names the turn in the
   engine's replay journal (the same message again replays the first
   answer's events and starts nothing), and the engine takes it only while
   no pause of the thread waits (``if_nothing_waits``: checked under the
   thread's lock, so of two tabs sending at once one runs and the other is
   told ``pending_interrupts``, and nothing closes);
3. **nothing new** (no user message): the thread as it stands (as
   ``connect`` gives it).
"""

from __future__ import annotations

from ag_ui.core import BaseEvent
from django.utils.translation import gettext as _

from doors.agui import events as ev
from doors.agui import runs
from doors.agui.resumes import resume
from threads.engine import Answer, Proposer, ReplayKey, turn_submit
from threads.errors import PausesPending, StalwartError


def run_request(req: runs.Request) -> list[BaseEvent]:
    """The events answering a ``POST /agui/<agent>/``: ``RUN_STARTED``, then what it did."""
    started = ev.run_started(req.data.thread_id, req.data.run_id)
    try:
        opened = runs.opened(req)
        if req.data.resume:
            return [started, *resume(req, opened)]
        user = next((m for m in reversed(req.data.messages) if getattr(m, "role", None) == "user"), None)
        if user is None:
            return [started, *runs.as_it_stands(req.key if opened else None, req.data.thread_id, req.data.run_id)]
        return [started, *_turn(req, user.id, runs.text_of(user.content))]
    except runs.AguiError as err:
        return [started, ev.run_error(err.code, err.message)]


def connect(req: runs.Request) -> list[BaseEvent]:
    """``POST /agui/<agent>/connect``: the thread as it stands, so a reloaded page shows what waits."""
    started = ev.run_started(req.data.thread_id, req.data.run_id)
    try:
        opened = runs.opened(req)
    except runs.AguiError as err:
        return [started, ev.run_error(err.code, err.message)]
    return [started, *runs.as_it_stands(req.key if opened else None, req.data.thread_id, req.data.run_id)]


# -- a turn -----------------------------------------------------------------

def _turn(req: runs.Request, message_id: str, text: str) -> list[BaseEvent]:
    data = req.data
    asked = ReplayKey(door=runs.DOOR, kind="turn", caller=req.key, identity=f"turn\n{message_id}", key=message_id,
                      fingerprint=[data.thread_id, text], held=True)
    try:
        answer = turn_submit(thread_id=req.key, session_hash=req.session_hash, text=text, language=req.language,
                             context=req.context, privileges=req.privileges, agent=req.agent, replay=asked,
                             if_nothing_waits=True, proposer=Proposer(door=runs.DOOR))
    except PausesPending as err:
        waiting = ", ".join(p["id"] for p in err.extra.get("waiting", []))
        raise runs.AguiError("pending_interrupts", _(
            "Calls in this thread wait for an answer ({ids}): answer each of them (a resume) before "
            "writing a new message.").format(ids=waiting)) from err
    except StalwartError as err:
        raise runs.stalwart_error(err) from err
    if answer.replayed is not None:
        return runs.replayed(answer.replayed, asked, req, ("idempotency_mismatch", _(
            "This message id was sent before with other text: a new message takes a new id.")))
    return runs.answered(answer.replay_id, lambda: _turn_events(req, answer))


def _turn_events(req: runs.Request, answer: Answer) -> list[BaseEvent]:
    reply = answer.reply
    out: list[BaseEvent] = []
    for step in answer.steps:
        out += ev.tool_call(step, answer.run, reply.id if reply else None)
        if step.ended:
            out.append(ev.tool_result(step, answer.run))
    if reply:
        out += ev.text_message(reply.id, reply.text)
    return out + runs.closing(req.key, req.data.thread_id, req.data.run_id, answer)
