"""The model hand-off (a ``delegate`` pause: docs/agent-file.md, "model"), framework-free.

A turn nothing reads, under ``on_unread: ask``, pauses as ``delegate``; on
``approve`` the engine calls ``delegate()``, which sends the turn, the
conversation so far and the catalogue to the agent's model over an
OpenAI-compatible chat-completions endpoint and reads back one of:

- ``calls``: tool calls, as plan ``Call``s (steps from 1, every argument of
  origin ``model``), which then go through the check like any other call;
- ``question``: the model called the built-in ``clarify`` tool, whose
  arguments are a question (docs/http-api.md, "Questions (ask)"; validated
  here, so a bad one never reaches a person);
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

The caller removes withdrawn tools first (never offered to the model:
docs/agent-file.md, "An agent"); a tool's idempotency argument is left out
of what the model sees, because the engine owns idempotency keys.

Inside: ``values`` (``ModelConfig``, ``ModelAnswer`` and the error codes),
``messages`` (the sentences for the person, by language), ``request`` (the
request body) and ``reply`` (the completion read back as an answer);
``delegate`` itself is here.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence

import httpx

from catalogue.llm.messages import DEFAULT_LANGUAGE, MESSAGES
from catalogue.llm.reply import read_completion
from catalogue.llm.request import CLARIFY_TOOL, CLARIFY_TOOL_FALLBACK, request_body
from catalogue.llm.values import MODEL_ERROR, MODEL_GARBAGE, MODEL_TIMEOUT, NO_KEY, NO_MODEL, ModelAnswer, ModelConfig
from catalogue.tools import Tool

logger = logging.getLogger("stalwart.model")


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
