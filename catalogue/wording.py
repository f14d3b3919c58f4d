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

import re
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
            word = words[i]
            singular = word[:-1] if word.endswith("s") and len(word) > 3 else ""
            # "orders" read back as the plural of "order"'s word: "pedidos", "cartões".
            out.append(_plural(back[singular]) if singular in back and language == "pt-BR" else word)
            i += 1
    return " ".join(out)


def _plural(word: str) -> str:
    """A Portuguese noun's plural, by its ending: pedido -> pedidos, cartão -> cartões,
    valor -> valores, papel -> papéis (a phrase's first word: caixa de entrada -> caixas de entrada)."""
    head, sep, rest = word.partition(" ")
    if head.endswith("ão"):
        head = head[:-2] + "ões"
    elif head.endswith(("r", "z", "s")):
        head = head + "es"
    elif head.endswith("el"):
        head = head[:-2] + "éis"
    elif head.endswith("l"):
        head = head[:-1] + "is"
    elif head.endswith("m"):
        head = head[:-1] + "ns"
    else:
        head = head + "s"
    return head + sep + rest


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


# What a result or an error says, as a person of the thread's language reads it
# (docs/agent-file.md, "What replies say"). The vocabulary's ``results`` table
# first (a whole value, a field's name as words, or an English sentence with
# {placeholders}), then the tool's ``labels`` for a field, then, in Portuguese,
# the field's words read back through the vocabulary ("customer" -> "cliente").
_DECIMAL = re.compile(r"^-?\d+\.\d+$")
_SLOT = re.compile(r"\{(\w+)\}")
_YES_NO = {"en": ("yes", "no"), "pt-BR": ("sim", "não")}
_NONE = {"en": "none", "pt-BR": "nenhum"}


def _results(vocabulary: Vocabulary | None, language: str) -> Mapping[str, str]:
    return (getattr(vocabulary, "results", None) or {}).get(language, {}) if vocabulary is not None else {}


def said_text(text: str, language: str, vocabulary: Vocabulary | None) -> str:
    """A value or an error (English, as the tool said it) in ``language``, from the vocabulary's
    ``results``: a whole match (any case), else a sentence with ``{placeholders}``; else as it is."""
    table = _results(vocabulary, language)
    if not table:
        return text
    plain = " ".join(str(text).split())
    for said, words in table.items():
        if said.lower() == plain.lower():
            return words
    for said, words in table.items():
        if "{" not in said:
            continue
        parts = _SLOT.split(said)  # literal, name, literal, name, ...
        pattern = "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.+?)" for i, p in enumerate(parts))
        try:
            match = re.fullmatch(pattern, plain, flags=re.IGNORECASE)
        except re.error:  # a name used twice in one sentence
            continue
        if match:
            return _fill(words, match.groupdict())
    return text


def _fill(words: str, found: Mapping[str, str]) -> str:
    """``words`` with each ``{name}`` replaced by what the English sentence had there."""
    def one(m: re.Match[str]) -> str:
        return str(found.get(m.group(1), m.group(0)))

    return _SLOT.sub(one, words)


_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?(Z|[+-]00:?00)?)?$")


def number_in(value: Any, language: str) -> str:
    """A number or a date as a person of ``language`` writes it: 99.9 -> "99,9" and
    2026-12-03 -> "03/12/2026" in pt-BR (a time kept as given, "UTC" said when it is)."""
    shown = str(value)
    if language != "pt-BR":
        return shown
    if _DECIMAL.match(shown):
        return shown.replace(".", ",")
    date = _DATE.match(shown)
    if date:
        year, month, day, hour, minute, utc = date.groups()
        day_first = f"{day}/{month}/{year}"
        if hour is None:
            return day_first
        return f"{day_first} {hour}:{minute}" + (" UTC" if utc else "")
    return shown


def field_label(tool: Any, name: str, language: str, vocabulary: Vocabulary | None) -> str:
    """A result field's name in a reply: ``charge_id`` -> "charge id" in English, and in pt-BR
    the vocabulary's ``results``, the tool's ``labels``, else its words read back ("cliente")."""
    words = name_words(name) or [name]
    table = _results(vocabulary, language)
    phrase = " ".join(words)
    for key in (phrase, name):
        if key in table:
            return table[key]
    labels = getattr(tool, "labels", None) or {}
    declared = labels.get(name) if isinstance(labels, Mapping) else None
    own = declared.get(language) if isinstance(declared, Mapping) else None
    if isinstance(own, str) and own.strip():
        return own.strip().lower()
    if language == ENGLISH:
        return phrase
    while len(words) > 1 and words[-1] in _LABEL_TAILS:
        words = words[:-1]
    return words_in(words, language, vocabulary)


def result_words(result: Any, language: str, tool: Any = None, vocabulary: Vocabulary | None = None) -> str:
    """A tool's result in one or a few readable lines, in ``language``:
    "order id: 5001, status: unpaid" / "pedido: 5001, situação: não pago"."""
    def value(v: Any) -> str:
        if isinstance(v, bool):
            yes, no = _YES_NO.get(language, _YES_NO["en"]) if language != ENGLISH else ("True", "False")
            return said_text(yes if v else no, language, vocabulary)
        if isinstance(v, int | float):
            return number_in(v, language)
        if isinstance(v, str):
            return number_in(said_text(v, language, vocabulary), language)
        return "" if v is None else str(v)

    none = _NONE.get(language, "none")
    if isinstance(result, Mapping):
        parts = []
        for key, v in result.items():
            label = field_label(tool, str(key), language, vocabulary)
            if isinstance(v, list):
                inner = "; ".join(result_words(x, language, tool, vocabulary) for x in v)
                parts.append(f"{label}: {inner}" if v else f"{label}: {none}")
            elif isinstance(v, Mapping):
                parts.append(f"{label}: ({result_words(v, language, tool, vocabulary)})")
            else:
                parts.append(f"{label}: {value(v)}")
        return ", ".join(parts)
    if isinstance(result, list):
        return "; ".join(result_words(v, language, tool, vocabulary) for v in result) or none
    return value(result)
