"""The catalogue's lints (docs/agent-file.md, "Lints: stalwart verify"), pure: what ``stalwart verify`` prints.

``lint(tools)`` answers ``Finding``s, warnings first in catalogue order, then
errors. ``format_finding`` gives exactly ``<level> <code> <tool>: <message>``.
Any error makes ``verify`` exit 1; warnings alone exit 0.

``tool_kind_undeclared`` is raised by the TypeScript importer (a ``.d.ts``
function that says neither ``@read`` nor ``@write``), since a catalogue entry
always has a kind once written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from catalogue.selector.info import unclear_identifiers
from catalogue.tools import Tool
from catalogue.wording import gettext_noop
from catalogue.words import name_words

Level = Literal["warning", "error"]

# Words the selector reads as grammar: joiners, pronouns, articles and
# prepositions, English and pt-BR. A tool named only of these could never be
# told apart from the sentence around it ("and", "then", "it", "do", "no").
GRAMMAR_WORDS: frozenset[str] = frozenset({
    # English
    "a", "an", "the", "and", "or", "then", "after", "before", "also", "it", "its", "it's",
    "this", "that", "these", "those", "them", "they", "he", "she", "him", "her", "me", "my",
    "you", "your", "we", "us", "our", "to", "of", "in", "on", "at", "for", "from", "by",
    "with", "into", "as", "is", "be", "please", "too", "again", "same", "one",
    # pt-BR
    "e", "ou", "depois", "então", "entao", "também", "tambem", "o", "os", "um", "uma",
    "uns", "umas", "ele", "ela", "eles", "elas", "isso", "isto", "esse", "essa", "este",
    "esta", "aquele", "aquela", "lhe", "meu", "minha", "seu", "sua", "de", "do", "da",
    "dos", "das", "no", "na", "nos", "nas", "em", "ao", "aos", "à", "às", "para", "pra",
    "por", "pelo", "pela", "com", "por favor", "mesmo", "mesma",
})

WRITE_WITHOUT_COMPENSATION = gettext_noop("a write neither compensated nor marked irreversible")
WRITE_NOT_RETRY_SAFE = gettext_noop("a write with no idempotency, so an ambiguous failure goes to a person")
WRITE_WITHOUT_RESULT_SCHEMA = gettext_noop("a write with no result schema, so its outcome could not be reported")
COMPENSATION_NOT_RETRY_SAFE = gettext_noop("'{undo}' undoes it and is not retry-safe")
TOOLS_INDISTINGUISHABLE = gettext_noop("reads as '{words}', the same as '{other}'")
NAME_IS_GRAMMAR = gettext_noop("its name '{words}' is made only of words the selector reads as grammar")
COMPENSATION_UNKNOWN = gettext_noop("its undo '{undo}' names no tool")
IDENTIFIER_UNCLEAR = gettext_noop(
    "which argument identifies its {thing} cannot be told ({why}), so a turn naming one "
    "by its identifier is unread; describe the argument as the {thing}'s identifier, or "
    "name it after the {thing}"
)
TOOL_WITHOUT_PT_BR = gettext_noop(
    "the agent speaks pt-BR and the tool has no pt-BR description, so a Portuguese chat shows it in English"
)
TOOL_KIND_UNDECLARED = gettext_noop("says neither @read nor @write in its doc comment, so it cannot be imported")


# Each message by its code: the console shows it translated (gettext) and filled with the finding's params.
MESSAGES = {
    "write_without_compensation": WRITE_WITHOUT_COMPENSATION,
    "write_not_retry_safe": WRITE_NOT_RETRY_SAFE,
    "write_without_result_schema": WRITE_WITHOUT_RESULT_SCHEMA,
    "compensation_not_retry_safe": COMPENSATION_NOT_RETRY_SAFE,
    "tools_indistinguishable": TOOLS_INDISTINGUISHABLE,
    "name_is_grammar": NAME_IS_GRAMMAR,
    "compensation_unknown": COMPENSATION_UNKNOWN,
    "identifier_unclear": IDENTIFIER_UNCLEAR,
    "tool_without_pt_br": TOOL_WITHOUT_PT_BR,
    "tool_kind_undeclared": TOOL_KIND_UNDECLARED,
}


@dataclass(frozen=True)
class Finding:
    level: Level
    code: str
    tool: str
    message: str  # English, filled: what ``stalwart verify`` prints
    params: Mapping[str, str] = field(default_factory=dict)  # MESSAGES[code]'s values


def finding(level: Level, code: str, tool: str, **params: str) -> Finding:
    return Finding(level, code, tool, MESSAGES[code].format(**params), params)


def format_finding(finding: Finding) -> str:
    return f"{finding.level} {finding.code} {finding.tool}: {finding.message}"


def has_errors(findings: Sequence[Finding]) -> bool:
    return any(f.level == "error" for f in findings)


def _words(tool: Tool) -> str:
    return tool.words or " ".join(name_words(tool.name))


def lint(tools: Sequence[Tool], language: str = "en") -> list[Finding]:
    """``language``: the agent's own (its ``default_language``); a pt-BR agent's tools need pt-BR words."""
    by_name = {t.name: t for t in tools}
    warnings: list[Finding] = []
    errors: list[Finding] = []
    first_reading: dict[str, str] = {}
    for tool in tools:
        words = _words(tool)
        if words in first_reading:
            errors.append(finding("error", "tools_indistinguishable", tool.name, words=words,
                                  other=first_reading[words]))
        else:
            first_reading[words] = tool.name
        if not words.split() or all(w in GRAMMAR_WORDS for w in words.split()):
            errors.append(finding("error", "name_is_grammar", tool.name, words=words))
        undo_name = str((tool.compensation or {}).get("tool") or "")
        undo = by_name.get(undo_name)
        if tool.compensation is not None and undo is None:
            errors.append(finding("error", "compensation_unknown", tool.name, undo=undo_name))
        if language == "pt-BR" and not (tool.descriptions or {}).get("pt-BR"):
            warnings.append(finding("warning", "tool_without_pt_br", tool.name))
        if not tool.is_write:
            continue
        if tool.compensation is None and not tool.irreversible:
            warnings.append(finding("warning", "write_without_compensation", tool.name))
        if not tool.retry_safe:
            warnings.append(finding("warning", "write_not_retry_safe", tool.name))
        if tool.result_schema is None:
            warnings.append(finding("warning", "write_without_result_schema", tool.name))
        if undo is not None and not undo.retry_safe:
            warnings.append(finding("warning", "compensation_not_retry_safe", tool.name, undo=undo.name))
    for name, thing, why in unclear_identifiers(tools):
        warnings.append(finding("warning", "identifier_unclear", name, thing=thing, why=why))
    return warnings + errors


def kind_undeclared(tool_name: str) -> Finding:
    return finding("error", "tool_kind_undeclared", tool_name)
