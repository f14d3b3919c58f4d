"""One tool read for the selector: its action, thing, arguments and their roles.

``tool_info`` reads a tool alone; ``identify`` then reads the catalogue as a
whole to say which argument identifies each thing (``roles`` has the rules):

- a tool's ``identifier``: the argument a value right after its thing noun
  fills ("show prescription RX-1188" -> ``rx_number``), with the rule that
  chose it (``identifier_rule``), or ``None`` when nothing tells it;
- a tool's ``ids``: for the things other tools are about, the argument of
  this tool that identifies them ("send a reminder for prescription
  RX-1188" -> ``rx_number`` of ``send_reminder``).

The catalogue's identity of a thing comes from the tools that are about it:
one named after it (``rental_id``), one described as its identifier ("The
prescription number ..."), or a read tool of one such thing whose identifier
its name or its being the only required argument tells (``get_medicine(sku)``).
An argument name that identifies two different things (a bare ``id``) is
never used for another tool's thing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from catalogue.selector import lexicon_en as en
from catalogue.selector import roles
from catalogue.tools import Tool

NAMED_AFTER_THING = "named after the thing"
DESCRIBED = "described as its identifier"
IDENTIFIER_NAME = "named as an identifier"
ONLY_REQUIRED = "the only required argument"
CATALOGUE = "the catalogue's identifier for"


@dataclass(frozen=True)
class ArgInfo:
    name: str
    words: frozenset[str]  # singular, without "id"
    type: Any
    enum: tuple[Any, ...]
    required: bool
    is_email: bool
    subject: str = ""  # what the name speaks of: rx_number -> "rx", from_store -> "store"
    direction: str | None = None  # "from" | "to"
    marked: bool = False  # named as an identifier (*_id, *_code, sku, ...)
    is_date: bool = False
    described_id: bool = False  # a string its description calls an identifier
    naming: bool = False  # name, title, label, ...
    free_text: bool = False  # note, comment, reason, ...

    @property
    def id_like(self) -> bool:
        return self.marked or self.described_id

    @property
    def numeric(self) -> bool:
        return roles.is_numeric(self.type)

    @property
    def stringy(self) -> bool:
        return roles.is_stringy(self.type)

    @property
    def free_string(self) -> bool:
        """A string a word of the turn may fill: no enum, no shape, no identifier."""
        return (self.stringy and not self.enum and not self.is_email and not self.is_date
                and not self.id_like)


@dataclass(frozen=True)
class ToolInfo:
    tool: Tool
    action: str
    thing: tuple[str, ...]  # singular words
    thing_plural: bool
    args: tuple[ArgInfo, ...]
    fields: Mapping[str, Any]  # result field -> schema type
    enums: Mapping[str, tuple[str, Any]]  # term -> (argument, value)
    identifier: str | None = None
    identifier_rule: str = ""
    ids: Mapping[str, str] = field(default_factory=dict)  # another thing's term -> argument

    @property
    def name(self) -> str:
        return self.tool.name

    @property
    def thing_term(self) -> str:
        return " ".join(self.thing)

    def names_thing(self, term: str) -> bool:
        return bool(self.thing) and (term == self.thing_term or term in self.thing)

    def thing_words_in(self, terms: set[str]) -> set[str]:
        """The words of this tool's thing that the nouns ``terms`` name."""
        if self.thing_term in terms:
            return set(self.thing)
        return {w for w in self.thing if w in terms}

    def arg(self, name: str | None) -> ArgInfo | None:
        return next((a for a in self.args if a.name == name), None)

    def named_args(self, term: str) -> list[ArgInfo]:
        """The arguments whose names hold every word of ``term``: order -> order_id."""
        words = set(term.split())
        found = [a for a in self.args if words <= a.words]
        if len(found) > 1:
            exact = [a for a in found if a.words == words or a.subject == term]
            return exact or found
        return found

    def args_for(self, term: str, direction: str | None = None) -> list[ArgInfo]:
        """The arguments a noun names: by name (``order`` -> ``order_id``), else
        as the identifier of this tool's thing or of another thing."""
        found = self.named_args(term)
        if len(found) > 1 and direction:
            toward = [a for a in found if a.direction == direction]
            found = toward if len(toward) == 1 else found
        if found:
            return found
        if term in self.ids:
            return [a for a in self.args if a.name == self.ids[term]]
        if self.names_thing(term) and self.identifier:
            return [a for a in self.args if a.name == self.identifier]
        if term in self.thing:
            return [a for a in self.args if a.name.lower() == "id"]
        return []

    def terms(self) -> set[str]:
        out = set(self.thing) | set(self.enums) | set(self.ids)
        if self.thing:
            out.add(self.thing_term)
        for a in self.args:
            out |= a.words
            if a.subject:
                out.add(a.subject)
        return out


def term_of(text: str) -> str:
    """A name or enum value read as an English term: ``due_date`` -> ``due date``."""
    return " ".join(en.singular(w) for w in roles.words_of(str(text)))


def tool_info(tool: Tool) -> ToolInfo:
    words = roles.words_of(tool.name)
    action = words[0] if words else ""
    raw_thing = words[1:]
    thing = tuple(en.singular(w) for w in raw_thing)
    skip = (tool.idempotency or {}).get("argument")
    required = set(tool.required)
    args: list[ArgInfo] = []
    enums: dict[str, tuple[str, Any]] = {}
    for name, schema in tool.properties.items():
        if name == skip:
            continue
        schema = schema if isinstance(schema, Mapping) else {}
        arg_words = frozenset(en.singular(w) for w in roles.words_of(name) if w != "id")
        enum = tuple(schema.get("enum") or ())
        for value in enum:
            enums.setdefault(term_of(value), (name, value))
        is_email = "email" in arg_words or schema.get("format") == "email"
        subject, direction, marked = roles.name_roles(name)
        stringy = roles.is_stringy(schema.get("type", "string"))
        desc = roles.description_words(schema.get("description"))
        args.append(ArgInfo(
            name, arg_words, schema.get("type", "string"), enum, name in required, is_email,
            subject=subject, direction=direction, marked=marked,
            is_date=schema.get("format") in ("date", "date-time") or "date" in arg_words,
            described_id=stringy and not enum and bool(desc & roles.ID_DESCRIPTION),
            naming=stringy and not enum and bool(arg_words & roles.NAMING_WORDS),
            free_text=stringy and not enum and bool(arg_words & roles.FREE_TEXT_WORDS)))
    result = tool.result_schema or {}
    props = result.get("properties") if isinstance(result, Mapping) else None
    fields = {str(k): (v or {}).get("type") for k, v in (props or {}).items()
              if isinstance(v, Mapping) or v is None}
    info = ToolInfo(tool, action, thing, bool(raw_thing) and raw_thing[-1] != thing[-1],
                    tuple(args), fields, enums)
    ident, rule = own_identifier(info)
    return dataclasses.replace(info, identifier=ident, identifier_rule=rule)


def own_identifier(info: ToolInfo) -> tuple[str | None, str]:
    """The argument that says which of its thing a tool is about, read from the
    tool alone, and the rule that told it."""
    if not info.thing:
        return None, ""
    # "label_number" names a "shipping label" as "order_id" names an "order".
    named = [a for a in info.args if a.subject and set(a.subject.split()) <= set(info.thing)
             and a.stringy and not a.enum]
    if len(named) == 1:
        return named[0].name, NAMED_AFTER_THING
    schemas = info.tool.properties
    described = [a for a in info.args
                 if roles.described_as_identifier(schemas.get(a.name) or {}, info.thing)]
    if len(described) == 1:
        return described[0].name, DESCRIBED
    alone = [a for a in info.args if a.required and not a.subject and a.marked]
    if len(alone) == 1:
        return alone[0].name, IDENTIFIER_NAME
    required = [a for a in info.args if a.required]
    # A tool of many things (search_medicines) filters by its one argument; it
    # does not say which one thing.
    if len(required) == 1 and not info.thing_plural:
        a = required[0]
        # A name that speaks of another thing (patient_id) identifies that thing.
        if a.stringy and not a.enum and not a.is_email and not a.is_date and not (
                a.marked and a.subject and not set(a.subject.split()) <= set(info.thing)):
            return a.name, ONLY_REQUIRED
    return None, ""


def identify(infos: Sequence[ToolInfo]) -> list[ToolInfo]:
    """Each tool's identifier and ``ids`` in the light of the whole catalogue."""
    identity: dict[str, set[str]] = {}
    for info in infos:
        rule = info.identifier_rule
        if info.identifier and (rule in (NAMED_AFTER_THING, DESCRIBED) or (
                info.tool.kind == "read" and not info.thing_plural)):
            identity.setdefault(info.thing_term, set()).add(info.identifier)
    things_of: dict[str, set[str]] = {}
    for term, names in identity.items():
        for name in names:
            things_of.setdefault(name, set()).add(term)
    out: list[ToolInfo] = []
    for info in infos:
        names = {a.name for a in info.args}
        ident, rule = info.identifier, info.identifier_rule
        if info.thing and info.thing_term in identity:
            own = sorted(identity[info.thing_term] & names)
            if len(own) == 1:
                if own[0] != ident:
                    ident, rule = own[0], f"{CATALOGUE} '{info.thing_term}'"
            else:
                ident, rule = None, ""
        found: dict[str, list[str]] = {}
        for a in info.args:  # by argument, so the cost follows the tool, not the catalogue
            terms = things_of.get(a.name, set())
            if len(terms) != 1:
                continue
            (one_term,) = terms
            if one_term != info.thing_term and not info.named_args(one_term):
                found.setdefault(one_term, []).append(a.name)
        ids = {term: found[term][0] for term in sorted(found) if len(found[term]) == 1}
        out.append(dataclasses.replace(info, identifier=ident, identifier_rule=rule, ids=ids))
    return out


def unclear_identifiers(tools: Sequence[Tool]) -> list[tuple[str, str, str]]:
    """(tool, thing, why) for each tool of one thing whose identifying argument
    cannot be told: a turn naming that thing by its identifier ("show
    prescription RX-1188") is then unread. What ``stalwart verify`` warns of."""
    own = [tool_info(t) for t in tools]
    out: list[tuple[str, str, str]] = []
    for before, info in zip(own, identify(own), strict=True):
        if not info.thing or info.thing_plural or info.identifier \
                or info.args_for(info.thing_term):
            continue
        required = [a for a in info.args if a.required]
        others = set(info.ids.values())
        if before.identifier and before.identifier not in others:
            # "code" alone would say it; the catalogue identifies the thing otherwise.
            out.append((info.name, info.thing_term,
                        f"'{before.identifier}' here, another argument in other tools"))
        elif info.tool.kind == "read" and len(required) == 1 and required[0].name not in others:
            out.append((info.name, info.thing_term,
                        f"'{required[0].name}' is neither named after it nor described as its"
                        " identifier"))
        else:
            # Identifiers of nothing else, and none tied to this thing: "from_code", "to_code".
            loose = [a.name for a in required if a.id_like and a.stringy and not a.enum
                     and not a.subject and a.name not in others]
            if len(loose) > 1:
                out.append((info.name, info.thing_term,
                            " and ".join(f"'{n}'" for n in loose) + " could each be it"))
    return out
