"""Importers: other forms of tool description turned into ``Tool`` entries.

Every importer produces the one model of ``catalogue.tools.Tool``. A source
that cannot be read (not OpenAPI, not MCP, a broken ``$ref``, a YAML syntax
error, a server that does not answer) raises ``SourceError`` with the place and
the reason; ``stalwart catalogue import`` prints it and exits 2.

Declarations a form cannot say natively (docs/agent-file.md, "Declarations")
are picked out of a mapping by ``declarations_from``, under their catalogue
names.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from catalogue.tools import DECLARATIONS

NOT_A_MAPPING = "a declaration block must be an object"
BAD_DECLARATION = "'{name}' has the wrong type: expected {expected}"

# The JSON types each declaration takes, so a typo is refused at import time
# rather than misread by the check later.
_DECLARATION_TYPES: dict[str, tuple[type, ...]] = {
    "compensation": (dict,),
    "irreversible": (bool,),
    "idempotency": (dict,),
    "egress": (bool,),
    "reads_outside": (bool,),
    "privilege": (str,),
    "confirm": (str, dict),
    "labels": (dict,),
    "verify": (dict,),
}
_EXPECTED = {dict: "an object", bool: "true or false", str: "a string"}


class SourceError(Exception):
    """A source that is not what it claims to be: ``place`` and ``reason``."""

    def __init__(self, place: str, reason: str) -> None:
        super().__init__(f"{place}: {reason}")
        self.place = place
        self.reason = reason


def declarations_from(block: Any, *, place: str) -> dict[str, Any]:
    """The declarations (docs/agent-file.md, "Declarations") found in ``block``, type-checked."""
    if block is None:
        return {}
    if not isinstance(block, Mapping):
        raise SourceError(place, NOT_A_MAPPING)
    out: dict[str, Any] = {}
    for name in DECLARATIONS:
        if name not in block or block[name] is None:
            continue
        value = block[name]
        types = _DECLARATION_TYPES[name]
        if not isinstance(value, types):
            expected = _EXPECTED[types[0]]
            raise SourceError(f"{place}.{name}", BAD_DECLARATION.format(name=name, expected=expected))
        # ``isinstance`` only restates the check above (a compensation is a
        # dict by now) so the type checker knows ``in`` applies.
        if name == "compensation" and isinstance(value, dict) and "tool" not in value:
            raise SourceError(f"{place}.{name}", "a compensation names its undo under 'tool'")
        out[name] = value
    return out
