"""The catalogue's data model (docs/agent-file.md, "catalogue.json"), pure.

A ``Tool`` is one entry of ``catalogue.json``: its name read as words, whether
it reads or writes, its input and result schemas, the declarations the check
and the saga read, and its binding (how it runs). Every other module (the
selector, the check, the lints, the importers, the engine) takes these plain
dataclasses; nothing here knows Django.

Wire format::

    {"version": 1, "tools": [{"name": "charge_card", "words": "charge card",
      "action": "charge", "thing": "card", "kind": "write", ...}]}
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from catalogue.words import name_words

Kind = Literal["read", "write"]

CATALOGUE_VERSION = 1

DECLARATIONS = (
    "compensation",
    "irreversible",
    "idempotency",
    "egress",
    "reads_outside",
    "privilege",
    "confirm",
    "labels",
    "verify",
)


@dataclass(frozen=True)
class Tool:
    """One tool of a catalogue. ``kind`` is never guessed toward ``read``."""

    name: str
    kind: Kind = "write"
    # Text, or text per language ({"en": ..., "pt-BR": ...}): ``description`` keeps the
    # English (what the model and the MCP doors read), ``descriptions`` every language given.
    description: str = ""
    input_schema: Mapping[str, Any] = field(
        default_factory=lambda: {"type": "object", "properties": {}}
    )
    result_schema: Mapping[str, Any] | None = None
    words: str = ""
    action: str = ""
    thing: str = ""
    # Declarations (docs/agent-file.md, "Declarations").
    compensation: Mapping[str, Any] | None = None  # {"tool": name, "arguments": {...}}
    irreversible: bool = False
    idempotency: Mapping[str, Any] | None = None  # {"argument": name} or {"header": name}
    egress: bool = False
    reads_outside: bool = False
    privilege: str | None = None
    # The question a confirmation shows and each argument's label: text, or text per
    # language ({"en": ..., "pt-BR": ...}); catalogue.wording reads them.
    confirm: str | Mapping[str, str] | None = None
    labels: Mapping[str, Any] | None = None
    verify: Mapping[str, Any] | None = None
    binding: Mapping[str, Any] = field(default_factory=dict)
    descriptions: Mapping[str, str] | None = None

    def __post_init__(self) -> None:
        if isinstance(self.description, Mapping):
            given = {str(k): str(v) for k, v in self.description.items() if isinstance(v, str) and v.strip()}
            object.__setattr__(self, "descriptions", given or None)
            english = given.get("en") or next(iter(given.values()), "")
            object.__setattr__(self, "description", english)
        if not self.words:
            words = name_words(self.name)
            object.__setattr__(self, "words", " ".join(words))
            object.__setattr__(self, "action", self.action or (words[0] if words else ""))
            object.__setattr__(self, "thing", self.thing or " ".join(words[1:]))

    @property
    def is_write(self) -> bool:
        return self.kind != "read"

    @property
    def properties(self) -> Mapping[str, Any]:
        props = self.input_schema.get("properties") or {}
        return props if isinstance(props, Mapping) else {}

    @property
    def required(self) -> tuple[str, ...]:
        req = self.input_schema.get("required") or ()
        return tuple(str(r) for r in req)

    @property
    def retry_safe(self) -> bool:
        return bool(self.idempotency)

    def to_json(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["input_schema"] = dict(self.input_schema)
        descriptions = out.pop("descriptions", None)
        if descriptions:  # written back as given: text per language
            out["description"] = {"en": self.description, **descriptions} if self.description else dict(descriptions)
        return out

    def description_in(self, language: str) -> str:
        """The description in ``language``: its own, else English."""
        return str((self.descriptions or {}).get(language) or self.description)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Tool:
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


def catalogue_json(tools: Iterable[Tool]) -> dict[str, Any]:
    return {"version": CATALOGUE_VERSION, "tools": [t.to_json() for t in tools]}


def tools_from_catalogue(data: Mapping[str, Any]) -> list[Tool]:
    return [Tool.from_json(t) for t in data.get("tools", [])]
