"""How well one clause fits one tool, and the arguments it gives.

A tool fits a clause only when everything the clause holds has a place:
every noun is the tool's thing, one of its arguments, or one of its enum
values; every value lands in exactly one argument of the right type. One
thing left over rejects the tool (``None``): reading "charge 40 to order
4411 for customer c-208" as a charge would drop the customer.

Values are placed in this order (``placing`` has the rules): enum words;
values after their noun ("order 4411" -> ``order_id``; "prescription
RX-1188" -> the identifier the catalogue gives prescriptions; "from store
S-2" -> ``from_store``); numbers before their noun ("14 days", or a count:
"3 peças"); then loose values by kind (a named value to the argument for
names, a count to the quantity, text after a colon to the free text, money
and numbers to the one number argument, an e-mail to the e-mail argument,
quoted text to the one text argument, a loose identifier to the one required
string argument, counted as a guess).

Then what points back: a pronoun or a noun named again without a value
carries the previous call's argument of the same name, with its origin
(the person typed "4411" once in this turn; the later call shows it as
``typed`` too, the value being known, rather than ``result:<step>``); a
result field ("its total") becomes ``result:<step>`` with that ``field``, and
so does the field of the previous result that is this tool's identifier
("show rental r-88 and then show its vehicle" -> ``vin``). A clause that
points back yet takes nothing from the previous call is no fit: "its vehicle"
is never every vehicle. Context fills what is still open (origin ``context``).

``Fit.score`` orders tools; equal top scores are a choice for the person.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from catalogue.plan import Argument, Call
from catalogue.selector.grammar import Clause
from catalogue.selector.index import DETAILS, ArgInfo, ToolInfo, term_of
from catalogue.selector.placing import Placing, one


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
    why: Mapping[str, str] = field(default_factory=dict)  # argument -> the rule that bound it


def fit(info: ToolInfo, clause: Clause, actions: frozenset[str], verb: str,
        prev: Previous | None, context: Mapping[str, Any],
        notes: list[str] | None = None) -> Fit | None:
    """The fit of ``info`` for ``clause``, or None; then ``notes`` (when given)
    gets why: the first word or value with no place in the tool."""
    placing = Placing(info)

    def miss(why: str) -> None:
        if notes is not None:
            notes.append(f"{info.name}: {why}")

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
        if info.names_thing(noun.term) or info.args_for(noun.term):
            continue
        if noun.term in shown and index not in valued:
            continue
        if noun.term in info.enums:
            name, value = info.enums[noun.term]
            if name in placing.filled and placing.filled[name].value != value:
                miss(f"'{noun.word}' says another {name}")
                return None
            placing.fill(Argument(name, value, "typed"), f"typed: the word '{noun.word}' (enum)")
            continue
        miss(f"'{noun.word}' has no place")
        return None
    for value in clause.values:
        if value.after is not None:
            noun = clause.nouns[value.after]
            if not placing.after_noun(value, noun.term, noun.direction, noun.word):
                miss(f"'{value.token.text}' after '{noun.word}' fits no one argument")
                return None
    loose = [v for v in clause.values if v.after is None and v.before is None]
    for value in clause.values:
        if value.after is None and value.before is not None:
            noun = clause.nouns[value.before]
            if one(info.args_for(noun.term)) is None and value.token.kind == "money" \
                    and info.names_thing(noun.term):
                loose.append(value)  # "pay $2.50 fine": money before the thing is loose
                continue
            if not placing.before_noun(value, noun.term, noun.word):
                miss(f"'{value.token.text}' before '{noun.word}' fits no one argument")
                return None
    bare = [(i, n.term) for i, n in enumerate(clause.nouns) if n in nouns
            and not any(v.after == i or v.before == i for v in clause.values)]
    named = {term for _, term in bare}
    thing_named = any(info.names_thing(n.term) for n in nouns)
    for value in loose:
        # Only a noun named before a loose value can claim it ("phone to 555-1234"):
        # in "charge 40 to the order, 4411" the 40 is not the order's.
        before = {term for i, term in bare if i < value.seen}
        if not placing.loose(value, before, thing_named):
            miss(f"'{value.token.text}' fits no one argument")
            return None
    if not _point_back(placing, clause, prev, named, fields):
        miss(f"'{clause.pronoun_word or ' '.join(fields)}' points to nothing it takes")
        return None
    if clause.pronoun and prev is not None and not _takes_from(placing, prev):
        # "show rental r-88 and then show its vehicle": a call that takes nothing
        # from the call "its" points to would be some other vehicle, or all of them.
        miss(f"'{clause.pronoun_word}' points back, and it takes nothing from step {prev.step}")
        return None
    for arg in placing.open():
        if arg.name in context:
            placing.fill(Argument(arg.name, context[arg.name], "context"),
                         "context: my" if clause.mine else "context")
    missing = tuple(a for a in placing.open() if a.required)
    terms = {n.term for n in nouns}
    matched = len(info.thing_words_in(terms))
    plural = any(n.plural for n in nouns if info.names_thing(n.term))
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
    return Fit(info, ordered, missing, score, dict(placing.why))


def _takes_from(placing: Placing, prev: Previous) -> bool:
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


def _names(arg: ArgInfo, named: set[str]) -> bool:
    return any(set(term.split()) <= arg.words for term in named)


def _point_back(placing: Placing, clause: Clause, prev: Previous | None, named: set[str],
                terms: list[str]) -> bool:
    """Pronouns, nouns named again, and result fields of the previous call."""
    wants = clause.pronoun or bool(terms)
    if prev is None:
        return not wants
    before = {a.name: a for a in prev.call.arguments}
    fields = prev.info.fields if prev.info is not None else {}
    via = f"via '{clause.pronoun_word}'" if clause.pronoun_word else "named again"
    result = f"result:{prev.step}"
    for arg in placing.open():
        if arg.name in before and (wants or _names(arg, named)):
            origin = before[arg.name].origin
            placing.fill(before[arg.name], f"{origin}: carried from step {prev.step} {via}")
        elif wants and _names(arg, named) and arg.name in fields:
            # "show loan l-9 and return its book": the book comes back with the loan.
            placing.fill(Argument(arg.name, None, result, field=arg.name), f"{result} {via}")
        elif wants and arg.name == placing.info.identifier and arg.name in fields:
            # "show rental r-88 and then show its vehicle": the rental's result has
            # the vin that identifies a vehicle.
            placing.fill(Argument(arg.name, None, result, field=arg.name),
                         f"{result} {via} (the field that identifies it)")
    for term in terms:
        name = next((f for f in fields if term_of(f) == term), None)
        if name is None:
            return False
        free = placing.open()
        target = next((a for a in free if a.name == name), None) or one(
            [a for a in free if a.required])
        if target is None:
            return False
        placing.fill(Argument(target.name, None, result, field=name), f"{result} {via} '{term}'")
    return True
