"""The model hand-off (SPEC §7.1 ``delegate``), framework-free.

A turn nothing reads, under ``on_unread: ask``, pauses as ``delegate``; on
``approve`` the engine calls ``delegate()``, which sends the turn, the
conversation so far and the catalogue to the agent's model over an
OpenAI-compatible chat-completions endpoint and reads back one of:

- ``calls``: tool calls, as plan ``Call``s (steps from 1, every argument of
  origin ``model``), which then go through the check like any other call;
- ``question``: the model called the built-in ``clarify`` tool, whose
  arguments are a §7.5 question (validated here, so a bad one never reaches a
  person);
- ``text``: a plain reply, when it called nothing;
- ``error`` with a one-sentence ``detail`` for the person: ``no_model``,
  ``no_key``, ``model_error``, ``model_timeout`` or ``model_garbage``.

Nothing here raises for what the model or the network does: every failure is
an answer with an error code, so the engine can always reply.

Wire format (request)::

    POST {base_url}/chat/completions
    Authorization: Bearer $KEY_ENV
    {"model": ..., "messages": [system, *history, {"role": "user", "content": turn}],
     "tools": [{"type": "function", "function": {"name", "description", "parameters"}}, ...,
               clarify]}

The caller removes withdrawn tools first (SPEC §4.6: never offered to the
model); a tool's idempotency argument is left out of what the model sees,
because the engine owns idempotency keys.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import httpx

from catalogue.plan import Argument, Call
from catalogue.questions import QuestionError, make_question
from catalogue.tools import Tool

logger = logging.getLogger("stalwart.model")

ORIGIN: Final = "model"
CLARIFY_TOOL: Final = "clarify"
# Used only when the catalogue itself has a tool named ``clarify``: hiding the
# team's own tool behind the built-in would be a silent loss.
CLARIFY_TOOL_FALLBACK: Final = "stalwart_clarify"
HISTORY_ROLES: Final = ("user", "assistant")

# Error codes of ``ModelAnswer.error``.
NO_MODEL: Final = "no_model"
NO_KEY: Final = "no_key"
MODEL_ERROR: Final = "model_error"
MODEL_TIMEOUT: Final = "model_timeout"
MODEL_GARBAGE: Final = "model_garbage"
ERRORS: Final = (NO_MODEL, NO_KEY, MODEL_ERROR, MODEL_TIMEOUT, MODEL_GARBAGE)

# Sentences for the person, by language. ``{variable}``, ``{status}``,
# ``{tools}`` and ``{reason}`` are filled where they appear. The key wording
# follows the interface's ``modelKey*`` strings (seed 002).
MESSAGES: Final[Mapping[str, Mapping[str, str]]] = {
    "en": {
        "no_model": (
            "Your bot needs your AI key to help with this: no AI model is set up for it yet."
        ),
        "no_key": (
            "Your bot needs your AI key ({variable}) to help with this; until you add it, it "
            "can't help."
        ),
        "key_refused": (
            "Your AI provider refused the key in {variable}, so your bot can't help with this; "
            "check the key as your provider gave it."
        ),
        "model_status": (
            "The AI model answered with an error (HTTP {status}), so your bot can't help with "
            "this right now."
        ),
        "model_unreachable": (
            "The AI model could not be reached, so your bot can't help with this right now."
        ),
        "model_timeout": (
            "The AI model took too long to answer, so your bot can't help with this right now."
        ),
        "garbage_body": (
            "The AI model's answer could not be read, so your bot can't help with this."
        ),
        "garbage_empty": "The AI model answered with nothing, so your bot can't help with this.",
        "garbage_arguments": (
            "The AI model wrote arguments for {tools} that could not be read, so nothing was "
            "planned."
        ),
        "garbage_question": (
            "The AI model asked a question that can't be shown ({reason}), so your bot can't help "
            "with this."
        ),
        "unknown_tools": (
            "The AI model named tools your bot doesn't have ({tools}), so those calls were left "
            "out."
        ),
        "only_unknown_tools": (
            "The AI model named only tools your bot doesn't have ({tools}), so nothing was planned."
        ),
    },
    "pt-BR": {
        "no_model": (
            "Seu bot precisa da sua chave de IA para ajudar com isso: nenhum modelo de IA foi "
            "configurado para ele ainda."
        ),
        "no_key": (
            "Seu bot precisa da sua chave de IA ({variable}) para ajudar com isso; até você "
            "adicioná-la, ele não consegue ajudar."
        ),
        "key_refused": (
            "Seu provedor de IA recusou a chave em {variable}, então seu bot não consegue ajudar "
            "com isso; confira a chave como o provedor a forneceu."
        ),
        "model_status": (
            "O modelo de IA respondeu com um erro (HTTP {status}), então seu bot não consegue "
            "ajudar com isso agora."
        ),
        "model_unreachable": (
            "Não foi possível falar com o modelo de IA, então seu bot não consegue ajudar com "
            "isso agora."
        ),
        "model_timeout": (
            "O modelo de IA demorou demais para responder, então seu bot não consegue ajudar com "
            "isso agora."
        ),
        "garbage_body": (
            "Não foi possível ler a resposta do modelo de IA, então seu bot não consegue ajudar "
            "com isso."
        ),
        "garbage_empty": (
            "O modelo de IA respondeu sem conteúdo, então seu bot não consegue ajudar com isso."
        ),
        "garbage_arguments": (
            "O modelo de IA escreveu argumentos ilegíveis para {tools}, então nada foi planejado."
        ),
        "garbage_question": (
            "O modelo de IA fez uma pergunta que não pode ser mostrada ({reason}), então seu bot "
            "não consegue ajudar com isso."
        ),
        "unknown_tools": (
            "O modelo de IA citou ferramentas que seu bot não tem ({tools}), então essas chamadas "
            "ficaram de fora."
        ),
        "only_unknown_tools": (
            "O modelo de IA citou só ferramentas que seu bot não tem ({tools}), então nada foi "
            "planejado."
        ),
    },
}
DEFAULT_LANGUAGE: Final = "en"

# English sentences as plain constants, for callers and tests that name one.
NO_MODEL_MESSAGE: Final = MESSAGES["en"]["no_model"]
NO_KEY_MESSAGE: Final = MESSAGES["en"]["no_key"]
KEY_REFUSED_MESSAGE: Final = MESSAGES["en"]["key_refused"]
MODEL_STATUS_MESSAGE: Final = MESSAGES["en"]["model_status"]
MODEL_UNREACHABLE_MESSAGE: Final = MESSAGES["en"]["model_unreachable"]
MODEL_TIMEOUT_MESSAGE: Final = MESSAGES["en"]["model_timeout"]
GARBAGE_BODY_MESSAGE: Final = MESSAGES["en"]["garbage_body"]
GARBAGE_EMPTY_MESSAGE: Final = MESSAGES["en"]["garbage_empty"]
GARBAGE_ARGUMENTS_MESSAGE: Final = MESSAGES["en"]["garbage_arguments"]
GARBAGE_QUESTION_MESSAGE: Final = MESSAGES["en"]["garbage_question"]
UNKNOWN_TOOLS_MESSAGE: Final = MESSAGES["en"]["unknown_tools"]
ONLY_UNKNOWN_TOOLS_MESSAGE: Final = MESSAGES["en"]["only_unknown_tools"]

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


@dataclass(frozen=True)
class ModelConfig:
    """The agent file's ``model:`` block (SPEC §3)."""

    base_url: str
    model: str
    key_env: str = "OPENAI_API_KEY"
    timeout: float = 30.0

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ModelConfig:
        return cls(
            base_url=str(data["base_url"]),
            model=str(data["model"]),
            key_env=str(data.get("key_env") or "OPENAI_API_KEY"),
            timeout=float(data.get("timeout") or 30.0),
        )


@dataclass(frozen=True)
class ModelAnswer:
    """What the model gave back. At most one of calls, question and text is set;
    ``detail`` can accompany calls too, saying which tools were dropped."""

    calls: tuple[Call, ...] = ()  # every Argument of origin "model", steps from 1
    question: Mapping[str, Any] | None = None  # a validated §7.5 question (clarify)
    text: str = ""  # the model's plain reply, when it made no calls
    error: str | None = None  # one of ERRORS
    detail: str = ""  # one sentence for the person
    dropped: tuple[str, ...] = ()  # tools the model named that the catalogue lacks

    @property
    def ok(self) -> bool:
        return self.error is None


def delegate(
    config: ModelConfig | None,
    *,
    turn: str,
    history: Sequence[Mapping[str, str]],
    tools: Sequence[Tool],
    environ: Mapping[str, str] | None = None,
    transport: httpx.BaseTransport | None = None,
    language: str = DEFAULT_LANGUAGE,
) -> ModelAnswer:
    """Hand a turn to the agent's model and read back calls, a question or text.

    ``environ`` defaults to ``os.environ`` (read at call time, never at import);
    ``transport`` lets a caller route the request (tests use a real server).
    """
    words = MESSAGES.get(language, MESSAGES[DEFAULT_LANGUAGE])
    if config is None:
        return ModelAnswer(error=NO_MODEL, detail=words["no_model"])
    env = os.environ if environ is None else environ
    key = (env.get(config.key_env) or "").strip()
    if not key:
        return ModelAnswer(error=NO_KEY, detail=words["no_key"].format(variable=config.key_env))

    by_name = {tool.name: tool for tool in tools}
    clarify = CLARIFY_TOOL_FALLBACK if CLARIFY_TOOL in by_name else CLARIFY_TOOL
    body = request_body(
        config, turn=turn, history=history, tools=tools, clarify=clarify, language=language
    )
    url = config.base_url.rstrip("/") + "/chat/completions"
    try:
        with httpx.Client(transport=transport, timeout=config.timeout) as client:
            response = client.post(url, json=body, headers={"Authorization": f"Bearer {key}"})
    except httpx.TimeoutException:
        logger.warning("model %s at %s: no answer within %ss", config.model, url, config.timeout)
        return ModelAnswer(error=MODEL_TIMEOUT, detail=words["model_timeout"])
    except httpx.HTTPError as exc:
        logger.warning("model %s at %s: %s", config.model, url, exc)
        return ModelAnswer(error=MODEL_ERROR, detail=words["model_unreachable"])

    if response.status_code in (401, 403):
        logger.warning("model %s at %s: key refused (%s)", config.model, url, response.status_code)
        return ModelAnswer(
            error=MODEL_ERROR, detail=words["key_refused"].format(variable=config.key_env)
        )
    if not response.is_success:
        # The body may say why (rate limit, unknown model); it goes to the log
        # for the operator, cut short, and never to the person.
        logger.warning(
            "model %s at %s: HTTP %s: %.500s",
            config.model,
            url,
            response.status_code,
            response.text,
        )
        return ModelAnswer(
            error=MODEL_ERROR, detail=words["model_status"].format(status=response.status_code)
        )
    try:
        data = response.json()
    except ValueError:
        logger.warning("model %s at %s: body is not JSON: %.200s", config.model, url, response.text)
        return ModelAnswer(error=MODEL_GARBAGE, detail=words["garbage_body"])
    return read_completion(data, by_name=by_name, clarify=clarify, words=words)


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
    hidden = _idempotency_argument(tool)
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
    hidden = _idempotency_argument(tool)
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
    """A value in its schema's type where that loses nothing (SPEC §5).

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


def _idempotency_argument(tool: Tool) -> str | None:
    argument = (tool.idempotency or {}).get("argument")
    return argument if isinstance(argument, str) and argument else None


def _names(names: Any) -> str:
    return ", ".join(str(name) for name in names)


def _plain(value: Any) -> Any:
    """A deep copy as plain dicts and lists, safe to JSON-encode and to edit."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value
