from __future__ import annotations

import json
from pathlib import Path

import pytest

from catalogue.catalogue_file import (
    BOTH_KINDS,
    CatalogueError,
    dump_catalogue,
    load_catalogue,
    overlay,
    validate_catalogue,
)
from catalogue.importers.openapi import import_openapi
from tests.catalogue.conftest import SHOP
from tests.catalogue.helpers import make_tool


def test_an_imported_catalogue_round_trips_through_its_schema() -> None:
    tools = import_openapi(SHOP / "openapi.json")
    assert validate_catalogue(json.loads(dump_catalogue(tools))) == tools
    assert load_catalogue(SHOP / "catalogue-mcp.json")[0].binding["mcp"]["server"] == "python mcp_server.py"


@pytest.mark.parametrize(("data", "place"), [
    ({"version": 2, "tools": []}, "$.version"),
    ({"version": 1, "tools": [{"name": "a", "kind": "maybe"}]}, "$.tools[0].kind"),
    ({"version": 1, "tools": [{"name": "a", "kind": "read", "colour": "red"}]}, "$.tools[0]"),
    ({"version": 1, "tools": [{"name": "a", "kind": "write", "compensation": {"arguments": {}}}]},
     "$.tools[0].compensation"),
])
def test_a_bad_catalogue_is_refused_with_its_place(data: object, place: str) -> None:
    with pytest.raises(CatalogueError) as info:
        validate_catalogue(data, place="c.json")
    assert info.value.place == f"c.json: {place}"


def test_a_catalogue_that_is_not_json(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text('{"version": 1,\n "tools": [}')
    with pytest.raises(CatalogueError) as info:
        load_catalogue(path)
    assert info.value.place == f"{path}:2:12"


def test_the_agent_file_overrides_and_adds_tools() -> None:
    base = [make_tool("archive_order", result_schema={"type": "object"}), make_tool("get_order", kind="read")]
    tools = overlay(base, {
        "archive_order": {"irreversible": True},
        "get_order": {"write": True},
        "ping": {"python": "x:ping"},
        "look": {"read": True},
    })
    by_name = {t.name: t for t in tools}
    assert by_name["archive_order"].irreversible and by_name["archive_order"].result_schema == {"type": "object"}
    assert by_name["get_order"].kind == "write"
    assert (by_name["ping"].kind, by_name["ping"].binding) == ("write", {"python": "x:ping"})
    assert by_name["look"].kind == "read"
    with pytest.raises(CatalogueError) as info:
        overlay(base, {"x": {"read": True, "write": True}})
    assert info.value.reason == BOTH_KINDS
