"""Reading a turn's tokens into clauses, one per call.

A clause is a verb, the nouns and values around it, and whether it points
back at the previous call (a pronoun, or a possessive naming a field of the
previous call's result: "its total", "o total dele").

Phrases are matched longest first against the language's lexicon. A word's
role, in order: conjunction, pronoun, possessive, verb (the clause's first),
grammar, noun. A second verb in a clause is read as a noun when it can be one
("lend *book* b-12"), else it starts the next clause. A conjunction or a
separator starts a new clause only when a verb follows it; otherwise it is
dropped ("order 4411 and 4412" stays one clause, and its extra value then
fits no tool).

A value right after a noun belongs to it ("order 4411", "pedido nº 4411");
a number right before a noun belongs to it ("14 days"). Any word the lexicon
cannot place marks the clause unknown, and the turn is unread.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from catalogue.selector import lexicon_pt as pt
from catalogue.selector.index import QUESTION_VERB, Lexicon
from catalogue.selector.text import Token

VALUE_KINDS = ("quote", "email", "money", "id", "num")
# A value token longer than this is not an identifier or an amount anyone types.
MAX_VALUE = 200
DATE = re.compile(r"\d{4}-\d{1,2}-\d{1,2}\Z|\d{1,2}/\d{1,2}/\d{2,4}\Z")


@dataclass
class Noun:
    term: str
    plural: bool
    used_as_field: bool = False


@dataclass
class Value:
    token: Token
    after: int | None = None  # index of the noun it follows
    before: int | None = None  # index of the noun it precedes
    seen: int = 0  # how many of the clause's nouns came before it


@dataclass
class Clause:
    verb: str = ""
    nouns: list[Noun] = field(default_factory=list)
    values: list[Value] = field(default_factory=list)
    pronoun: bool = False
    fields: list[str] = field(default_factory=list)
    unknown: bool = False
    question: bool = False  # asked with a question word: reads only, and needs a thing
    reads_only: bool = False  # a quantifier or a question: only a read tool may take it
    asked_verb: bool = False  # the verb is the question word's, not yet a typed verb

    @property
    def empty(self) -> bool:
        return not (self.verb or self.nouns or self.values or self.pronoun or self.fields)


def _split_clitics(tokens: list[Token], lex: Lexicon) -> list[Token]:
    """``mostre-me`` -> ``mostre me``; ``cobre-o`` -> ``cobre`` + a pronoun."""
    if lex.language != "pt-BR":
        return tokens
    out: list[Token] = []
    for tok in tokens:
        head, sep, tail = tok.norm.rpartition("-")
        if tok.kind == "word" and sep and tail in pt.CLITICS and head in lex.verbs:
            out.append(Token("word", head, norm=head))
            if tail in pt.OBJECT_CLITICS:
                out.append(Token("word", "ele", norm="ele"))
            else:
                out.append(Token("word", tail, norm=tail))
        else:
            out.append(tok)
    return out


def _match(words: list[str], lex: Lexicon) -> tuple[int, str, str, bool]:
    """Longest phrase at the start of ``words``: (length, role, value, plural)."""
    for n in range(min(lex.longest, len(words)), 0, -1):
        phrase = " ".join(words[:n])
        for role, table in (("conj", lex.conjunctions), ("pronoun", lex.pronouns),
                            ("poss_after", lex.poss_after), ("poss_before", lex.poss_before)):
            if phrase in table:
                return n, role, phrase, False
        if phrase in lex.verbs:
            return n, "verb", lex.verbs[phrase], False
        if phrase in lex.questions:
            return n, "question", phrase, False
        if phrase in lex.grammar:
            return n, "grammar", phrase, False
        if phrase in lex.quantifiers:
            return n, "quantifier", phrase, False
        if phrase in lex.question_grammar:
            return n, "question_grammar", phrase, False
        if phrase in lex.nouns:
            last = words[n - 1]
            return n, "noun", lex.nouns[phrase], lex.singular(last) != last
        single = " ".join([*words[: n - 1], lex.singular(words[n - 1])])
        if single != phrase and single in lex.nouns:
            return n, "noun", lex.nouns[single], True
    return 1, "unknown", words[0], False


def read_clauses(tokens: list[Token], lex: Lexicon, field_terms: set[str]) -> list[Clause]:
    tokens = _split_clitics(tokens, lex)
    clauses = [Clause()]
    pending_break = False
    attach_to: int | None = None  # noun a following value would belong to
    last_value: Value | None = None  # a value a following noun could take
    field_next = False  # the next noun is a field of the previous result ("its total")
    last_word = previous_word = ""  # the word run read before this one, if words
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        cur = clauses[-1]
        if tok.kind == "sep":
            previous_word = ""
            pending_break, attach_to, last_value = True, None, None
            i += 1
            continue
        if tok.kind in VALUE_KINDS:
            previous_word = ""
            if len(tok.text) > MAX_VALUE:
                cur.unknown = True
            if tok.kind == "num" and i + 1 < len(tokens) and tokens[i + 1].norm in lex.money_words:
                tok = Token("money", tok.text, number=tok.number)
                i += 1
            # Quoted text is free text ("the book "Dune"" is a title, not a book id).
            value = Value(tok, after=None if tok.kind == "quote" else attach_to,
                          seen=len(cur.nouns))
            cur.values.append(value)
            pending_break, attach_to = False, None
            last_value = value if tok.kind in ("num", "money") and value.after is None else None
            i += 1
            continue
        # A run of words: match the longest phrase here.
        if tok.kind != "word":
            field_next = False
        words: list[str] = []
        for t in tokens[i : i + lex.longest]:
            if t.kind != "word":
                break
            words.append(t.norm)
        n, role, what, plural = _match(words, lex)
        i += n
        last_word, previous_word = previous_word, words[n - 1] if words else ""
        if role == "verb" and cur.asked_verb:
            # "which orders can you show": the typed verb takes over the question's.
            cur.verb, cur.asked_verb = "", False
        if role == "verb" and cur.verb:
            phrase = " ".join(words[:n])
            noun = lex.nouns.get(phrase) or lex.nouns.get(lex.singular(phrase))
            if noun and not pending_break:
                role, what = "noun", noun  # "lend book b-12": the second verb is a thing
            else:
                purpose = not pending_break and last_word in lex.infinitive_markers
                clauses.append(Clause())
                cur = clauses[-1]
                cur.unknown = purpose  # "remind member m-77 to return book b-12"
        if role == "poss_before":
            nxt = tokens[i].norm if i < len(tokens) and tokens[i].kind == "word" else ""
            if (lex.nouns.get(nxt) or lex.nouns.get(lex.singular(nxt))) in field_terms:
                cur.pronoun, field_next = True, True
            elif what in lex.grammar:
                role = "grammar"
            else:
                role = "pronoun"  # "charge 40 to its card": "its" points back
        if role == "conj":
            pending_break, attach_to, last_value = True, None, None
            continue
        if role == "verb":
            cur.verb = what
            implied = lex.verb_nouns.get(" ".join(words[:n]))
            if implied:
                cur.nouns.append(Noun(implied, False))
            pending_break, attach_to, last_value = False, None, None
            continue
        if role == "question":
            if not cur.verb:
                cur.verb, cur.asked_verb = QUESTION_VERB, True
            cur.question = cur.reads_only = True
            pending_break, attach_to, last_value = False, None, None
            continue
        if role == "quantifier":
            cur.reads_only = True
            attach_to, last_value = None, None
            continue
        if role == "question_grammar":
            if not cur.question:
                cur.unknown = True
            attach_to, last_value = None, None
            continue
        if role == "poss_before":
            attach_to, last_value = None, None
            continue
        if role == "grammar":
            if what not in lex.id_markers:
                attach_to = None
            last_value = None
            continue
        if role == "pronoun":
            cur.pronoun = True
            attach_to, last_value = None, None
            continue
        if role == "poss_after":
            if cur.nouns and cur.nouns[-1].term in field_terms and not cur.nouns[-1].used_as_field:
                cur.nouns[-1].used_as_field = True
                cur.fields.append(cur.nouns[-1].term)
            cur.pronoun = True
            attach_to, last_value = None, None
            continue
        if role == "noun" and what == "day" and i < len(tokens) and tokens[i].kind == "id" \
                and DATE.match(tokens[i].text):
            attach_to, last_value = None, None  # "no dia 2024-07-15": the day is the date
            continue
        if role == "noun":
            cur.nouns.append(Noun(what, plural))
            index = len(cur.nouns) - 1
            if last_value is not None and last_value.before is None:
                last_value.before = index
            attach_to, last_value = index, None
            if field_next and what in field_terms:
                cur.nouns[-1].used_as_field = True
                cur.fields.append(what)
            field_next = False
            pending_break = False
            continue
        cur.unknown = True
        attach_to, last_value = None, None
    return [c for c in clauses if not c.empty or c.unknown]

