"""The selector: a turn in, a plan of tool calls out (docs/getting-started.md,
"Plan without running anything"). Pure.

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

from catalogue.plan import Ask, Call, Explanation, Plan, Vocabulary
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


def _tool_why(chosen: Fit, clause: Clause) -> str:
    info = chosen.info
    thing = next((n.word for n in clause.nouns if info.names_thing(n.term)), "")
    said = f"'{clause.verb}' and '{thing}'" if thing else f"'{clause.verb}'"
    if clause.pronoun_word and not thing:
        said += f", '{clause.pronoun_word}' pointing back"
    return f"tool {info.name}: {said} (action '{info.action}', thing '{info.thing_term}')"


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
        if language not in LANGUAGES:
            return Plan.unread(language, f"the selector reads en and pt-BR, not {language!r}")
        if not isinstance(text, str) or not text.strip():
            return Plan.unread(language, "the turn is empty")
        lex = self.index.lexicons[language]
        clauses = read_clauses(tokenize(text, language), lex, self.index.field_terms)
        if not clauses or len(clauses) > MAX_CALLS:
            return Plan.unread(language, f"{len(clauses)} calls; at most {MAX_CALLS} are read")
        for number, clause in enumerate(clauses, start=1):
            where = f"clause {number} '{' '.join(clause.text)}'"
            if clause.unknown:
                return Plan.unread(language, f"could not place '{clause.unknown_word}' ({where})")
            if not clause.verb:
                return Plan.unread(language, f"no verb ({where})")
            if clause.reads_only and not clause.nouns:
                # "what can you do?", "show all": no thing named
                return Plan.unread(language, f"a question or 'all' that names no thing ({where})")
        calls: list[Call] = []
        asks: list[Ask] = []
        explain: list[Explanation] = []
        prev: Previous | None = None
        for step, clause in enumerate(clauses, start=1):
            notes: list[str] = []
            fits = self._fits(clause, prev, context, exclude, notes)
            if not fits:
                why = "; ".join(notes[:3]) if notes else (
                    f"no tool reads as '{clause.verb}' with " + (
                        " ".join(f"'{n.word}'" for n in clause.nouns) or "no thing"))
                return Plan.unread(language, f"no tool takes clause {step} "
                                             f"'{' '.join(clause.text)}': {why}")
            best = fits[0].score
            top = [f for f in fits if f.score == best]
            if len(top) > 1:
                names = [f.info.name for f in top]
                if len(top) > MAX_CHOICES:
                    return Plan.unread(language, f"{len(top)} tools fit clause {step} equally; "
                                                 f"at most {MAX_CHOICES} are offered")
                calls.append(Call(step, "", ()))
                asks.append(Ask(step, None, tool_question(names, language), tools=tuple(names)))
                explain.append(Explanation(step, None, "asked: " + ", ".join(names)
                                           + " fit equally well"))
                prev = None
                continue
            chosen = top[0]
            call = Call(step, chosen.info.name, chosen.arguments)
            calls.append(call)
            explain.append(Explanation(step, None, _tool_why(chosen, clause)))
            for argument in chosen.arguments:
                explain.append(Explanation(step, argument.name, chosen.why.get(argument.name, "")))
            for arg in chosen.missing:
                asks.append(Ask(step, arg.name, question(arg, language, self._words_pt)))
                explain.append(Explanation(step, arg.name, "asked: required, and the turn "
                                                           "does not give it"))
            prev = Previous(step, chosen.info, call)
        return Plan(language=language, read=True, calls=tuple(calls), asks=tuple(asks),
                    explain=tuple(explain))

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
              exclude: frozenset[str], notes: list[str] | None = None) -> list[Fit]:
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
                    if notes is not None:
                        notes.append(f"it names no thing and more than {MAX_VERB_ONLY} tools "
                                     f"share the verb '{clause.verb}'")
                    return []
        fits: list[Fit] = []
        for i in sorted(found):
            info = index.infos[i]
            skip = ""
            if info.name in exclude:
                skip = "withdrawn"
            elif clause.reads_only and info.tool.kind != "read":
                skip = "a write, and the turn asks a question or says 'all'"
            elif clause.question and not (info.thing and len(info.thing_words_in(
                    {n.term for n in clause.nouns})) == len(info.thing)):
                skip = "the question does not name its thing"  # "who is member m-5"
            if skip:
                if notes is not None:
                    notes.append(f"{info.name}: {skip}")
                continue
            got = fit(info, clause, actions, clause.verb, prev, context, notes)
            if got is not None:
                fits.append(got)
        fits.sort(key=lambda f: (tuple(-s for s in f.score), f.info.name))
        return fits
