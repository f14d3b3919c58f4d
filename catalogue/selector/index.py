"""The word index a ``Selector`` builds once per catalogue.

Each tool is read into a ``ToolInfo``: its action, the words of its thing
(singular), its arguments (their words, types, enums; the idempotency argument
left out, since the engine fills it) and its result's fields. Two dicts make
planning cost grow with the turn rather than the catalogue:

- ``by_key[(action, term)]``: the tools with that action whose thing, an
  argument or an enum value is read as ``term``;
- ``by_action[action]``: every tool with that action, used only for a turn
  that names no thing (and refused when it would be a long list).

A per-language ``Lexicon`` maps phrases (accents folded) to their roles:
verbs to English verb words, nouns to the English terms tool names use.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from catalogue.plan import Vocabulary
from catalogue.selector import lexicon_en as en
from catalogue.selector import lexicon_pt as pt
from catalogue.selector.info import ArgInfo, ToolInfo, identify, term_of, tool_info
from catalogue.tools import Tool

__all__ = ["DETAILS", "LANGUAGES", "QUESTION_VERB", "ArgInfo", "Index", "Lexicon", "ToolInfo",
           "term_of"]

LANGUAGES = ("en", "pt-BR")
# The term words such as "details" read as: a place in any read tool, no write.
DETAILS = "details"
# The verb a question word reads as: a look-up.
QUESTION_VERB = "show"


@dataclass
class Lexicon:
    """Phrase -> roles, for one language."""

    language: str
    verbs: dict[str, str] = field(default_factory=dict)  # phrase -> English verb
    nouns: dict[str, str] = field(default_factory=dict)  # phrase -> English term
    grammar: frozenset[str] = frozenset()
    conjunctions: frozenset[str] = frozenset()
    pronouns: frozenset[str] = frozenset()
    poss_before: frozenset[str] = frozenset()
    poss_after: frozenset[str] = frozenset()
    id_markers: frozenset[str] = frozenset()
    money_words: frozenset[str] = frozenset()
    questions: frozenset[str] = frozenset()
    question_grammar: frozenset[str] = frozenset()
    quantifiers: frozenset[str] = frozenset()
    infinitive_markers: frozenset[str] = frozenset()
    verb_nouns: dict[str, str] = field(default_factory=dict)  # phrase -> implied noun term
    naming: dict[str, str] = field(default_factory=dict)  # "called" -> preferred argument word
    counts: frozenset[str] = frozenset()
    directions: dict[str, str] = field(default_factory=dict)  # "from" -> "from"
    mine: frozenset[str] = frozenset()
    longest: int = 1

    def singular(self, word: str) -> str:
        return en.singular(word) if self.language == "en" else pt.singular(word)


class Index:
    """The catalogue read once: tool infos, word index, lexicons."""

    def __init__(self, tools: Sequence[Tool], vocabulary: Vocabulary | None) -> None:
        self.infos: list[ToolInfo] = identify([tool_info(t) for t in tools])
        self.by_key: dict[tuple[str, str], list[int]] = {}
        self.by_action: dict[str, list[int]] = {}
        self.actions: set[str] = set()
        self.terms: set[str] = set()
        self.field_terms: set[str] = set()
        for i, info in enumerate(self.infos):
            self.by_action.setdefault(info.action, []).append(i)
            self.actions.add(info.action)
            for term in sorted(info.terms()):
                self.by_key.setdefault((info.action, term), []).append(i)
                self.terms.add(term)
            self.field_terms.update(term_of(f) for f in info.fields)
        self.groups = self._groups(vocabulary)
        self.lexicons = {lang: self._lexicon(lang, vocabulary) for lang in LANGUAGES}

    def _groups(self, vocabulary: Vocabulary | None) -> dict[str, frozenset[str]]:
        """English verb -> the set of actions it reads as."""
        out: dict[str, set[str]] = {}
        for members in en.GROUPS.values():
            for verb in members:
                out.setdefault(verb, {verb}).update(members)
        for action in self.actions:
            out.setdefault(action, {action})
        for lang in LANGUAGES:
            for phrase, target in (vocabulary.for_language(lang) if vocabulary else {}).items():
                target = pt.fold(target)
                if lang == "en" and self._is_verb_target(target):
                    out.setdefault(pt.fold(phrase), {pt.fold(phrase)}).update(out.get(target, {target}))
        return {k: frozenset(v) for k, v in out.items()}

    def _is_verb_target(self, target: str) -> bool:
        if target in self.terms or target in self.field_terms:
            return False
        return target in self.actions or any(target in g for g in en.GROUPS.values())

    def _lexicon(self, lang: str, vocabulary: Vocabulary | None) -> Lexicon:
        lex = Lexicon(lang)
        words = {pt.fold(k): pt.fold(v) for k, v in
                 (vocabulary.for_language(lang) if vocabulary else {}).items()}
        if lang == "en":
            for verb in set(self.groups):
                for form in en.verb_forms(verb):
                    lex.verbs.setdefault(form, verb)
            lex.nouns.update(en.NOUNS)
            for phrase, target in words.items():
                if self._is_verb_target(target):
                    for form in en.verb_forms(phrase):
                        lex.verbs[form] = phrase
                else:
                    lex.nouns[phrase] = term_of(target)
            lex.grammar, lex.conjunctions = en.GRAMMAR, en.CONJUNCTIONS
            lex.pronouns, lex.id_markers = en.PRONOUNS, en.ID_MARKERS
            lex.poss_before, lex.poss_after = en.POSSESSIVES_BEFORE, en.POSSESSIVES_AFTER
            lex.money_words = en.MONEY_WORDS
            lex.naming, lex.counts, lex.directions = dict(en.NAMING), en.COUNTS, en.DIRECTIONS
            lex.mine, vague = en.MINE, en.VAGUE_NOUNS
            for phrase, (verb, noun) in en.VERB_NOUNS.items():
                for form in en.verb_forms(phrase):
                    lex.verbs.setdefault(form, verb)
                    lex.verb_nouns.setdefault(form, noun)
            lex.questions, lex.question_grammar = en.QUESTIONS, en.QUESTION_GRAMMAR
            lex.quantifiers, lex.infinitive_markers = en.QUANTIFIERS, en.INFINITIVE_MARKERS
            for word in en.DETAIL_WORDS:
                lex.nouns.setdefault(word, DETAILS)
        else:
            verbs = dict(pt.VERBS)
            for phrase, target in words.items():
                infinitive = " " not in phrase and pt.is_infinitive(phrase)
                if (infinitive and (self._is_verb_target(target) or target in self.groups)) or (
                        not infinitive and self._is_verb_target(target)):
                    # "reponha: restock": a form given as it is typed reads as it is.
                    verbs[phrase] = target
                else:
                    lex.nouns[phrase] = term_of(target)
            for inf, target in sorted(verbs.items()):
                for form in sorted(pt.pt_forms(inf)):
                    if form in pt.GRAMMAR and form != inf:
                        continue  # "para" (parar) stays a preposition
                    lex.verbs.setdefault(form, target)
            for head in pt.LIGHT_VERBS:
                for noun, target in pt.ACTION_NOUNS.items():
                    for article in pt.ACTION_ARTICLES:
                        for form in pt.phrase_forms(f"{head} {article}{noun}"):
                            lex.verbs.setdefault(form, target)
            for phrase, (verb, noun) in pt.VERB_NOUNS.items():
                for form in pt.phrase_forms(phrase):
                    if form not in pt.GRAMMAR:
                        lex.verbs.setdefault(form, verb)
                        lex.verb_nouns.setdefault(form, noun)
            for phrase, target in pt.NOUNS.items():
                lex.nouns.setdefault(phrase, target)
            lex.questions, lex.question_grammar = pt.QUESTIONS, pt.QUESTION_GRAMMAR
            lex.quantifiers, lex.infinitive_markers = pt.QUANTIFIERS, pt.INFINITIVE_MARKERS
            for word in pt.DETAIL_WORDS:
                lex.nouns.setdefault(word, DETAILS)
            lex.grammar, lex.conjunctions = pt.GRAMMAR, pt.CONJUNCTIONS
            lex.pronouns, lex.id_markers = pt.PRONOUNS, pt.ID_MARKERS
            lex.poss_before, lex.poss_after = pt.POSSESSIVES_BEFORE, pt.POSSESSIVES_AFTER
            lex.money_words = pt.MONEY_WORDS
            lex.naming, lex.counts, lex.directions = dict(pt.NAMING), pt.COUNTS, pt.DIRECTIONS
            lex.mine, vague = pt.MINE, pt.VAGUE_NOUNS
        # The catalogue's own words are nouns in both languages (loanwords such
        # as "e-mail" or "status"), after the language's own.
        for term in sorted(self.terms | self.field_terms):
            if term not in lex.grammar:
                lex.nouns.setdefault(term, term)
                lex.nouns.setdefault(term.replace(" ", "-"), term)  # "follow-up"
                lex.nouns.setdefault(term.replace(" ", ""), term)  # "followup"
        for term in list(lex.nouns):
            if term in lex.grammar and term not in words:
                del lex.nouns[term]  # "to", "number": grammar wins over an argument's word
        lex.grammar = lex.grammar | {w for w in vague if w not in lex.nouns}
        keys = [*lex.verbs, *lex.nouns, *lex.grammar, *lex.conjunctions, *lex.pronouns,
                *lex.poss_after, *lex.questions, *lex.quantifiers, *lex.naming]
        lex.longest = max((k.count(" ") + 1 for k in keys), default=1)
        return lex

    def actions_for(self, verb: str) -> frozenset[str]:
        return self.groups.get(verb, frozenset({verb}))
