"""How well one clause fits one tool, and the arguments it gives.

A tool fits a clause only when everything the clause holds has a place:
every noun is the tool's thing, one of its arguments, or one of its enum
values; every value lands in exactly one argument of the right type. One
thing left over rejects the tool (``None``): reading "charge 40 to order
4411 for customer c-208" as a charge would drop the customer.

Values are placed in this order: enum words; values after their noun
("order 4411" -> ``order_id``); numbers before their noun ("14 days");
then loose values by kind (money and numbers to the one number argument,
an e-mail to the e-mail argument, quoted text to the one text argument, a
loose identifier to the one required string argument, counted as a guess).

Then what points back: a pronoun or a noun named again without a value
carries the previous call's argument of the same name, with its origin
(the person typed "4411" once in this turn; the later call shows it as
``typed`` too, the value being known, rather than ``result:<step>``); a
result field ("its total") becomes ``result:<step>`` with that ``field``.
Context fills what is still open (origin ``context``).

``Fit.score`` orders tools; equal top scores are a choice for the person.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from catalogue.plan import Argument, Call
from catalogue.selector.grammar import Clause, Value
from catalogue.selector.index import DETAILS, ArgInfo, ToolInfo, term_of
from catalogue.selector.numbers import typed_value

_DATE = re.compile(r"\d{4}-\d{1,2}-\d{1,2}\Z|\d{1,2}/\d{1,2}/\d{2,4}\Z")
_AMOUNT_WORDS = frozenset({"amount", "price", "total", "value", "sum", "fee", "cost"})
_TEXT_WORDS = frozenset({
    "text", "message", "body", "note", "comment", "subject", "title", "description",
    "reason", "query", "content", "name", "summary",
})


@dataclass(frozen=True)
class Previous:
    """The call before this clause's, for pronouns and result fields."""

    step: int
    info: ToolInfo | None
    call: Call


@dataclass(frozen=True)
class Fit:
    info: ToolInfo
    arguments: tuple[Argument, ...]
    missing: tuple[ArgInfo, ...]
    score: tuple[int, ...]


def _numeric(arg: ArgInfo) -> bool:
    kinds = arg.type if isinstance(arg.type, list) else [arg.type]
    return "number" in kinds or "integer" in kinds


def _stringy(arg: ArgInfo) -> bool:
    kinds = arg.type if isinstance(arg.type, list) else [arg.type]
    return "string" in kinds or not kinds or kinds == [None]


def _one(args: list[ArgInfo]) -> ArgInfo | None:
    return args[0] if len(args) == 1 else None


class _Placing:
    def __init__(self, info: ToolInfo) -> None:
        self.info = info
        self.filled: dict[str, Argument] = {}
        self.guesses = 0

    def open(self) -> list[ArgInfo]:
        return [a for a in self.info.args if a.name not in self.filled]

    def put(self, arg: ArgInfo | None, value: Value) -> bool:
        if arg is None or arg.name in self.filled:
            return False
        tok = value.token
        raw = tok.text
        if tok.kind in ("quote", "email") and not _stringy(arg):
            return False
        if tok.kind == "quote" and _is_id(arg):
            return False
        fits, typed = typed_value(raw, tok.number, arg.type)
        if not fits:
            return False
        if tok.kind == "money" and not _numeric(arg):
            return False
        if arg.enum and typed not in arg.enum:
            return False
        self.filled[arg.name] = Argument(arg.name, typed, "typed")
        return True

    def loose(self, value: Value, named: set[str], thing_named: bool) -> bool:
        kind = value.token.kind
        free = self.open()
        if kind == "money":
            # Money only goes where money goes: an amount, or a plain number argument.
            numbers = [a for a in free if _numeric(a) and not a.enum
                       and (a.words & _AMOUNT_WORDS or a.type == "number")]
            return self.put(_one([a for a in numbers if a.words & _AMOUNT_WORDS]) or _one(numbers),
                            value)
        if kind == "email":
            return self.put(_one([a for a in free if a.is_email]), value)
        # An argument the clause names without a value takes it: "phone to 555-1234".
        spoken = [a for a in free if a.words & named and not a.is_email
                  and not (kind == "quote" and _is_id(a))]
        if len(spoken) == 1 and self.put(spoken[0], value):
            return True
        if kind == "num":
            numbers = [a for a in free if _numeric(a) and not a.enum]
            amounts = [a for a in numbers if a.words & _AMOUNT_WORDS]
            if amounts or numbers:
                # A bare number is an amount, or the one count of a tool the turn names.
                arg = _one(amounts) or (_one(numbers) if thing_named else None)
                return self.put(arg, value)
        if kind == "id" and _DATE.match(value.token.text):
            return self.put(_one([a for a in free if "date" in a.words]), value)
        if kind == "quote":
            texts = [a for a in free if _stringy(a) and a.words & _TEXT_WORDS and not a.enum]
            plain = [a for a in free if _stringy(a) and not a.is_email and not a.enum
                     and not _is_id(a)]
            return self.put(_one(texts) or _one(plain), value)
        # A loose identifier or number: only the one required string argument.
        self.guesses += 1
        return self.put(_one([a for a in free if a.required and _stringy(a)
                              and not a.is_email and not a.enum]), value)


def _is_id(arg: ArgInfo) -> bool:
    return arg.name.lower() == "id" or arg.name.lower().endswith(("_id", "id"))


def fit(info: ToolInfo, clause: Clause, actions: frozenset[str], verb: str,
        prev: Previous | None, context: Mapping[str, Any]) -> Fit | None:
    placing = _Placing(info)
    # "its total" names a field only when the previous result has one by that name;
    # otherwise ("their loans") the word is an ordinary noun after a pronoun.
    known = prev_fields(prev)
    nouns = [n for n in clause.nouns if not (n.used_as_field and n.term in known)]
    fields = [n.term for n in clause.nouns if n.used_as_field and n.term in known]
    # Every noun needs a place in this tool. A read tool also places a noun that
    # asks for what it returns ("the status of order 4411", "the details of ...").
    valued = {v.after for v in clause.values} | {v.before for v in clause.values}
    shown = ({DETAILS} | {term_of(f) for f in info.fields}) if info.tool.kind == "read" else set()
    for index, noun in enumerate(clause.nouns):
        if noun not in nouns:
            continue
        if noun.term in info.thing or info.args_for(noun.term):
            continue
        if noun.term in shown and index not in valued:
            continue
        if noun.term in info.enums:
            name, value = info.enums[noun.term]
            if name in placing.filled and placing.filled[name].value != value:
                return None
            placing.filled[name] = Argument(name, value, "typed")
            continue
        return None
    for value in clause.values:
        if value.after is not None:
            if not placing.put(_one(info.args_for(nouns_term(clause, value.after))), value):
                return None
    loose = [v for v in clause.values if v.after is None and v.before is None]
    for value in clause.values:
        if value.after is None and value.before is not None:
            term = nouns_term(clause, value.before)
            arg = _one(info.args_for(term))
            if arg is None and value.token.kind == "money" and term in info.thing:
                loose.append(value)  # "pay $2.50 fine": money before the thing is loose
                continue
            if arg is None or not _numeric(arg) or not placing.put(arg, value):
                return None
    bare = [(i, n.term) for i, n in enumerate(clause.nouns) if n in nouns
            and not any(v.after == i or v.before == i for v in clause.values)]
    named = {term for _, term in bare}
    thing_named = any(n.term in info.thing for n in nouns)
    for value in loose:
        # Only a noun named before a loose value can claim it ("phone to 555-1234"):
        # in "charge 40 to the order, 4411" the 40 is not the order's.
        before = {term for i, term in bare if i < value.seen}
        if not placing.loose(value, before, thing_named):
            return None
    if not _point_back(placing, clause, prev, named, fields):
        return None
    if clause.pronoun and prev is not None and not _takes_from(placing, prev):
        # "show rental r-88 and then show its vehicle": a call that takes nothing
        # from the call "its" points to would be some other vehicle, or all of them.
        return None
    for arg in placing.open():
        if arg.name in context:
            placing.filled[arg.name] = Argument(arg.name, context[arg.name], "context")
    missing = tuple(a for a in placing.open() if a.required)
    terms = {n.term for n in nouns}
    matched = sum(1 for w in info.thing if w in terms)
    plural = any(n.plural for n in nouns if n.term in info.thing)
    score = (
        int(bool(info.thing) and matched == len(info.thing)),
        int(info.action == verb),
        # Fewer missing arguments breaks a tie only between tools the turn named:
        # a bare "show" must not pick the one tool that needs nothing.
        -len(missing) if matched else 0,
        int(plural == info.thing_plural) if matched else 0,
        matched,
        -placing.guesses,
    )
    ordered = tuple(placing.filled[a.name] for a in info.args if a.name in placing.filled)
    return Fit(info, ordered, missing, score)


def _takes_from(placing: _Placing, prev: Previous) -> bool:
    """Whether an argument of this call is the previous call's, or its result."""
    carried = set(prev.call.arguments)
    return any(a in carried or a.origin == f"result:{prev.step}" for a in placing.filled.values())


def nouns_term(clause: Clause, index: int) -> str:
    return clause.nouns[index].term


def prev_fields(prev: Previous | None) -> set[str]:
    """The previous call's result fields, read as terms."""
    if prev is None or prev.info is None:
        return set()
    return {term_of(f) for f in prev.info.fields}


def _point_back(placing: _Placing, clause: Clause, prev: Previous | None, named: set[str],
                terms: list[str]) -> bool:
    """Pronouns, nouns named again, and result fields of the previous call."""
    wants = clause.pronoun or bool(terms)
    if prev is None:
        return not wants
    before = {a.name: a for a in prev.call.arguments}
    fields = prev.info.fields if prev.info is not None else {}
    for arg in placing.open():
        if arg.name in before and (wants or arg.words & named):
            placing.filled[arg.name] = before[arg.name]
        elif wants and arg.words & named and arg.name in fields:
            # "show loan l-9 and return its book": the book comes back with the loan.
            placing.filled[arg.name] = Argument(arg.name, None, f"result:{prev.step}",
                                                field=arg.name)
        elif wants and arg.name == placing.info.identifier and arg.name in fields:
            # "show rental r-88 and then show its vehicle": the rental's result has
            # the vin that identifies a vehicle.
            placing.filled[arg.name] = Argument(arg.name, None, f"result:{prev.step}",
                                                field=arg.name)
    for term in terms:
        name = next((f for f in fields if term_of(f) == term), None)
        if name is None:
            return False
        free = placing.open()
        arg = next((a for a in free if a.name == name), None) or _one(
            [a for a in free if a.required])
        if arg is None:
            return False
        placing.filled[arg.name] = Argument(arg.name, None, f"result:{prev.step}", field=name)
    return True
