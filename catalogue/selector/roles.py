"""What an argument is for, read from its name, type, format and description.

The selector binds a value by the role its argument plays, not only by a noun
matching the argument's name (issue 13). Roles, all read from the schema:

- **identifier**: the argument that says *which* thing. ``id``, a name ending
  in an identifier word (``*_id``, ``*_number``, ``*_code``, ``*_no``...), a
  name that is one (``sku``, ``isbn``, ``vin``, ``iban``, ``uuid``, ``slug``...),
  or a string whose description calls it one ("The prescription number...").
- **subject**: what a name speaks of once its identifier word and direction
  word are taken off: ``rx_number`` -> "rx", ``from_store`` -> "store",
  ``work_order_number`` -> "work order".
- **direction**: ``from_*``, ``source_*``, ``origin_*`` leave; ``to_*``,
  ``target_*``, ``destination_*`` arrive. "from store S-2 to store S-5" tells
  ``from_store`` and ``to_store`` apart by the preposition before the noun.
- **naming**: ``name``, ``title``, ``label``, ``surname``...: where a value
  after "called", "named", "chamado" goes.
- **free text**: ``note``, ``comment``, ``reason``, ``description``...: where
  text after a colon goes.

A tool's own identifying argument (``identifier``) is, in order: the one its
description calls the thing's identifier; the one whose name is an identifier
word alone (``sku``); the only required argument, when its name speaks of no
other thing. The catalogue as a whole then says which argument identifies each
thing (``Index``): a read tool that gets one prescription by ``rx_number`` tells
every other tool with an ``rx_number`` that "prescription RX-1188" fills it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from catalogue.selector import lexicon_en as en
from catalogue.selector import lexicon_pt as pt
from catalogue.words import name_words

# The last word of a name that makes it an identifier of what the rest names.
ID_SUFFIXES = frozenset({"id", "number", "code", "no", "num", "nr", "ref", "key", "uuid", "slug"})
# Names that are identifiers by themselves.
ID_NAMES = frozenset({
    "id", "sku", "isbn", "issn", "vin", "iban", "uuid", "guid", "slug", "ean", "upc", "gtin",
    "imei", "code", "number", "ref",
})
# Words of a description that call a string argument an identifier.
ID_DESCRIPTION = frozenset({"identifier", "identification", "id", "number", "code"})
FROM_WORDS = frozenset({"from", "source", "origin", "src"})
TO_WORDS = frozenset({"to", "target", "destination", "dest", "dst"})
NAMING_WORDS = frozenset({"name", "title", "label", "surname", "nickname", "caption"})
FREE_TEXT_WORDS = frozenset({
    "text", "message", "body", "note", "comment", "description", "reason", "summary",
    "content", "remark", "observation", "detail", "explanation",
})
_DESCRIPTION_WORD = re.compile(r"[^\W\d_]+")


def words_of(name: str) -> list[str]:
    """A name's words, folded: ``customerEmail`` -> ``["customer", "email"]``
    (split before folding, so the capitals still mark the words)."""
    return [pt.fold(w) for w in name_words(name)]


def description_words(text: Any) -> frozenset[str]:
    """A description's words, folded and singular (``"The store's code"`` ->
    ``{the, store, code}``)."""
    if not isinstance(text, str):
        return frozenset()
    words = _DESCRIPTION_WORD.findall(pt.fold(text.replace("'s ", " ")))
    return frozenset(en.singular(w) for w in words)


def is_numeric(schema_type: Any) -> bool:
    kinds = schema_type if isinstance(schema_type, list) else [schema_type]
    return "number" in kinds or "integer" in kinds


def is_stringy(schema_type: Any) -> bool:
    kinds = schema_type if isinstance(schema_type, list) else [schema_type]
    return "string" in kinds or not kinds or kinds == [None]


def name_roles(name: str) -> tuple[str, str | None, bool]:
    """(subject, direction, named as an identifier) of an argument's name."""
    words = [en.singular(w) for w in words_of(name)]
    marked = bool(words) and (words[-1] in ID_SUFFIXES or " ".join(words) in ID_NAMES)
    if " ".join(words) in ID_NAMES or (words and words[-1] in ID_SUFFIXES):
        words = words[:-1] if len(words) > 1 else []
    direction = None
    if words and words[0] in FROM_WORDS | TO_WORDS:
        direction = "from" if words[0] in FROM_WORDS else "to"
        words = words[1:]
    return " ".join(words), direction, marked


def described_as_identifier(schema: Mapping[str, Any], thing: tuple[str, ...]) -> bool:
    """A string whose description names ``thing`` and calls it an identifier."""
    if not is_stringy(schema.get("type", "string")) or schema.get("enum"):
        return False
    words = description_words(schema.get("description"))
    return bool(thing) and set(thing) <= words and bool(words & ID_DESCRIPTION)
