"""A resume's entries as docs/ag-ui.md says them, against a real ``stalwart serve``
driven by ``@ag-ui/client``'s ``HttpAgent`` (``tests/agui/drive.mjs``):
``editedArgs`` is every argument of the call (a full replacement, never merged
with those shown)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from examples.shop import tools as shop
from tests.agui.test_agui import Client, approve, finished, pause_status, types
from tests.e2e.test_faults import rows

pytestmark = pytest.mark.server


def arguments(interrupt: dict[str, Any]) -> dict[str, tuple[Any, str]]:
    return {a["name"]: (a["value"], a["origin"]) for a in interrupt["metadata"]["stalwart"]["arguments"]}


def pauses_of(data_dir: Path, interrupt: dict[str, Any]) -> list[tuple[str, str]]:
    """Every pause of the interrupt's thread: (status, decision)."""
    return rows(data_dir, "SELECT status, decision FROM threads_interrupt WHERE thread_id = (SELECT thread_id FROM "
                          "threads_interrupt WHERE id = ?) ORDER BY created_at", (interrupt["id"],))


# -- editedArgs: a full replacement ------------------------------------------------------------

def test_the_response_schema_says_edited_args_are_all_the_arguments(driver, server):
    interrupt = finished(Client(driver, server.url).run("charge 40 to order 4411"))["outcome"]["interrupts"][0]
    edited = interrupt["responseSchema"]["properties"]["editedArgs"]
    assert edited["required"] == ["order_id", "amount"]  # the tool's required arguments
    assert set(edited["properties"]) == {"order_id", "amount"}  # the idempotency key is the engine's to fill
    assert edited["additionalProperties"] is False and "never merged" in edited["description"]


def test_edited_args_missing_an_argument_are_refused_naming_it_and_nothing_changes(driver, server, data_dir):
    page = Client(driver, server.url)
    first = finished(page.run("charge 40 to order 4411"))["outcome"]["interrupts"][0]
    partial = page.run(resume=[approve(first, {"editedArgs": {"amount": 10}})], keep=False)
    assert types(partial) == ["RUN_STARTED", "RUN_ERROR"], partial["events"]
    assert partial["events"][1]["code"] == "invalid_answer" and "order_id" in partial["events"][1]["message"]
    assert pauses_of(data_dir, first) == [("open", "")] and shop.charges() == []  # no new proposal, no write

    whole = page.run(resume=[approve(first, {"editedArgs": {"order_id": "5001", "amount": 10}})])
    assert whole["error"] is None
    second = finished(whole)["outcome"]["interrupts"]
    assert len(second) == 1 and second[0]["id"] != first["id"]
    assert arguments(second[0]) == {"order_id": ("5001", "typed"), "amount": (10, "typed")}  # exactly those given
    assert pause_status(data_dir, first["id"]) == "edited" and shop.charges() == []
    done = page.run(resume=[approve(second[0])])
    assert done["error"] is None
    assert [(c["order_id"], c["amount"]) for c in shop.charges()] == [("5001", "10.00")]
