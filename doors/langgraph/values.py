"""What a LangGraph interrupt asks, and what is handed back to it (docs/langgraph.md).

``asks_of`` reads an interrupt's value as the pauses ``pause_mirror`` opens
(an ``HITLRequest``: one ``confirm`` per action request; a ``tool_approval``:
one ``confirm``; anything else: an ``ask``); ``decision_of`` turns a step's
recorded decision (the engine's ``StepView``) back into the
``HumanInTheLoopMiddleware`` decision the graph takes, exactly as recorded:

| recorded | handed back |
|---|---|
| ``approve`` | ``{"type": "approve"}`` |
| ``approve`` after an edit (a later generation) | ``{"type": "edit", "edited_action": {"name", "args"}}`` |
| ``reject`` (or ``skip``) | ``{"type": "reject", "message"?}`` |
| ``respond`` with its message | ``{"type": "respond", "message"}`` |
| nothing (its deadline passed, or it was closed) | ``{"type": "reject", "message": NO_ANSWER}`` |

and, for Agent Inbox's ``HumanInterrupt`` (``human_response_of``), the ``HumanResponse`` it
takes: ``approve`` -> ``{"type": "accept", "args": null}``, after an edit ``{"type": "edit",
"args": {"action", "args"}}``, ``respond`` -> ``{"type": "response", "args": TEXT}``, anything
else (``skip``, no answer) -> ``{"type": "ignore", "args": null}``; never an approval for a step
no one approved. ``jsonable`` renders a
graph's output (its messages) as JSON.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext_lazy as _

from threads.engine import StepStatus, StepView
from threads.tokens import canonical

HITL_DECISIONS = ["approve", "edit", "reject", "respond"]
# What the model is told of a call no one answered before its deadline (a tool message, not a person's text).
NO_ANSWER = "No one answered in time: the call was not approved."


def digest(value: Any) -> str:
    return hashlib.sha256(canonical(value).encode()).hexdigest()


def is_hitl(value: Any) -> bool:
    return (isinstance(value, Mapping) and isinstance(value.get("action_requests"), list)
            and isinstance(value.get("review_configs"), list))


def is_tool_approval(value: Any) -> bool:
    return isinstance(value, Mapping) and value.get("type") == "tool_approval" and isinstance(value.get("name"), str)


# A HumanInterrupt's allow_* flags and the decisions they offer, in the order shown.
ALLOW = (("allow_accept", "approve"), ("allow_edit", "edit"), ("allow_respond", "respond"), ("allow_ignore", "skip"))


def _one_human_interrupt(value: Any) -> bool:
    return (isinstance(value, Mapping) and isinstance(value.get("action_request"), Mapping)
            and isinstance(value["action_request"].get("action"), str) and isinstance(value.get("config"), Mapping))


def is_human_interrupt(value: Any) -> bool:
    """Agent Inbox's ``HumanInterrupt`` (``action_request``, ``config``, ``description``), or a list of them."""
    if isinstance(value, list):
        return bool(value) and all(_one_human_interrupt(v) for v in value)
    return _one_human_interrupt(value)


def human_interrupts(value: Any) -> list[Mapping[str, Any]]:
    return list(value) if isinstance(value, list) else [value]


def _question(tool: str, description: Any) -> str:
    return str(_("Run {tool}?")).format(tool=tool) if not description else str(description).split("\n", 1)[0]


def asks_of(value: Any) -> list[dict[str, Any]]:
    """What an interrupt's value asks, as ``pause_mirror`` takes it (see the module's docstring)."""
    if is_hitl(value):
        configs = {str(c.get("action_name")): c for c in value["review_configs"] if isinstance(c, Mapping)}
        asks = []
        for i, action in enumerate(value["action_requests"]):
            name = str(action.get("name", ""))
            config = value["review_configs"][i] if i < len(value["review_configs"]) else configs.get(name, {})
            asks.append({"kind": "confirm", "tool": name, "arguments": dict(action.get("args") or {}),
                         "origin": "model", "choices": list(config.get("allowed_decisions") or HITL_DECISIONS),
                         "question": _question(name, action.get("description")),
                         "description": action.get("description") or "", "reasons": ["langgraph"]})
        return asks
    if is_human_interrupt(value):
        asks = []
        for item in human_interrupts(value):
            name, args = str(item["action_request"]["action"]), item["action_request"].get("args")
            config = item["config"]
            choices = [decision for flag, decision in ALLOW if config.get(flag) is True] or ["skip"]
            asks.append({"kind": "confirm", "tool": name, "arguments": dict(args) if isinstance(args, Mapping) else {},
                         "origin": "model", "choices": choices,
                         "question": _question(name, item.get("description")),
                         "description": str(item.get("description") or ""), "reasons": ["langgraph"]})
        return asks
    if is_tool_approval(value):
        name = str(value["name"])
        return [{"kind": "confirm", "tool": name, "arguments": dict(value.get("args") or {}), "origin": "model",
                 "choices": list(value.get("allowed_decisions") or HITL_DECISIONS),
                 "question": _question(name, value.get("description")), "description": value.get("description"),
                 "reasons": ["langgraph"]}]
    prompt: Any = value
    choices: Any = None
    if isinstance(value, Mapping):
        prompt = value.get("question") or value.get("prompt") or value.get("text") or canonical(value)
        choices = value.get("choices")
    prompt = str(prompt).strip() or canonical(value)
    ask: dict[str, Any] = {"kind": "open", "prompt": prompt}
    if isinstance(choices, list) and 1 <= len(choices) <= 4 and all(isinstance(c, str) and c for c in choices):
        ask = {"kind": "choice", "prompt": prompt, "choices": choices}
    return [{"kind": "ask", "tool": "", "question": prompt, "ask": ask, "value": value, "origin": "model"}]


def jsonable(value: Any) -> Any:
    """A graph's output as JSON: messages by their role, content and tool calls; the rest as it is."""
    from langchain_core.messages import BaseMessage

    if isinstance(value, BaseMessage):
        out: dict[str, Any] = {"role": value.type, "content": jsonable(value.content)}
        calls = getattr(value, "tool_calls", None)
        if calls:
            out["tool_calls"] = [{"name": c["name"], "args": jsonable(c["args"]), "id": c.get("id")} for c in calls]
        return out
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items() if not str(k).startswith("__")}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # NaN and infinities are no JSON: said as text ("nan", "inf")
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def interrupt_json(interrupt: Any) -> dict[str, Any]:
    """A LangGraph ``Interrupt`` as the Agent Server API shows it: ``{"value", "id"}``."""
    return {"value": jsonable(getattr(interrupt, "value", None)), "id": str(getattr(interrupt, "id", ""))}


def chunk_json(mode: str, chunk: Any) -> Any:
    """One ``values`` or ``updates`` chunk of a graph's stream as JSON, its interrupts
    (``__interrupt__``, which ``jsonable`` leaves out of a state) kept as the API shows them."""
    if not isinstance(chunk, Mapping):
        return jsonable(chunk)
    out = jsonable(chunk)
    if "__interrupt__" in chunk:
        out["__interrupt__"] = [interrupt_json(i) for i in chunk["__interrupt__"] or ()]
    return out


def _message(answer: Any) -> str | None:
    message = answer.get("message") if isinstance(answer, Mapping) else answer
    return message if isinstance(message, str) and message.strip() else None


def decision_of(step: StepView) -> dict[str, Any]:
    """What the graph is handed back for one action request (see the module's docstring)."""
    result = step.result if isinstance(step.result, Mapping) else {}
    decision, message = result.get("decision"), _message(result.get("answer"))
    if decision == "approve" and step.status == StepStatus.HANDED_BACK:
        if step.generation > 0:  # approved after an edit: the edited call, as HITL takes an edit
            return {"type": "edit", "edited_action": {"name": step.tool, "args": step.values}}
        return {"type": "approve"}
    if decision == "respond" and message is not None and step.status == StepStatus.HANDED_BACK:
        return {"type": "respond", "message": message}
    if decision in ("reject", "skip"):
        return {"type": "reject", **({"message": message} if message else {})}
    return {"type": "reject", "message": NO_ANSWER}  # no one answered it: never an approval


def human_response_of(step: StepView) -> dict[str, Any]:
    """What a ``HumanInterrupt`` is handed back for one action request (see the module's docstring)."""
    result = step.result if isinstance(step.result, Mapping) else {}
    decision, message = result.get("decision"), _message(result.get("answer"))
    if decision == "approve" and step.status == StepStatus.HANDED_BACK:
        if step.generation > 0:  # approved after an edit: the edited call
            return {"type": "edit", "args": {"action": step.tool, "args": step.values}}
        return {"type": "accept", "args": None}
    if decision == "respond" and message is not None and step.status == StepStatus.HANDED_BACK:
        return {"type": "response", "args": message}
    return {"type": "ignore", "args": None}  # skipped, or no one answered it: never an acceptance


OUTPUT_LIMIT = 2000  # characters of a graph's output kept as its mirrored run's reply


def output_words(output: Any) -> str:
    """A graph's output (``jsonable``) as the console shows it once the graph
    carried on: its last message's text where its state has messages, else its
    state as JSON; shortened past ``OUTPUT_LIMIT``."""
    messages = output.get("messages") if isinstance(output, Mapping) else None
    last = messages[-1] if isinstance(messages, list) and messages else None
    content = last.get("content") if isinstance(last, Mapping) else None
    if isinstance(content, list):  # content blocks: their text parts
        content = " ".join(str(b.get("text", "")) for b in content if isinstance(b, Mapping)).strip()
    if isinstance(content, str) and content.strip():
        said = content.strip()
    elif output in (None, {}, []):
        return ""
    else:
        said = json.dumps(output, ensure_ascii=False, default=str)
    return said if len(said) <= OUTPUT_LIMIT else said[:OUTPUT_LIMIT - 1] + "…"
