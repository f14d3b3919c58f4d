"""Every sentence a run's reply says, keyed, in English and Brazilian Portuguese.

Tests import these keys instead of copying sentences.
"""

from __future__ import annotations

import re
from typing import Any

from django.utils import translation
from django.utils.translation import gettext

from catalogue import registry
from catalogue.agentfile import AgentFileError
from catalogue.plan import Vocabulary
from catalogue.tools import Tool
from catalogue.wording import argument_label, capitalised, result_words, said_text, tool_phrase, tool_title

TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "unread": "Sorry, I couldn't read that. Try naming what to do and what to do it to, like \"show order 4411\".",
        "delegate": "I couldn't read that myself. May I hand it to the assistant's model?",
        "declined": "All right, I won't hand it on. I couldn't help with that one.",
        "waiting_confirm": "{question} It waits for your approval.",
        "waiting_group": "{question} It waits for approval by {group}.",
        "waiting_quorum": "{question} It waits for the approval of {needed} people.",
        "waiting_outcome": "I don't know whether {tool} took effect: its reply was lost. Did it happen?",
        "waiting_ask": "{prompt}",
        "done_read": "{tool}: {result}",
        "done_write": "Done: {tool}. {result}",
        "failed": "{tool} failed: {error}",
        "skipped": "Skipped {tool}.",
        "cancelled": "Cancelled: nothing more of this run will happen.",
        "superseded": "Changed your mind? I've set the earlier request aside and started again.",
        "dependency": "{tool} needs the result of step {step}, which did not come.",
        "happened": "Recorded: {tool} happened.",
        "nothing": "Done.",
        "timed_out": "The question timed out, so I stopped there.",
        "steps_differ": ("The team's steps made another call this time ({got}, where before it was {was}). "
                         "Steps must make the same calls in the same order every time, so I stopped here."),
        "steps_failed": "The team's steps failed ({error}), so I stopped here.",
        "steps_busy": "Still working on it.",
        "expired": "{tool} waited past its deadline, so I stopped there.",
        "policy_timed_out": "{tool} was not approved before its deadline, so it was refused and I stopped there.",
        "undone": "Undone: {tool} (by {undo}).",
        "not_undoable": "{tool} cannot be undone.",
        "saga_stuck": "I could not undo {tool} after {attempts} tries ({error}). Still to undo: {left}.",
        "saga_stuck_question": "Undoing {tool} failed. Try again, record it as undone by hand, or leave it?",
        "done_by_hand": "Recorded: {tool} was undone by hand.",
        "abandoned": "Left as it is: {tool} was not undone.",
        "rolled_back": "Rolled back: {undone} undone, {not_undoable} could not be undone, {stuck} not undone.",
        "not_applied_retry": "{tool} did not take effect ({evidence}). Approve it again to retry.",
        "duplicate_effect": "{tool} took effect more than once ({evidence}): a person must repair it. I stopped here.",
        "false_success": "{tool} said it worked, but {evidence}: the run is reported unhealthy.",
        "unsafe_retry": "{tool} was already sent with another request: I stopped rather than send it again.",
        "reconciled": "{tool} took effect ({evidence}).",
    },
    "pt-BR": {
        "unread": "Desculpe, não consegui ler isso. Diga o que fazer e com o quê, como \"mostre o pedido 4411\".",
        "delegate": "Não consegui ler isso sozinho. Posso passar para o modelo do assistente?",
        "declined": "Tudo bem, não vou passar adiante. Não consegui ajudar com isso.",
        "waiting_confirm": "{question} Espera a sua aprovação.",
        "waiting_group": "{question} Espera a aprovação de {group}.",
        "waiting_quorum": "{question} Espera a aprovação de {needed} pessoas.",
        "waiting_outcome": "Não sei se {tool} teve efeito: a resposta se perdeu. Aconteceu?",
        "waiting_ask": "{prompt}",
        "done_read": "{tool}: {result}",
        "done_write": "Feito: {tool}. {result}",
        "failed": "{tool} falhou: {error}",
        "skipped": "{tool} foi pulado.",
        "cancelled": "Cancelado: nada mais desta execução vai acontecer.",
        "superseded": "Mudou de ideia? Deixei o pedido anterior de lado e comecei de novo.",
        "dependency": "{tool} precisa do resultado do passo {step}, que não veio.",
        "happened": "Registrado: {tool} aconteceu.",
        "nothing": "Feito.",
        "timed_out": "A pergunta expirou, então parei aí.",
        "steps_differ": ("Os passos da equipe fizeram outra chamada desta vez ({got}, onde antes era {was}). "
                         "Os passos precisam fazer as mesmas chamadas na mesma ordem sempre, então parei aqui."),
        "steps_failed": "Os passos da equipe falharam ({error}), então parei aqui.",
        "steps_busy": "Ainda estou trabalhando nisso.",
        "expired": "{tool} esperou além do prazo, então parei aí.",
        "policy_timed_out": "{tool} não foi aprovado antes do prazo, então foi recusado e parei aí.",
        "undone": "Desfeito: {tool} (por {undo}).",
        "not_undoable": "{tool} não pode ser desfeito.",
        "saga_stuck": "Não consegui desfazer {tool} depois de {attempts} tentativas ({error}). Falta desfazer: {left}.",
        "saga_stuck_question": "Desfazer {tool} falhou. Tentar de novo, registrar como desfeito à mão, ou deixar?",
        "done_by_hand": "Registrado: {tool} foi desfeito à mão.",
        "abandoned": "Deixado como está: {tool} não foi desfeito.",
        "rolled_back": "Revertido: {undone} desfeito(s), {not_undoable} sem como desfazer, {stuck} não desfeito(s).",
        "not_applied_retry": "{tool} não teve efeito ({evidence}). Aprove de novo para tentar outra vez.",
        "duplicate_effect": "{tool} teve efeito mais de uma vez ({evidence}): uma pessoa precisa corrigir. Parei aqui.",
        "false_success": "{tool} disse que funcionou, mas {evidence}: a execução foi marcada como não saudável.",
        "unsafe_retry": "{tool} já foi enviado com outro pedido: parei em vez de enviar de novo.",
        "reconciled": "{tool} teve efeito ({evidence}).",
    },
}


def text(language: str, key: str, **values: Any) -> str:
    """The sentence ``key`` in ``language``, its placeholders filled; it starts with a capital
    (a tool's words, "charge card", may open it)."""
    table = TEXTS.get(language) or TEXTS["en"]
    return capitalised(table.get(key, TEXTS["en"][key]).format(**values))


def _vocabulary(agent: str) -> Vocabulary | None:
    try:
        return registry.get_agent(agent).vocabulary
    except (AgentFileError, registry.NoAgentFile):  # the agent left the file since the run began
        return None


def said(run: Any, tool: str) -> str:
    """A tool as a sentence of ``run``'s language names it: "charge card", "cobrar cartão",
    never ``charge_card`` (its name read as words, through the agent's vocabulary)."""
    if not tool:
        return tool
    vocabulary = _vocabulary(run.agent)
    spec = None
    try:
        spec = registry.get_agent(run.agent).tool(tool)
    except (AgentFileError, registry.NoAgentFile):
        pass
    return tool_phrase(tool, run.language, vocabulary, words=spec.words if spec is not None else "")


def question_of(run: Any, tool: Tool) -> str:
    """The question a confirmation of ``tool`` shows, in ``run``'s language (the declared
    ``confirm``, else "Charge card?")."""
    return tool_title(tool, run.language, _vocabulary(run.agent))


def labels_of(run: Any, tool: Tool, arguments: list[dict[str, Any]]) -> dict[str, str]:
    """Each argument's label in ``run``'s language, by name: a pause's ``labels``."""
    vocabulary = _vocabulary(run.agent)
    hidden = (tool.idempotency or {}).get("argument")  # filled by the engine, never shown
    names = [str(a.get("name", "")) for a in arguments if a.get("name") != hidden]
    return {name: argument_label(tool, name, run.language, vocabulary) for name in names}


def refusal(run: Any, message: str, **params: str) -> str:
    """A refusal's sentence (``catalogue.check``'s message ids) in ``run``'s language:
    translated with gettext, filled, the tool named in words."""
    if "tool" in params:
        params["tool"] = said(run, params["tool"])
    with translation.override(str(run.language or "en").lower()):
        return capitalised(gettext(message).format(**params))


_EXCEPTION = re.compile(r"^[A-Z][A-Za-z0-9_]*(?:Error|Exception|Exit|Interrupt)(?::\s*|$)")


def person_error(error: str) -> str:
    """A tool's error as a person reads it: without the exception's class
    (``KeyError: '9999'`` -> ``'9999'``); the step keeps the whole text for staff."""
    return _EXCEPTION.sub("", str(error or "")).strip()


def describe_result(result: Any, run: Any = None, tool: Tool | None = None) -> str:
    """A tool's result in one or a few readable lines, in ``run``'s language: field names and
    values through the agent's vocabulary (its ``results``) and the tool's ``labels``, numbers
    as the language writes them. Without a run, English."""
    if run is None:
        return result_words(result, "en")
    return result_words(result, str(run.language or "en"), tool, _vocabulary(run.agent))


def error_of(run: Any, error: str) -> str:
    """A failed step's error as the thread's person reads it (``person_error``, then the
    vocabulary's ``results``: "order 4412 is already paid" -> "o pedido 4412 já está pago")."""
    shown = person_error(error)
    return said_text(shown, str(run.language or "en"), _vocabulary(run.agent))
