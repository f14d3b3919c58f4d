"""What is sent to the model: the chat-completions request body.

The system prompt, the conversation so far (its two voices only), the turn,
and the catalogue as OpenAI ``tools``, each without its idempotency argument,
plus the built-in ``clarify`` tool through which the model asks the person a
question.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from catalogue.llm.messages import DEFAULT_LANGUAGE
from catalogue.llm.values import ModelConfig
from catalogue.tools import Tool

CLARIFY_TOOL: Final = "clarify"
# Used only when the catalogue itself has a tool named ``clarify``: hiding the
# team's own tool behind the built-in would be a silent loss.
CLARIFY_TOOL_FALLBACK: Final = "stalwart_clarify"
HISTORY_ROLES: Final = ("user", "assistant")

SYSTEM_PROMPT: Final = (
    "You act for a person through the tools listed, and only those. "
    "Call a tool only when the person's words clearly ask for it: a wrong call is "
    "worse than no call. Every call you make is shown to a person before it runs. "
    "If you need to know something before you can call a tool, call {clarify} with "
    "one question (kind 'choice' with one to four choices, or kind 'open') and call "
    "nothing else. If no tool fits, answer in plain words. Write to the person in {language}."
)
LANGUAGE_NAMES: Final[Mapping[str, str]] = {"en": "English", "pt-BR": "Brazilian Portuguese"}

CLARIFY_DESCRIPTION: Final = (
    "Ask the person one question before doing anything: a multiple choice "
    "(kind 'choice', one to four short choices) or an open question (kind 'open')."
)
CLARIFY_PARAMETERS: Final[Mapping[str, Any]] = {
    "type": "object",
    "properties": {
        "kind": {"type": "string", "enum": ["choice", "open"]},
        "prompt": {"type": "string", "description": "The question, in one sentence."},
        "choices": {
            "type": "array",
            "items": {"type": "string"},
            "minItems": 1,
            "maxItems": 4,
            "description": "For kind 'choice' only: the answers the person picks from.",
        },
    },
    "required": ["kind", "prompt"],
}


def request_body(
    config: ModelConfig,
    *,
    turn: str,
    history: Sequence[Mapping[str, str]],
    tools: Sequence[Tool],
    clarify: str = CLARIFY_TOOL,
    language: str = DEFAULT_LANGUAGE,
) -> dict[str, Any]:
    """The chat-completions request body. ``tool_choice`` is left to the
    endpoint's default (``auto``): some compatible servers refuse the field."""
    system = SYSTEM_PROMPT.format(
        clarify=clarify, language=LANGUAGE_NAMES.get(language, LANGUAGE_NAMES["en"])
    )
    messages: list[dict[str, str]] = [{"role": "system", "content": system}]
    for entry in history:
        if not isinstance(entry, Mapping):
            continue
        role, content = entry.get("role"), entry.get("content")
        # Only the two voices of a conversation: a stored "system" entry would
        # let old text speak as the operator, and "tool" entries need call ids
        # the history does not keep (the endpoint would refuse the request).
        if role in HISTORY_ROLES and isinstance(content, str) and content.strip():
            messages.append({"role": role, "content": content})
    messages.append({"role": "user", "content": turn})
    specs = [tool_spec(tool) for tool in tools]
    specs.append(
        {
            "type": "function",
            "function": {
                "name": clarify,
                "description": CLARIFY_DESCRIPTION,
                "parameters": _plain(CLARIFY_PARAMETERS),
            },
        }
    )
    return {"model": config.model, "messages": messages, "tools": specs}


def tool_spec(tool: Tool) -> dict[str, Any]:
    """One tool in the OpenAI ``tools`` format, without its idempotency argument."""
    parameters: dict[str, Any] = _plain(tool.input_schema)
    parameters.setdefault("type", "object")
    hidden = idempotency_argument(tool)
    if hidden is not None:
        properties = parameters.get("properties")
        if isinstance(properties, dict):
            properties.pop(hidden, None)
        required = parameters.get("required")
        if isinstance(required, list):
            parameters["required"] = [name for name in required if name != hidden]
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            # An empty description tells the model nothing; the name read as
            # words at least says what the tool does.
            "description": tool.description or tool.words,
            "parameters": parameters,
        },
    }


def idempotency_argument(tool: Tool) -> str | None:
    """The argument a tool takes its idempotency key in, which the engine owns; None without one."""
    argument = (tool.idempotency or {}).get("argument")
    return argument if isinstance(argument, str) and argument else None


def _plain(value: Any) -> Any:
    """A deep copy as plain dicts and lists, safe to JSON-encode and to edit."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value
