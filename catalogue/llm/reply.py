"""What the model sent back, read as a ``ModelAnswer``; nothing here raises.

Tool calls become plan ``Call``s (steps from 1, every argument of origin
``model``, typed by its schema where that loses nothing); a ``clarify`` call
becomes a question, checked before any person sees it; a plain reply becomes
text; anything else is ``model_garbage`` with a sentence for the person.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from catalogue.llm.messages import DEFAULT_LANGUAGE, MESSAGES
from catalogue.llm.request import CLARIFY_TOOL, idempotency_argument
from catalogue.llm.values import MODEL_GARBAGE, ModelAnswer
from catalogue.plan import Argument, Call
from catalogue.questions import QuestionError, make_question
from catalogue.tools import Tool

ORIGIN: Final = "model"


def read_completion(
    data: Any,
    *,
    by_name: Mapping[str, Tool],
    clarify: str = CLARIFY_TOOL,
    words: Mapping[str, str] = MESSAGES[DEFAULT_LANGUAGE],
) -> ModelAnswer:
    """A chat-completion body read as a ``ModelAnswer``; never raises."""
    message = _first_message(data)
    if message is None:
        return ModelAnswer(error=MODEL_GARBAGE, detail=words["garbage_body"])
    raw_calls = _raw_tool_calls(message)
    if raw_calls is None:
        return ModelAnswer(error=MODEL_GARBAGE, detail=words["garbage_body"])

    if not raw_calls:
        text = _content_text(message.get("content"))
        if not text:
            return ModelAnswer(error=MODEL_GARBAGE, detail=words["garbage_empty"])
        return ModelAnswer(text=text)

    parsed: list[tuple[str, dict[str, Any] | None]] = [
        (name, _arguments(arguments)) for name, arguments in raw_calls
    ]

    # A question wins over calls made in the same breath: the model said it
    # does not know enough yet, so those calls are not trusted. Its answer
    # goes back to the model with the conversation, which plans again.
    questions = [args for name, args in parsed if name == clarify]
    if questions:
        return _read_question(questions, words)

    dropped = tuple(dict.fromkeys(name for name, _ in parsed if name not in by_name))
    known = [(name, args) for name, args in parsed if name in by_name]
    if not known:
        return ModelAnswer(
            error=MODEL_GARBAGE,
            detail=words["only_unknown_tools"].format(tools=_names(dropped)),
            dropped=dropped,
        )
    unreadable = [name for name, args in known if args is None]
    if unreadable:
        # One unreadable call spoils the plan: the calls around it may depend
        # on it ("charge it, then send the receipt"), and a partial plan is a
        # wrong plan.
        return ModelAnswer(
            error=MODEL_GARBAGE,
            detail=words["garbage_arguments"].format(tools=_names(dict.fromkeys(unreadable))),
            dropped=dropped,
        )
    calls = tuple(
        Call(step=step, tool=name, arguments=_model_arguments(by_name[name], args or {}))
        for step, (name, args) in enumerate(known, start=1)
    )
    detail = words["unknown_tools"].format(tools=_names(dropped)) if dropped else ""
    return ModelAnswer(calls=calls, detail=detail, dropped=dropped)


# --- helpers ------------------------------------------------------------------


def _read_question(
    candidates: Sequence[dict[str, Any] | None], words: Mapping[str, str]
) -> ModelAnswer:
    """The first question the model asked that can be shown."""
    reason = ""
    for args in candidates:
        if args is None:
            reason = reason or "unreadable arguments"
            continue
        raw = dict(args)
        # Models often leave ``kind`` out; choices say which kind they meant.
        if "kind" not in raw:
            raw["kind"] = "choice" if raw.get("choices") else "open"
        # "question" is the name Hermes' clarify tool uses for the prompt.
        if "prompt" not in raw and isinstance(raw.get("question"), str):
            raw["prompt"] = raw.pop("question")
        try:
            return ModelAnswer(question=make_question(raw))
        except QuestionError as exc:
            reason = reason or exc.message.rstrip(".")
    return ModelAnswer(error=MODEL_GARBAGE, detail=words["garbage_question"].format(reason=reason))


def _first_message(data: Any) -> Mapping[str, Any] | None:
    if not isinstance(data, Mapping):
        return None
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
        return None
    message = choices[0].get("message")
    return message if isinstance(message, Mapping) else None


def _raw_tool_calls(message: Mapping[str, Any]) -> list[tuple[str, Any]] | None:
    """``(name, arguments)`` of each tool call; None when the shape is wrong."""
    tool_calls = message.get("tool_calls")
    if tool_calls is None:
        # The older single ``function_call`` shape, still sent by some servers.
        legacy = message.get("function_call")
        tool_calls = [{"type": "function", "function": legacy}] if legacy else []
    if not isinstance(tool_calls, list):
        return None
    out: list[tuple[str, Any]] = []
    for item in tool_calls:
        function = item.get("function") if isinstance(item, Mapping) else None
        if not isinstance(function, Mapping):
            return None
        name = function.get("name")
        if not isinstance(name, str) or not name.strip():
            return None
        out.append((name.strip(), function.get("arguments")))
    return out


def _arguments(raw: Any) -> dict[str, Any] | None:
    """A call's arguments as an object; None when they cannot be read.

    OpenAI sends a JSON string; some compatible servers send the object.
    """
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            return None
    return dict(raw) if isinstance(raw, Mapping) else None


def _model_arguments(tool: Tool, args: Mapping[str, Any]) -> tuple[Argument, ...]:
    hidden = idempotency_argument(tool)
    return tuple(
        Argument(name=name, value=_typed(tool, name, value), origin=ORIGIN)
        for name, value in args.items()
        # A key the model made up must not stand in for the engine's own, which
        # is what makes a retry safe.
        if name != hidden
    )


# Plain digits only: Python's int() and float() also take "1_000", "nan" and
# "inf", which no person means as an amount.
_INTEGER: Final = re.compile(r"[+-]?\d+", re.ASCII)
_DECIMAL: Final = re.compile(r"[+-]?(?:\d+\.\d*|\.\d+)", re.ASCII)


def _typed(tool: Tool, name: str, value: Any) -> Any:
    """A value in its schema's type where that loses nothing.

    Models write ``4411`` for a string id and ``"40"`` for a number; only those
    exact, lossless readings are made. Anything else is left as written for
    the check's schema validation to judge.
    """
    schema = tool.properties.get(name)
    kind = schema.get("type") if isinstance(schema, Mapping) else None
    if kind == "string" and isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if kind in ("integer", "number") and isinstance(value, str):
        text = value.strip()
        if _INTEGER.fullmatch(text):
            return int(text)
        if kind == "number" and _DECIMAL.fullmatch(text):
            return float(text)
    return value


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content.strip()
    if isinstance(content, list):
        # The "content parts" shape: [{"type": "text", "text": ...}, ...].
        parts = [
            part["text"]
            for part in content
            if isinstance(part, Mapping) and isinstance(part.get("text"), str)
        ]
        return "\n".join(parts).strip()
    return ""



def _names(names: Any) -> str:
    return ", ".join(str(name) for name in names)
