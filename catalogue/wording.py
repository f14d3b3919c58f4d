"""What a tool says to a person, in each language, pure.

A tool may declare its words (``confirm``, and ``labels`` for its arguments:
docs/agent-file.md, "Declarations"), each a string or one per language::

    confirm: {en: Charge the card?, pt-BR: Cobrar no cartão?}
    labels: {order_id: {en: Order, pt-BR: Pedido}, amount: Amount}

Without them the tool's name is read as words (``charge card``), each word
read back through the agent's vocabulary and the selector's own lexicon
(``cobrar`` for ``charge``, ``cartão`` for ``card`` where the vocabulary says
``cartão: card``) and shown humanized: "Cobrar cartão?", "Pedido". A person
never reads the raw name.

The sentences other modules keep for a person (the check's refusals, the
lints) are English message ids marked with ``gettext_noop``: the code that
shows them translates them at the edge (gettext on the server), so this
package stays free of Django.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from catalogue.plan import Vocabulary
from catalogue.selector import lexicon_pt
from catalogue.words import name_words

LANGUAGES = ("en", "pt-BR")
ENGLISH = "en"

# The built-in lexicon is written without accents (turns are read folded);
# its words as a person writes them.
_ACCENTED = {
    "situacao": "situação", "descricao": "descrição", "titulo": "título", "comentario": "comentário",
    "endereco de email": "endereço de e-mail", "endereco de e-mail": "endereço de e-mail",
    "informacao": "informação", "informacoes": "informações",
}
# Words a label leaves out: "order id" is shown as "Order".
_LABEL_TAILS = frozenset({"id", "ids", "key", "code", "number", "no"})


def gettext_noop(message: str) -> str:
    """Mark ``message`` for the translation catalogue; the caller translates it where it is shown."""
    return message


def wording_problem(value: Any) -> str:
    """Why ``value`` is not a wording (a string, or ``{en: ..., pt-BR: ...}``), or ``""``."""
    if isinstance(value, str):
        return "" if value.strip() else "must not be empty"
    if isinstance(value, Mapping):
        if not value:
            return "must name at least one language (en, pt-BR)"
        for lang, said in value.items():
            if lang not in LANGUAGES:
                return f"'{lang}' is not a language (expected en or pt-BR)"
            if not isinstance(said, str) or not said.strip():
                return f"the {lang} words must be non-empty text"
        return ""
    return "must be text, or text per language like {en: ..., pt-BR: ...}"


def labels_problem(value: Any) -> str:
    """Why ``value`` is not ``{argument: wording}``, or ``""``."""
    if not isinstance(value, Mapping):
        return "must map each argument to its label, e.g. {order_id: {en: Order, pt-BR: Pedido}}"
    for name, wording in value.items():
        problem = wording_problem(wording)
        if problem:
            return f"{name}: {problem}"
    return ""


def said_in(value: Any, language: str) -> str:
    """A declared wording in ``language``: its own, else English, else any; ``""`` for none."""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, Mapping):
        for lang in (language, ENGLISH, *LANGUAGES):
            said = value.get(lang)
            if isinstance(said, str) and said.strip():
                return said.strip()
    return ""


def _back(vocabulary: Vocabulary | None, language: str) -> dict[str, str]:
    """English word -> the word a person of ``language`` reads: the agent's own first."""
    out: dict[str, str] = {}
    if language == ENGLISH:
        return out
    if vocabulary is not None:
        for phrase, word in vocabulary.for_language(language).items():
            out.setdefault(word, phrase)
    if language == "pt-BR":
        for table in (lexicon_pt.VERBS, lexicon_pt.NOUNS):
            for phrase, word in table.items():
                out.setdefault(word, _ACCENTED.get(phrase, phrase))
    return out


def words_in(words: list[str], language: str, vocabulary: Vocabulary | None) -> str:
    """Name words (English, as tool names use them) as a person of ``language`` reads them."""
    back = _back(vocabulary, language)
    out: list[str] = []
    i = 0
    while i < len(words):
        # The longest run of words the vocabulary reads back ("credit card" before "card").
        for j in range(len(words), i, -1):
            phrase = " ".join(words[i:j])
            if phrase in back:
                out.append(back[phrase])
                i = j
                break
        else:
            out.append(words[i])
            i += 1
    return " ".join(out)


def capitalised(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def tool_phrase(tool_name: str, language: str, vocabulary: Vocabulary | None = None, *,
                words: str = "") -> str:
    """``charge_card`` -> "charge card" / "cobrar cartão": the tool in a sentence."""
    split = (words or " ".join(name_words(tool_name))).split()
    return words_in(split, language, vocabulary) if split else tool_name


def tool_title(tool: Any, language: str, vocabulary: Vocabulary | None = None) -> str:
    """The question a confirmation shows: the declared ``confirm``, else "Charge card?"."""
    declared = said_in(getattr(tool, "confirm", None), language)
    if declared:
        return declared
    return capitalised(tool_phrase(tool.name, language, vocabulary, words=getattr(tool, "words", ""))) + "?"


def argument_label(tool: Any, argument: str, language: str, vocabulary: Vocabulary | None = None) -> str:
    """An argument's label: the declared one, else its name read as words: ``order_id`` -> "Order"."""
    labels = getattr(tool, "labels", None) or {}
    declared = said_in(labels.get(argument), language) if isinstance(labels, Mapping) else ""
    if declared:
        return declared
    words = name_words(argument)
    while len(words) > 1 and words[-1] in _LABEL_TAILS:
        words = words[:-1]
    return capitalised(words_in(words, language, vocabulary)) if words else argument
