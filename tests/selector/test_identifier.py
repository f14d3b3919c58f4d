"""Which argument identifies a tool's thing, read from the schema (issue 13)."""

from __future__ import annotations

from typing import Any

import pytest

from catalogue.selector.index import Index
from catalogue.selector.info import (
    CATALOGUE,
    DESCRIBED,
    IDENTIFIER_NAME,
    NAMED_AFTER_THING,
    ONLY_REQUIRED,
    tool_info,
)
from catalogue.selector.roles import name_roles
from tests.selector.builders import INT, S, described, make_tool, optional


@pytest.mark.parametrize(("name", "roles"), [
    ("order_id", ("order", None, True)),
    ("rx_number", ("rx", None, True)),
    ("work_order_number", ("work order", None, True)),
    ("machine_code", ("machine", None, True)),
    ("sku", ("", None, True)),
    ("vin", ("", None, True)),
    ("from_store", ("store", "from", False)),
    ("to_branch", ("branch", "to", False)),
    ("source_site", ("site", "from", False)),
    ("target_site", ("site", "to", False)),
    ("customerEmail", ("customer email", None, False)),
    ("name", ("name", None, False)),
])
def test_name_roles(name: str, roles: tuple[str, str | None, bool]) -> None:
    assert name_roles(name) == roles


@pytest.mark.parametrize(("tool", "identifier", "rule"), [
    (make_tool("get_order", order_id=S), "order_id", NAMED_AFTER_THING),
    (make_tool("get_work_order", work_order_number=S), "work_order_number", NAMED_AFTER_THING),
    (make_tool("get_prescription", rx_number=described("The prescription number on the label.")),
     "rx_number", DESCRIBED),
    (make_tool("transfer_prescription", "write",
               rx_number=described("The prescription number."),
               from_store=described("The store code it leaves."),
               to_store=described("The store code it goes to.")), "rx_number", DESCRIBED),
    (make_tool("get_medicine", sku=S), "sku", IDENTIFIER_NAME),
    (make_tool("restock_medicine", "write", sku=S, quantity=INT), "sku", IDENTIFIER_NAME),
    (make_tool("get_weather", city=S), "city", ONLY_REQUIRED),
    # A name speaking of another thing identifies that thing, not this one.
    (make_tool("get_prescription", patient_id=S), None, ""),
    # Many things: the one argument filters, it does not say which.
    (make_tool("search_medicines", name=S), None, ""),
    # Two identifiers and nothing to tell them apart.
    (make_tool("get_transfer", from_code=S, to_code=S), None, ""),
    # A number is counted, never an identity.
    (make_tool("log_hours", "write", hours=INT), None, ""),
])
def test_own_identifier(tool: Any, identifier: str | None, rule: str) -> None:
    info = tool_info(tool)
    assert (info.identifier, info.identifier_rule) == (identifier, rule)


def test_the_catalogue_tells_which_argument_identifies_each_thing() -> None:
    index = Index([
        make_tool("get_prescription", rx_number=described("The prescription number.")),
        make_tool("send_reminder", "write", rx_number=S, email=S),
        make_tool("get_medicine", sku=S),
        make_tool("search_medicines", name=S),
        make_tool("list_prescriptions", patient_id=S, status=optional(S)),
    ], None)
    by_name = {i.name: i for i in index.infos}
    assert by_name["send_reminder"].ids == {"prescription": "rx_number"}
    assert [a.name for a in by_name["send_reminder"].args_for("prescription")] == ["rx_number"]
    # The catalogue identifies medicines by sku: a search by name does not take one.
    assert by_name["search_medicines"].identifier is None
    assert by_name["list_prescriptions"].args_for("prescription") == []


def test_an_identifier_shared_by_two_things_is_used_by_neither_elsewhere() -> None:
    index = Index([
        make_tool("get_order", id=S), make_tool("get_customer", id=S),
        make_tool("charge_card", "write", id=S, amount={"type": "number"}),
    ], None)
    by_name = {i.name: i for i in index.infos}
    assert by_name["charge_card"].ids == {}
    assert by_name["get_order"].args_for("order")[0].name == "id"


def test_catalogue_rule_names_the_thing() -> None:
    index = Index([make_tool("get_vehicle", vin=described("The vehicle identification number.")),
                   make_tool("book_rental", "write", vin=S, days=INT)], None)
    assert {i.name: i.identifier_rule for i in index.infos}["get_vehicle"] == DESCRIBED
    assert CATALOGUE == "the catalogue's identifier for"
