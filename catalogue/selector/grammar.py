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

Issue 13 adds, each read here and placed by ``placing``:

- a noun remembers the direction of the preposition before it ("from store
  S-2", "para a filial S-9"), to tell ``from_*`` and ``to_*`` apart;
- a naming word ("called", "named", "chamado", "com o nome") marks the value
  right after it; with none right after it, the clause is unknown;
- a capitalised word the lexicon cannot place, right after a noun or a naming
  word, is a bare value ("model Corolla", "called Press");
- a number right before a count word ("forty packs", "três caixas") is a count;
- "my"/"meu" marks the clause as the person's own (context), for explanations.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from catalogue.selector import lexicon_pt as pt
from catalogue.selector.index import QUESTION_VERB, Lexicon
from catalogue.selector.text import Token, tokenize

VALUE_KINDS = ("quote", "email", "money", "id", "num", "text")
# A value token longer than this is not an identifier or an amount anyone types.
MAX_VALUE = 200
DATE = re.compile(r"\d{4}-\d{1,2}-\d{1,2}\Z|\d{1,2}/\d{1,2}/\d{2,4}\Z")


@dataclass
class Noun:
    term: str
    plural: bool
    used_as_field: bool = False
    direction: str | None = None  # "from store S-2": the preposition's direction
    word: str = ""  # as typed, for explanations


@dataclass
class Value:
    token: Token
    after: int | None = None  # index of the noun it follows
    before: int | None = None  # index of the noun it precedes
    seen: int = 0  # how many of the clause's nouns came before it
    naming: str | None = None  # after "called"/"named": the argument word preferred ("" any)
    naming_word: str = ""  # the naming word as typed
    count: str = ""  # "forty packs": the count word after the number


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
    mine: bool = False  # "my work orders": the person's own
    unknown_word: str = ""  # the first word that could not be placed
    pronoun_word: str = ""  # the pronoun or possessive that points back, as typed
    text: list[str] = field(default_factory=list)  # the clause's words, for explanations

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
    longest = min(lex.longest, len(words))
    singular = [lex.singular(w) for w in words[:longest]]
    for n in range(longest, 0, -1):
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
        if singular[n - 1] != words[n - 1]:
            single = " ".join([*words[: n - 1], singular[n - 1]])
            if single in lex.nouns:
                return n, "noun", lex.nouns[single], True
        if n > 1 and singular[:n] != words[:n]:
            # "ordens de serviço": a Portuguese phrase makes its plural on its head word.
            each = " ".join(singular[:n])
            if each in lex.nouns:
                return n, "noun", lex.nouns[each], True
        if phrase in lex.naming:  # after the nouns: a vocabulary's "chamado" (a ticket) wins
            return n, "naming", lex.naming[phrase], False
        if n == 1 and phrase in lex.counts:
            return n, "count", phrase, False
    return 1, "unknown", words[0], False


def _bare_run(tokens: list[Token], i: int, lex: Lexicon, named: bool) -> int:
    """How many tokens from ``i`` make a bare value: capitalised words the lexicon
    cannot place ("Corolla", "Porto Alegre"), and numbers after them ("Lathe 3").
    After a naming word ("called"), any capitalised word, or one unknown word."""
    n = 0
    while i + n < len(tokens):
        tok = tokens[i + n]
        if tok.kind in ("num", "id") and n and not tok.spelled:
            n += 1
            continue
        if tok.kind != "word":
            break
        unknown = _match([tok.norm], lex)[1] == "unknown"
        capital = tok.text[:1].isupper()
        if not ((capital and (named or unknown)) or (named and unknown and n == 0)):
            break
        n += 1
    return n


def _no_value(cur: Clause, naming: tuple[str, str]) -> None:
    """A naming word ("called") with no value right after it cannot be placed."""
    cur.unknown = True
    cur.unknown_word = cur.unknown_word or naming[0]


def _holds_a_call(text: str, lex: Lexicon) -> bool:
    """Whether free text after a colon goes on to another call ("...: belt
    slipping and then close work order WO-1"): then it is not one note."""
    words = [t.norm for t in tokenize(text, lex.language) if t.kind == "word"]
    j = 0
    while j < len(words):
        n, role, _, _ = _match(words[j : j + lex.longest], lex)
        if role == "conj" and j + n < len(words) and \
                _match(words[j + n : j + n + lex.longest], lex)[1] == "verb":
            return True
        j += n
    return False


def read_clauses(tokens: list[Token], lex: Lexicon, field_terms: set[str]) -> list[Clause]:
    tokens = _split_clitics(tokens, lex)
    clauses = [Clause()]
    pending_break = False
    attach_to: int | None = None  # noun a following value would belong to
    last_value: Value | None = None  # a value a following noun could take
    field_next = False  # the next noun is a field of the previous result ("its total")
    last_word = previous_word = ""  # the word run read before this one, if words
    direction: str | None = None  # "from"/"to" said since the last noun or value
    naming: tuple[str, str] | None = None  # ("called", preferred word) before a value
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        cur = clauses[-1]
        if naming is not None and tok.kind not in VALUE_KINDS and tok.kind != "word":
            _no_value(cur, naming)
            naming = None
        if tok.kind == "sep":
            previous_word = ""
            pending_break, attach_to, last_value, direction, naming = True, None, None, None, None
            i += 1
            continue
        if tok.kind in VALUE_KINDS:
            previous_word = ""
            if len(tok.text) > MAX_VALUE or (tok.kind == "text" and _holds_a_call(tok.text, lex)):
                cur.unknown = True
                cur.unknown_word = cur.unknown_word or tok.text
            if tok.kind == "num" and i + 1 < len(tokens) and tokens[i + 1].norm in lex.money_words:
                tok = Token("money", tok.text, number=tok.number, spelled=tok.spelled)
                i += 1
            # Quoted text is free text ("the book "Dune"" is a title, not a book id).
            free = tok.kind in ("quote", "text") or naming is not None
            value = Value(tok, after=None if free else attach_to, seen=len(cur.nouns))
            if naming is not None:
                value.naming_word, value.naming = naming
            cur.text.append(tok.text)
            i += 1
            if tok.kind == "num" and i < len(tokens) and tokens[i].kind == "word" \
                    and _match([tokens[i].norm], lex)[1] == "count":
                value.count = tokens[i].text  # "forty packs": a count, not a noun's value
                cur.text.append(tokens[i].text)
                i += 1
            cur.values.append(value)
            pending_break, attach_to, direction, naming = False, None, None, None
            last_value = value if tok.kind in ("num", "money") and value.after is None \
                and not value.count else None
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
        typed = " ".join(t.text for t in tokens[i : i + n])
        if naming is not None or (role == "unknown" and attach_to is not None):
            bare = _bare_run(tokens, i, lex, naming is not None)
            if bare:
                # "vehicles of model Corolla", "machines called Press": a bare value.
                text = " ".join(t.text for t in tokens[i : i + bare])
                value = Value(Token("bare", text), after=None if naming else attach_to,
                              seen=len(cur.nouns))
                if naming is not None:
                    value.naming_word, value.naming = naming
                cur.values.append(value)
                cur.text.append(text)
                i += bare
                pending_break, attach_to, last_value, direction, naming = False, None, None, None, None
                continue
            if naming is not None:
                _no_value(cur, naming)  # "abra um chamado para ...": no name follows
                naming = None
        i += n
        cur.text.append(typed)
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
                cur.text.pop()
                clauses.append(Clause())
                cur = clauses[-1]
                cur.text.append(typed)
                cur.unknown = purpose  # "remind member m-77 to return book b-12"
                if purpose:
                    cur.unknown_word = f"{last_word} {typed}"
        if role == "poss_before":
            nxt = tokens[i].norm if i < len(tokens) and tokens[i].kind == "word" else ""
            if (lex.nouns.get(nxt) or lex.nouns.get(lex.singular(nxt))) in field_terms:
                cur.pronoun, field_next = True, True
                cur.pronoun_word = typed
            elif what in lex.grammar:
                role = "grammar"
            else:
                role = "pronoun"  # "charge 40 to its card": "its" points back
        if role == "grammar":
            if what in lex.mine:
                cur.mine = True
            if direction is None:
                direction = lex.directions.get(what)
            if what not in lex.id_markers:
                attach_to = None
            last_value = None
            continue
        if role == "naming":
            naming = (typed, what)
            attach_to, last_value = None, None
            continue
        noun_direction, direction = direction, None
        if role == "conj":
            pending_break, attach_to, last_value, naming = True, None, None, None
            continue
        if role == "verb":
            cur.verb = what
            implied = lex.verb_nouns.get(" ".join(words[:n]))
            if implied:
                cur.nouns.append(Noun(implied, False, word=typed))
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
                cur.unknown_word = cur.unknown_word or typed
            attach_to, last_value = None, None
            continue
        if role == "poss_before":
            attach_to, last_value = None, None
            continue
        if role == "pronoun":
            cur.pronoun = True
            cur.pronoun_word = cur.pronoun_word or typed
            attach_to, last_value = None, None
            continue
        if role == "poss_after":
            if cur.nouns and cur.nouns[-1].term in field_terms and not cur.nouns[-1].used_as_field:
                cur.nouns[-1].used_as_field = True
                cur.fields.append(cur.nouns[-1].term)
            cur.pronoun = True
            cur.pronoun_word = cur.pronoun_word or typed
            attach_to, last_value = None, None
            continue
        if role == "noun" and what == "day" and i < len(tokens) and tokens[i].kind == "id" \
                and DATE.match(tokens[i].text):
            attach_to, last_value = None, None  # "no dia 2024-07-15": the day is the date
            continue
        if role == "noun":
            cur.nouns.append(Noun(what, plural, direction=noun_direction, word=typed))
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
        cur.unknown_word = cur.unknown_word or typed
        attach_to, last_value = None, None
    if naming is not None:
        _no_value(clauses[-1], naming)
    return [c for c in clauses if not c.empty or c.unknown]
