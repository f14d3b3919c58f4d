"""What an AG-UI request's work shares (``requests``: the dispatch and a
turn; ``resumes``: a resume): the request as the facade takes it, its errors
as ``RUN_ERROR`` codes, its replays, and the thread as it stands.

The events a turn or a resume was answered with are kept on its row of the
engine's replay journal (``answered``); the same request again gets them
again, under its own ``runId`` (``replayed``). A request whose first answer
was never kept (its worker died, or it failed after its run was stored) gets
the thread as it stands. Every error is a ``RUN_ERROR`` with a ``code``
after ``RUN_STARTED``, and changes nothing.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

from ag_ui.core import BaseEvent, Event, RunAgentInput, RunFinishedEvent
from ag_ui.core import Interrupt as AguiInterrupt
from django.utils.translation import gettext as _
from pydantic import TypeAdapter

from catalogue import registry
from doors.agui import events as ev
from threads.engine import (
    Answer,
    PauseView,
    ReplayKey,
    ReplayView,
    replay_keep,
    replay_release,
    replays_find,
    thread_check,
    thread_history,
    thread_latest,
)
from threads.errors import NotFound, StalwartError
from threads.keys import thread_key

log = logging.getLogger("stalwart.agui")

DOOR = "agui"
_EVENT = TypeAdapter(Event)


class AguiError(Exception):
    """What a ``RUN_ERROR`` says: a code and a sentence."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


def stalwart_error(err: StalwartError) -> AguiError:
    return AguiError(err.code, str(err.detail))


@dataclass
class Request:
    data: RunAgentInput
    session_hash: str
    agent: str
    context: dict[str, Any]
    privileges: list[str]
    language: str | None = None

    @property
    def key(self) -> str:
        """The session's thread of the client's ``threadId``, by its stored key (``threads.keys``)."""
        return thread_key(self.data.thread_id, self.session_hash)


def opened(req: Request) -> bool:
    """Whether the session's thread is opened yet. A key is the session's own,
    so another's is never found; the engine's check stays, answering the same
    ``not_found`` as the messages route's, never saying which."""
    try:
        return thread_check(req.key, req.session_hash)
    except NotFound as err:
        raise AguiError("not_found", _("There is nothing here.")) from err


def text_of(content: Any) -> str:
    """A user message's text: a string, or its text parts joined (media parts are not read)."""
    if isinstance(content, str):
        text = content
    else:
        text = " ".join(getattr(p, "text", "") for p in content if getattr(p, "type", "") == "text")
    return text.replace("\x00", " ")  # a NUL is noise, as on the messages route


# -- replays ----------------------------------------------------------------

def kept(events: list[BaseEvent]) -> dict[str, Any]:
    return {"events": [e.model_dump(mode="json", by_alias=True) for e in events]}


def replayed(earlier: ReplayView, asked: ReplayKey, req: Request, other: tuple[str, str],
             unkept: Any = None) -> list[BaseEvent]:
    """The answer to a request taken before: its events again, under this
    request's run id; ``other`` when the earlier one asked something else.
    Its first answer never kept (its worker died, or it failed after its run
    was stored): ``unkept()`` (else the thread as it stands), which raises
    ``idempotency_in_progress`` while what it started is still on its way."""
    if not earlier.asked_the_same(asked.fingerprint):
        raise AguiError(*other)
    events = (earlier.result or {}).get("events") if isinstance(earlier.result, dict) else None
    if events is None:
        if earlier.in_progress:
            raise in_progress()
        if unkept is not None:
            return list(unkept())
        return as_it_stands(earlier.thread or req.key, req.data.thread_id, req.data.run_id)
    out: list[BaseEvent] = []
    for event in events:
        parsed = _EVENT.validate_python(event)
        if isinstance(parsed, RunFinishedEvent):
            parsed.run_id = req.data.run_id
        out.append(parsed)
    return out


def in_progress() -> AguiError:
    return AguiError("idempotency_in_progress", _("The same request is still being answered; try again in a moment."))


def answered(replay_id: int | None, work: Any) -> list[BaseEvent]:
    """``work()``'s events, kept on the request's journal row (let go, and
    the error raised again, when they cannot be made)."""
    try:
        out: list[BaseEvent] = work()
    except BaseException:
        if replay_id is not None:
            replay_release(replay_id)
        raise
    if replay_id is not None:
        replay_keep(replay_id, kept(out))
    return out


# -- the thread as it stands ---------------------------------------------------

def as_it_stands(thread_id: str | None, shown: str, run_id: str) -> list[BaseEvent]:
    """``STATE_SNAPSHOT``, ``MESSAGES_SNAPSHOT`` and ``RUN_FINISHED`` with the pauses still open."""
    if thread_id is None:
        answer = Answer(thread=shown, run="", status="", reply=None, waiting=[], refusals=[], rollback=None, steps=[])
    else:
        answer = thread_latest(thread_id)
    return closing(thread_id, shown, run_id, answer)


def closing(thread_id: str | None, shown: str, run_id: str, answer: Answer) -> list[BaseEvent]:
    state = {"thread": shown, "run": answer.run or None, "status": answer.status or None,
             "steps": [s.to_json() for s in answer.steps], "waiting": [p.to_json() for p in answer.waiting],
             "refusals": [r.to_json() for r in answer.refusals], "rollback": answer.rollback}
    return [ev.state_snapshot(state), ev.messages_snapshot(*_history(thread_id)),
            ev.run_finished(shown, run_id, interrupts_of(answer.waiting))]


def _history(thread_id: str | None) -> tuple[list[Any], dict[str, str]]:
    """The thread's newest runs, and the client's own message id of each turn it sent (its journal rows)."""
    if thread_id is None:
        return [], {}
    runs = thread_history(thread_id)
    turns = replays_find(door=DOOR, thread_id=thread_id, kind="turn", run_ids=[r.run for r in runs])
    return runs, {t.run: t.key for t in turns}


def interrupts_of(waiting: list[PauseView]) -> list[AguiInterrupt]:
    return [ev.interrupt_of(p, tool_schema=tool_schema(p)) for p in waiting]


def tool_schema(pause: PauseView) -> dict[str, Any] | None:
    """The input schema of a confirm's tool as a client is shown it, from its
    run's agent (None when it left the file since)."""
    if pause.kind != "confirm" or not pause.tool:
        return None
    try:
        tool = registry.get_agent(pause.agent or None).tool(pause.tool)
    except Exception:  # the agent or tool left the file since: the arguments shown are all there is
        return None
    return shown_schema(tool) if tool is not None else None


def shown_schema(tool: Any) -> dict[str, Any]:
    """A tool's input schema as a client is shown it: its idempotency argument is the engine's to fill."""
    schema = json.loads(json.dumps(dict(tool.input_schema)))
    hidden = (tool.idempotency or {}).get("argument")
    if hidden:
        schema.get("properties", {}).pop(hidden, None)
        schema["required"] = [r for r in schema.get("required", []) if r != hidden]
    return schema
