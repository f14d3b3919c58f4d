"""What the engine answers, in AG-UI's shapes (docs/ag-ui.md).

Everything here is built from the facade's typed answers (``Answer``, its
``StepView`` and ``PauseView`` values, a thread's ``RunHistory``), with the
``ag-ui-protocol`` package's models, so every event is one its own
validators take.

Ids are derived, never random, so a replay or a reconnect names the same
things: a step's tool call is ``<run>-<step>`` (a pause of that step names
it as its ``toolCallId``, and its result comes back under it however many
runs later), its tool message ``<run>-<step>-result``. A pause's interrupt
``id`` is the pause's own id.

A pause as an ``Interrupt``: ``reason`` by kind (``REASONS``), ``message``
its question, ``responseSchema`` an object whose ``decision`` enum is the
pause's choices (plus ``approved`` for a confirm or a delegate, ``editedArgs``
for a confirm: all the call's arguments, the tool's required ones required, a
full replacement; ``answer`` for a question, in the shape docs/http-api.md gives),
``expiresAt`` its deadline, ``metadata.stalwart`` the token a resume sends
back and what the call is (step, tool, arguments with origins, reasons,
irreversible).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from ag_ui.core import (
    PROTOCOL_VERSION,
    AssistantMessage,
    BaseEvent,
    FunctionCall,
    Interrupt,
    MessagesSnapshotEvent,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    StateSnapshotEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCall,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
    ToolMessage,
    UserMessage,
)
from ag_ui.encoder import EventEncoder
from django.utils.translation import gettext_lazy as _

from threads.engine import PauseView, Reply, RunHistory, StepStatus, StepView

REASONS = {
    "confirm": "tool_call",
    "ask": "input_required",
    "delegate": "confirmation",
    "outcome_unknown": "stalwart:outcome_unknown",
    "saga_stuck": "stalwart:saga_stuck",
}
ENCODER = EventEncoder()
DESCRIBE_EDITED = _("All the call's arguments, replacing those shown (never merged with them): an argument left "
                    "out is dropped. The edited call is checked again and waits as a new proposal.")


def call_id(run: str, step: int | None) -> str:
    return f"{run}-{step}"


def encode(events: Iterable[BaseEvent]) -> str:
    return "".join(ENCODER.encode(e) for e in events)


def tool_call(step: StepView, run: str, parent: str | None) -> list[BaseEvent]:
    """TOOL_CALL_START, ARGS (the arguments as one JSON delta) and END for a step."""
    cid = call_id(run, step.step)
    return [
        ToolCallStartEvent(tool_call_id=cid, tool_call_name=step.tool or "-", parent_message_id=parent),
        ToolCallArgsEvent(tool_call_id=cid, delta=json.dumps(step.values)),
        ToolCallEndEvent(tool_call_id=cid),
    ]


def result_content(step: StepView) -> str:
    """What a step came to, as the tool message's text (JSON): its status and
    its result, the refusal's rule and sentence, or its error."""
    out: dict[str, Any] = {"status": step.status}
    if step.result is not None:
        out["result"] = step.result
    if step.status == StepStatus.REFUSED:
        out["rule"] = step.rule
        out["sentence"] = step.sentence
    if step.error:
        out["error"] = step.error
    return json.dumps(out, ensure_ascii=False)


def tool_result(step: StepView, run: str) -> ToolCallResultEvent:
    cid = call_id(run, step.step)
    return ToolCallResultEvent(message_id=f"{cid}-result", tool_call_id=cid, content=result_content(step),
                               role="tool")


def text_message(message_id: str, text: str) -> list[BaseEvent]:
    if not text:
        return []
    return [TextMessageStartEvent(message_id=message_id, role="assistant"),
            TextMessageContentEvent(message_id=message_id, delta=text),
            TextMessageEndEvent(message_id=message_id)]


def response_schema(pause: PauseView, tool_schema: dict[str, Any] | None = None) -> dict[str, Any]:
    """The answer a pause takes, as JSON Schema (what a resume's ``payload`` is checked against)."""
    kind = pause.kind
    props: dict[str, Any] = {"decision": {"type": "string", "enum": list(pause.choices)}}
    if kind in ("confirm", "delegate"):
        props["approved"] = {"type": "boolean"}
    if kind == "confirm":
        props["editedArgs"] = edited_args_schema(pause, tool_schema)
    if kind == "ask":
        question = pause.extra.get("ask") or {}
        if question.get("kind") == "choice":
            props["answer"] = {"type": "object", "additionalProperties": False, "required": ["kind", "index"],
                               "properties": {"kind": {"const": "choice"},
                                              "index": {"type": "integer", "minimum": 0,
                                                        "maximum": max(len(question.get("choices") or []) - 1, 0)}}}
        else:
            props["answer"] = {"type": "object", "additionalProperties": False, "required": ["kind", "text"],
                               "properties": {"kind": {"const": "open"}, "text": {"type": "string", "minLength": 1}}}
    schema: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": False,
                              "minProperties": 1}
    if kind == "ask":
        schema["required"] = ["answer"]
    return schema


def edited_args_schema(pause: PauseView, tool_schema: dict[str, Any] | None) -> dict[str, Any]:
    """``editedArgs``: the call's arguments, all of them (a full replacement,
    never merged with those shown): each argument the tool takes, its
    required ones required. A tool that left the file since: the arguments
    shown, none required (the engine refuses the call then)."""
    said = str(DESCRIBE_EDITED)
    if tool_schema is None:
        return {"type": "object", "description": said, "minProperties": 1, "additionalProperties": False,
                "properties": {a["name"]: {} for a in pause.arguments}}
    named = tool_schema.get("properties") or {}
    schema: dict[str, Any] = {"type": "object", "description": said, "minProperties": 1,
                              "additionalProperties": False, "properties": {n: dict(v or {}) for n, v in named.items()}}
    required = [r for r in tool_schema.get("required") or [] if r in named]
    if required:
        schema["required"] = required
    return schema


def interrupt_of(pause: PauseView, *, tool_schema: dict[str, Any] | None = None) -> Interrupt:
    """A pause as an AG-UI ``Interrupt``."""
    shown = pause.to_json()
    stalwart = {k: shown.get(k) for k in ("token", "kind", "run", "step", "tool", "arguments", "reasons",
                                           "irreversible", "choices", "question")}
    for extra in ("ask", "argument", "undo_of", "left", "error", "labels", "approvals"):
        if extra in shown:
            stalwart[extra] = shown[extra]
    return Interrupt(
        id=pause.id, reason=REASONS.get(pause.kind, f"stalwart:{pause.kind}"),
        message=pause.question or None,
        tool_call_id=call_id(pause.run, pause.step) if pause.step is not None else None,
        response_schema=response_schema(pause, tool_schema),
        expires_at=pause.expires_at.isoformat().replace("+00:00", "Z") if pause.expires_at else None,
        metadata={"stalwart": stalwart},
    )


def run_started(thread: str, run: str) -> RunStartedEvent:
    return RunStartedEvent(thread_id=thread, run_id=run, protocol_version=PROTOCOL_VERSION)


def run_finished(thread: str, run: str, interrupts: list[Interrupt], result: Any = None) -> RunFinishedEvent:
    """``outcome: interrupt`` listing every open pause of the thread, else ``success``."""
    if interrupts:
        return RunFinishedEvent(thread_id=thread, run_id=run,
                                outcome=RunFinishedInterruptOutcome(type="interrupt", interrupts=interrupts))
    return RunFinishedEvent(thread_id=thread, run_id=run, result=result,
                            outcome=RunFinishedSuccessOutcome(type="success"))


def run_error(code: str, message: str) -> RunErrorEvent:
    return RunErrorEvent(code=code, message=message)


def state_snapshot(state: dict[str, Any]) -> StateSnapshotEvent:
    return StateSnapshotEvent(snapshot=state)


def messages_snapshot(history: list[RunHistory], client_ids: dict[str, str]) -> MessagesSnapshotEvent:
    """The thread as messages: per run, the person's message (the client's own
    id where it sent one, ``client_ids`` by run), the assistant's with the
    run's tool calls and first reply, a tool message per ended step, then
    later replies."""
    messages: list[Any] = []
    for run in history:
        messages.append(UserMessage(id=client_ids.get(run.run) or run.person or f"{run.run}-turn",
                                    content=run.text or " "))
        replies = list(run.replies)
        first = replies.pop(0) if replies else Reply(id=f"{run.run}-calls", text="")
        calls = [ToolCall(id=call_id(run.run, s.step),
                          function=FunctionCall(name=s.tool or "-", arguments=json.dumps(s.values)))
                 for s in run.steps]
        messages.append(AssistantMessage(id=first.id, content=first.text or None, tool_calls=calls or None))
        for s in run.steps:
            if s.ended:
                messages.append(ToolMessage(id=f"{call_id(run.run, s.step)}-result",
                                            tool_call_id=call_id(run.run, s.step), content=result_content(s)))
        for reply in replies:
            messages.append(AssistantMessage(id=reply.id, content=reply.text))
    return MessagesSnapshotEvent(messages=messages)
