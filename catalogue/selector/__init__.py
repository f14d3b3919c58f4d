"""The selector (SPEC §5): a turn in, a plan of tool calls out. Pure.

The model: a ``Selector`` reads its catalogue once into a word index
(``index.Index``). ``plan`` then tokenises the turn (``text``), reads it into
clauses, one per call (``grammar``), and for each clause looks up only the
tools whose action is one the verb reads as and whose words the clause names
(``Index.by_key``), so the cost follows the turn, not the catalogue. Each of
those tools is fitted (``fit``): a tool that leaves any noun or value of the
clause without a place is out. The best fit is the call; equal best fits are
a choice the person makes (an ``Ask`` with ``tools``); none makes the whole
turn unread, because a wrong call is worse than no call. Required arguments
still open become ``Ask`` questions (``asks``).

The language is the caller's choice ("en" or "pt-BR"), never guessed; a
turn in another language finds no verb and is unread. Same turn, same
catalogue, same plan: nothing depends on ordering other than the turn's and
the catalogue's own, and ties are broken by name.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from catalogue.plan import Ask, Call, Plan, Vocabulary
from catalogue.selector.asks import MAX_CHOICES, portuguese_words, question, tool_question
from catalogue.selector.fit import Fit, Previous, fit, prev_fields
from catalogue.selector.grammar import Clause, read_clauses
from catalogue.selector.index import LANGUAGES, Index, term_of
from catalogue.selector.numbers import parse_number, typed_value
from catalogue.selector.text import tokenize
from catalogue.tools import Tool

__all__ = ["Selector"]

# A clause that names no thing reaches tools by its verb alone; past this many
# it is too vague to read in a large catalogue.
MAX_VERB_ONLY = 64
# More calls than this in one turn is not a turn a person types.
MAX_CALLS = 8


def _words(name: str) -> set[str]:
    return set(term_of(name).split()) - {"id"}


_CURRENCY = re.compile(r"^(?:r\$|us\$|\$|€|£)\s*|\s*(?:reais|real|dollars?|d[oó]lares)$", re.IGNORECASE)


class Selector:
    """Plans turns against one catalogue; build once, call ``plan`` often."""

    def __init__(self, tools: Sequence[Tool], vocabulary: Vocabulary | None = None) -> None:
        self.index = Index(tools, vocabulary)
        self._words_pt = portuguese_words(vocabulary.for_language("pt-BR") if vocabulary else {})

    def plan(self, text: str, *, language: str = "en", context: Mapping[str, Any] | None = None,
             exclude: Collection[str] = frozenset()) -> Plan:
        try:
            return self._plan(text, language, dict(context or {}), frozenset(exclude))
        except RecursionError:  # pragma: no cover - nothing here recurses; a last guard
            return Plan.unread(language)

    def _plan(self, text: str, language: str, context: Mapping[str, Any],
              exclude: frozenset[str]) -> Plan:
        if language not in LANGUAGES or not isinstance(text, str) or not text.strip():
            return Plan.unread(language)
        lex = self.index.lexicons[language]
        clauses = read_clauses(tokenize(text, language), lex, self.index.field_terms)
        if not clauses or len(clauses) > MAX_CALLS or any(c.unknown or not c.verb for c in clauses):
            return Plan.unread(language)
        if any(c.reads_only and not c.nouns for c in clauses):
            return Plan.unread(language)  # "what can you do?", "show all": no thing named
        calls: list[Call] = []
        asks: list[Ask] = []
        prev: Previous | None = None
        for step, clause in enumerate(clauses, start=1):
            fits = self._fits(clause, prev, context, exclude)
            if not fits:
                return Plan.unread(language)
            best = fits[0].score
            top = [f for f in fits if f.score == best]
            if len(top) > 1:
                if len(top) > MAX_CHOICES:
                    return Plan.unread(language)
                names = [f.info.name for f in top]
                calls.append(Call(step, "", ()))
                asks.append(Ask(step, None, tool_question(names, language), tools=tuple(names)))
                prev = None
                continue
            chosen = top[0]
            call = Call(step, chosen.info.name, chosen.arguments)
            calls.append(call)
            for arg in chosen.missing:
                asks.append(Ask(step, arg.name, question(arg, language, self._words_pt)))
            prev = Previous(step, chosen.info, call)
        return Plan(language=language, read=True, calls=tuple(calls), asks=tuple(asks))

    def questions_for(self, tool: str, have: Collection[str], *, language: str = "en") -> list[tuple[str, dict[str, Any]]]:
        """Questions for the required arguments of ``tool`` not in ``have``, in
        schema order: what a plan asks once a person picked the tool."""
        info = next((i for i in self.index.infos if i.name == tool), None)
        if info is None:
            return []
        return [(a.name, question(a, language, self._words_pt)) for a in info.args
                if a.required and a.name not in have]

    def typed_answer(self, tool: str, argument: str, text: str, *, language: str = "en") -> Any:
        """A person's typed answer for ``argument`` in the schema's type, read as
        the turn's numbers are ("R$ 15,50" is 15.5 in pt-BR); as typed when it
        does not fit, so the check refuses it with its reason."""
        info = next((i for i in self.index.infos if i.name == tool), None)
        arg = next((a for a in info.args if a.name == argument), None) if info else None
        if arg is None:
            return text
        raw = text.strip()
        number = _CURRENCY.sub("", raw).strip()  # "R$ 15,50", "$15.50", "15,50 reais"
        fits, value = typed_value(raw, parse_number(number, language), arg.type)
        return value if fits else text

    def _fits(self, clause: Clause, prev: Previous | None, context: Mapping[str, Any],
              exclude: frozenset[str]) -> list[Fit]:
        index = self.index
        actions = index.actions_for(clause.verb)
        known = prev_fields(prev)
        terms = sorted({n.term for n in clause.nouns if not (n.used_as_field and n.term in known)})
        if not terms and prev is not None and (clause.pronoun or known):
            # "... and archive it": the thing is the previous call's; look tools up by it.
            terms = sorted(set(prev.info.thing if prev.info else ())
                           | {w for a in prev.call.arguments for w in _words(a.name)})
        found: set[int] = set()
        if terms:
            for action in sorted(actions):
                for term in terms:
                    found.update(index.by_key.get((action, term), ()))
        else:
            for action in sorted(actions):
                found.update(index.by_action.get(action, ()))
                if len(found) > MAX_VERB_ONLY:
                    return []
        fits: list[Fit] = []
        for i in sorted(found):
            info = index.infos[i]
            if info.name in exclude or (clause.reads_only and info.tool.kind != "read"):
                continue
            if clause.question and not (info.thing and len(info.thing_words_in(
                    {n.term for n in clause.nouns})) == len(info.thing)):
                continue  # a question names what it asks about: "who is member m-5"
            got = fit(info, clause, actions, clause.verb, prev, context)
            if got is not None:
                fits.append(got)
        fits.sort(key=lambda f: (tuple(-s for s in f.score), f.info.name))
        return fits
