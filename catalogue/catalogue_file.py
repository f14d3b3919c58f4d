"""``catalogue.json`` on disk (docs/agent-file.md, "catalogue.json"): load, validate, write, overlay.

The file is checked against ``catalogue/schema/catalogue.schema.json`` (shipped
in the package); a file that fails is refused with the place (a JSON path)
and the reason. Two tools of one name are refused too: a name is the key that
compensations, withdrawals and the selector use.

The agent file can name a catalogue and add or override tools beside it:
``overlay(tools, entries)`` takes the agent file's ``tools:`` mapping. An entry
naming a catalogue tool replaces the fields it gives (``read: true`` /
``write: true`` set the kind); an entry with a new name adds a tool, a write
unless it says ``read: true`` (never guessed toward read: docs/agent-file.md, "A tool entry").
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from catalogue.tools import Tool, catalogue_json, tools_from_catalogue

SCHEMA_PATH = Path(__file__).with_name("schema") / "catalogue.schema.json"

NOT_JSON = "not JSON: {problem}"
UNREADABLE = "cannot read the file: {problem}"
DUPLICATE_TOOL = "the tool name '{name}' appears twice"
BOTH_KINDS = "says both read: true and write: true"
BAD_ENTRY = "a tool entry must be a mapping"


class CatalogueError(Exception):
    def __init__(self, place: str, reason: str) -> None:
        super().__init__(f"{place}: {reason}")
        self.place = place
        self.reason = reason


@cache
def catalogue_schema() -> dict[str, Any]:
    return dict(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))


def _json_path(parts: Iterable[Any]) -> str:
    out = "$"
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else f".{p}"
    return out


def validate_catalogue(data: Any, *, place: str = "catalogue") -> list[Tool]:
    """The tools of a parsed catalogue, or ``CatalogueError`` naming where it fails."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(catalogue_schema())
    error = None if validator.is_valid(data) else jsonschema.exceptions.best_match(validator.iter_errors(data))
    if error is not None:
        raise CatalogueError(f"{place}: {_json_path(error.absolute_path)}", error.message)
    seen: set[str] = set()
    for i, entry in enumerate(data["tools"]):
        if entry["name"] in seen:
            raise CatalogueError(f"{place}: $.tools[{i}].name", DUPLICATE_TOOL.format(name=entry["name"]))
        seen.add(entry["name"])
    return tools_from_catalogue(data)


def load_catalogue(path: str | Path) -> list[Tool]:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CatalogueError(str(path), UNREADABLE.format(problem=exc.strerror or exc)) from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CatalogueError(f"{path}:{exc.lineno}:{exc.colno}", NOT_JSON.format(problem=exc.msg)) from exc
    return validate_catalogue(data, place=str(path))


def dump_catalogue(tools: Iterable[Tool]) -> str:
    return json.dumps(catalogue_json(tools), indent=2, ensure_ascii=False) + "\n"


def write_catalogue(tools: Iterable[Tool], path: str | Path) -> None:
    Path(path).write_text(dump_catalogue(tools), encoding="utf-8")


_FIELDS = {f.name for f in dataclasses.fields(Tool)} - {"name", "kind", "binding", "words", "action", "thing"}
_BINDINGS = ("python", "http", "mcp")


def tool_from_entry(name: str, entry: Mapping[str, Any], base: Tool | None = None, *, place: str = "tools") -> Tool:
    """One agent-file tool entry, over ``base`` (its catalogue entry) if any."""
    if not isinstance(entry, Mapping):
        raise CatalogueError(f"{place}.{name}", BAD_ENTRY)
    if entry.get("read") is True and entry.get("write") is True:
        raise CatalogueError(f"{place}.{name}", BOTH_KINDS)
    fields: dict[str, Any] = dataclasses.asdict(base) if base else {"name": name}
    if entry.get("read") is True:
        fields["kind"] = "read"
    elif entry.get("write") is True or base is None:
        fields["kind"] = "write"
    for key in _FIELDS & entry.keys():
        fields[key] = entry[key]
    binding = {k: entry[k] for k in _BINDINGS if k in entry}
    if binding:
        fields["binding"] = binding
    return Tool(**fields)


def overlay(tools: Iterable[Tool], entries: Mapping[str, Any] | None, *, place: str = "tools") -> list[Tool]:
    """The catalogue's tools with the agent file's entries over them, in order."""
    out = {t.name: t for t in tools}
    for name, entry in (entries or {}).items():
        out[str(name)] = tool_from_entry(str(name), entry or {}, out.get(str(name)), place=place)
    return list(out.values())
