"""A resume's entries as docs/ag-ui.md says them, against a real ``stalwart serve``
driven by ``@ag-ui/client``'s ``HttpAgent`` (``tests/agui/drive.mjs``):
``editedArgs`` is every argument of the call (a full replacement, never merged
with those shown), and an entry ``cancelled`` abandons its pause (it stays open,
nothing is claimed, nothing runs), while a denial is ``{approved: false}``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from examples.shop import tools as shop
from tests.agui.test_agui import Client, approve, finished, pause_status, types
from tests.e2e.conftest import fresh_shop
from tests.e2e.test_faults import rows
from tests.support.server import Server
from tests.threads.team_flows import agent_yaml, sends

pytestmark = pytest.mark.server


def cancelled(interrupt: dict[str, Any], token: str | None = None) -> dict[str, Any]:
    """An entry abandoning ``interrupt``, with the token it showed (or ``token``)."""
    shown = interrupt["metadata"]["stalwart"]["token"]
    return {"interruptId": interrupt["id"], "status": "cancelled",
            "metadata": {"stalwart": {"token": shown if token is None else token}}}


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


# -- cancelled: abandoned, the pause left open -------------------------------------------------

def test_a_cancelled_entry_abandons_the_pause_it_stays_open_and_nothing_runs(driver, server, data_dir):
    page = Client(driver, server.url)
    interrupt = finished(page.run("charge 40 to order 4411"))["outcome"]["interrupts"][0]
    left = page.run(resume=[cancelled(interrupt)])
    assert left["error"] is None
    assert types(left) == ["RUN_STARTED", "STATE_SNAPSHOT", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]
    outcome = finished(left)["outcome"]
    assert outcome["type"] == "interrupt" and [i["id"] for i in outcome["interrupts"]] == [interrupt["id"]]
    assert outcome["interrupts"][0]["metadata"]["stalwart"]["token"] == interrupt["metadata"]["stalwart"]["token"]
    assert page.pending == outcome["interrupts"]  # the client holds it again, as it was
    assert pauses_of(data_dir, interrupt) == [("open", "")] and shop.charges() == []

    wrong = page.run(resume=[cancelled(interrupt, token="0" * 64)], keep=False)  # checked all the same
    assert types(wrong) == ["RUN_STARTED", "RUN_ERROR"] and wrong["events"][1]["code"] == "interrupt_stale"

    approved = page.run(resume=[approve(interrupt)])  # the pause still takes its answer
    assert approved["error"] is None and finished(approved)["outcome"]["type"] == "success"
    assert len(shop.charges("4411")) == 1


def test_a_denial_is_approved_false_and_a_cancelled_delegate_stays_open(driver, server, data_dir):
    page = Client(driver, server.url)
    delegate = finished(page.run("the weather on mars, please"))["outcome"]["interrupts"][0]
    assert delegate["reason"] == "confirmation"
    left = page.run(resume=[cancelled(delegate)])
    assert left["error"] is None and [i["id"] for i in finished(left)["outcome"]["interrupts"]] == [delegate["id"]]
    assert pause_status(data_dir, delegate["id"]) == "open" and "TEXT_MESSAGE_CONTENT" not in types(left)
    declined = page.run(resume=[approve(delegate, {"approved": False})])
    assert declined["error"] is None and finished(declined)["outcome"]["type"] == "success"
    assert "TEXT_MESSAGE_CONTENT" in types(declined)
    assert rows(data_dir, "SELECT status, decision FROM threads_interrupt WHERE id = ?", (delegate["id"],)) == [
        ("answered", "decline")]


# -- two pauses at once: a team's steps --------------------------------------------------------

@pytest.fixture(scope="module")
def team_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("agui-team")
    path = folder / "agent.yaml"
    path.write_text(agent_yaml("two_charges"), encoding="utf-8")
    with Server(folder, agent_file=path) as s:
        yield s


@pytest.fixture
def team(team_server: Server, monkeypatch: pytest.MonkeyPatch) -> Server:
    (team_server.data_dir / "sends.txt").unlink(missing_ok=True)
    return fresh_shop(team_server, monkeypatch)


def two_waiting(driver: Path, team: Server) -> tuple[Client, dict[str, Any], dict[str, Any]]:
    page = Client(driver, team.url)
    waiting = finished(page.run("charge both"))["outcome"]["interrupts"]
    assert [i["metadata"]["stalwart"]["tool"] for i in waiting] == ["charge_card", "charge_card"]
    first, second = sorted(waiting, key=lambda i: i["metadata"]["stalwart"]["step"])
    return page, first, second


def test_one_answered_one_abandoned_the_abandoned_one_is_listed_still_open(driver, team):
    page, first, second = two_waiting(driver, team)
    done = page.run(resume=[approve(second), cancelled(first)])
    assert done["error"] is None and sends() == ["charge_card:5001"]
    results = [e for e in done["events"] if e["type"] == "TOOL_CALL_RESULT"]
    assert [r["toolCallId"] for r in results] == [second["toolCallId"]]  # none for the abandoned call
    assert json.loads(results[0]["content"])["status"] == "succeeded"
    outcome = finished(done)["outcome"]
    assert outcome["type"] == "interrupt" and [i["id"] for i in outcome["interrupts"]] == [first["id"]]
    assert [i["id"] for i in page.pending] == [first["id"]]


def test_a_resume_covers_every_open_pause_and_checks_every_entry_before_any_is_claimed(driver, team):
    page, first, second = two_waiting(driver, team)
    alone = page.run(resume=[cancelled(first)], keep=False)  # HttpAgent itself refuses it; sent as a bare page:
    assert "pending interrupt" in (alone["error"] or "")
    page.pending = []
    alone = page.run(resume=[cancelled(first)], keep=False)
    assert types(alone) == ["RUN_STARTED", "RUN_ERROR"] and alone["events"][1]["code"] == "pending_interrupts"
    assert second["id"] in alone["events"][1]["message"]
    bad = page.run(resume=[approve(second), cancelled(first, token="0" * 64)], keep=False)
    assert types(bad) == ["RUN_STARTED", "RUN_ERROR"] and bad["events"][1]["code"] == "interrupt_stale"
    assert sends() == [] and shop.charges() == []  # the approval beside it was not taken either
    statuses = rows(team.data_dir, "SELECT status FROM threads_interrupt WHERE id IN (?, ?)",
                    (first["id"], second["id"]))
    assert statuses == [("open",), ("open",)]
