"""Placing one clause's values in one tool's arguments, each by one rule.

``Placing`` holds the arguments filled so far and, for each, the rule that
bound it (``why``: what ``stalwart plan --explain`` prints). A value goes
only where its shape and role allow:

- a number written as words ("forty") only to a number argument;
- a bare capitalised value ("Corolla") only to a free string (no identifier,
  no enum, no e-mail or date);
- text after a colon only to a free-text argument (note, comment, reason...);
- a value after "called"/"named" to the argument for names (``naming``);
- a count ("forty packs", "3 peças") to the one quantity argument.

Every rule fills one argument or none: when two could take the value, the
tool is not a fit for it (a wrong call is worse than no call).
"""

from __future__ import annotations

import re

from catalogue.plan import Argument
from catalogue.selector.grammar import Value
from catalogue.selector.info import ArgInfo, ToolInfo
from catalogue.selector.numbers import typed_value

_DATE = re.compile(r"\d{4}-\d{1,2}-\d{1,2}\Z|\d{1,2}/\d{1,2}/\d{2,4}\Z")
_AMOUNT_WORDS = frozenset({"amount", "price", "total", "value", "sum", "fee", "cost"})
_TEXT_WORDS = frozenset({
    "text", "message", "body", "note", "comment", "subject", "title", "description",
    "reason", "query", "content", "name", "summary",
})
_QUANTITY_WORDS = frozenset({"quantity", "qty", "count", "unit", "pack", "piece", "item", "copy",
                             "box"})


def one(args: list[ArgInfo]) -> ArgInfo | None:
    return args[0] if len(args) == 1 else None


def is_id(arg: ArgInfo) -> bool:
    return arg.name.lower() == "id" or arg.name.lower().endswith(("_id", "id"))


class Placing:
    def __init__(self, info: ToolInfo) -> None:
        self.info = info
        self.filled: dict[str, Argument] = {}
        self.why: dict[str, str] = {}
        self.guesses = 0

    def open(self) -> list[ArgInfo]:
        return [a for a in self.info.args if a.name not in self.filled]

    def fill(self, argument: Argument, why: str) -> None:
        self.filled[argument.name] = argument
        self.why[argument.name] = why

    def put(self, arg: ArgInfo | None, value: Value, why: str) -> bool:
        if arg is None or arg.name in self.filled:
            return False
        tok = value.token
        if tok.kind in ("quote", "email", "text", "bare") and not arg.stringy:
            return False
        if tok.kind == "quote" and is_id(arg):
            return False
        if tok.kind == "bare" and not arg.free_string:
            return False  # "Paracetamol" is never a sku
        if tok.kind == "text" and not arg.free_text:
            return False
        if tok.spelled and not arg.numeric:
            return False  # "order forty" never makes an identifier "40"
        fits, typed = typed_value(tok.text, tok.number, arg.type)
        if not fits:
            return False
        if tok.kind == "money" and not arg.numeric:
            return False
        if arg.enum and typed not in arg.enum:
            return False
        self.fill(Argument(arg.name, typed, "typed"), why)
        return True

    def after_noun(self, value: Value, term: str, direction: str | None, word: str) -> bool:
        """A value right after its noun: "order 4411", "prescription RX-1188",
        "from store S-2", "model Corolla"."""
        info = self.info
        found = info.args_for(term, direction)
        arg = one(found)
        if arg is not None:
            return self.put(arg, value, _after_why(info, arg, term, direction, word))
        if value.token.kind == "bare" and info.names_thing(term):
            # "search medicines Paracetamol": the one free string of a tool of them.
            return self.put(one([a for a in self.open() if a.free_string]), value,
                            f"typed: bare value after '{word}' (the one free string)")
        return False

    def before_noun(self, value: Value, term: str, word: str) -> bool:
        """A number right before its noun: "14 days"; or one that counts it:
        "3 peças BLT-8"."""
        arg = one(self.info.args_for(term))
        if arg is not None and arg.numeric:
            return self.put(arg, value, f"typed: number before '{word}'")
        if value.token.kind == "num":
            return self.count(value, word)
        return False

    def count(self, value: Value, word: str) -> bool:
        """"forty packs", "3 units": the one quantity argument. Never any other
        number: "lend 2 books" is not 2 days."""
        numbers = [a for a in self.open() if a.numeric and not a.enum]
        arg = one([a for a in numbers if a.words & _QUANTITY_WORDS])
        return self.put(arg, value, f"typed: a count of '{word}'")

    def naming(self, value: Value) -> bool:
        """"called Lamp", "com o nome "X"": the argument for names."""
        free = self.open()
        names = [a for a in free if a.naming]
        if value.naming:
            preferred = [a for a in names if value.naming in a.words]
            names = preferred if len(preferred) == 1 else names
        arg = one(names)
        if arg is None and not names and self.info.tool.kind == "read":
            arg = one([a for a in free if a.free_string])  # a search's one string
        return self.put(arg, value, f"typed: named by '{value.naming_word}'")

    def loose(self, value: Value, named: set[str], thing_named: bool) -> bool:
        """A value no noun claims, by its kind."""
        kind = value.token.kind
        free = self.open()
        if value.naming is not None:
            return self.naming(value)
        if value.count:
            return self.count(value, value.count)
        if kind == "text":
            return self.put(one([a for a in free if a.free_text]), value,
                            "typed: free text after ':'")
        if kind == "money":
            # Money only goes where money goes: an amount, or a plain number argument.
            numbers = [a for a in free if a.numeric and not a.enum
                       and (a.words & _AMOUNT_WORDS or a.type == "number")]
            return self.put(one([a for a in numbers if a.words & _AMOUNT_WORDS]) or one(numbers),
                            value, "typed: money to the amount")
        if kind == "email":
            return self.put(one([a for a in free if a.is_email]), value,
                            "typed: e-mail to the e-mail argument")
        # An argument the clause names without a value takes it: "phone to 555-1234".
        spoken = [a for a in free if any(a in self.info.named_args(t) for t in named)
                  and not a.is_email and not (kind == "quote" and is_id(a))]
        if len(spoken) == 1 and self.put(spoken[0], value,
                                         f"typed: the argument named before it ('{spoken[0].name}')"):
            return True
        if kind == "num":
            numbers = [a for a in free if a.numeric and not a.enum]
            amounts = [a for a in numbers if a.words & _AMOUNT_WORDS]
            if amounts or numbers:
                # A bare number is an amount, or the one count of a tool the turn names.
                arg = one(amounts) or (one(numbers) if thing_named else None)
                return self.put(arg, value, "typed: the one number argument")
        if kind == "id" and _DATE.match(value.token.text):
            return self.put(one([a for a in free if a.is_date]), value,
                            "typed: date to the date argument")
        if kind == "quote":
            texts = [a for a in free if a.stringy and a.words & _TEXT_WORDS and not a.enum]
            plain = [a for a in free if a.stringy and not a.is_email and not a.enum
                     and not is_id(a)]
            return self.put(one(texts) or one(plain), value, "typed: quoted text")
        # A loose identifier or number: only the one required string argument.
        self.guesses += 1
        return self.put(one([a for a in free if a.required and a.stringy
                             and not a.is_email and not a.enum]), value,
                        "typed: loose value to the one required string")


def _after_why(info: ToolInfo, arg: ArgInfo, term: str, direction: str | None,
               word: str) -> str:
    if arg in info.named_args(term):
        if direction and arg.direction == direction and len(info.named_args(term)) > 1:
            return f"typed: after '{word}', direction '{direction}'"
        return f"typed: after '{word}'"
    if term in info.ids:
        return f"typed: after '{word}' (its identifier in the catalogue)"
    if info.names_thing(term):
        return f"typed: after the thing noun (identifier, {info.identifier_rule})"
    return f"typed: after '{word}'"
