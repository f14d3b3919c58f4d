"""AG-UI under an approval policy (docs/ag-ui.md, docs/policies.md), against
a real ``stalwart serve`` driven by ``@ag-ui/client`` (``tests/agui/drive.mjs``):
an approval short of the quorum ends the run with the same interrupt still
pending, its ``metadata.stalwart.approvals`` saying who approved; nothing runs
until a second person approves, then it runs once; a caller a policy's group
leaves out gets ``RUN_ERROR`` ``not_an_approver`` and nothing changes."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from examples.shop import tools as shop
from tests.agui.test_agui import Client, approve, finished, pause_status, types
from tests.e2e.conftest import fresh_shop
from tests.e2e.test_faults import rows
from tests.support.mcp import Console
from tests.support.quorum import agent_file, both
from tests.support.server import Server

pytestmark = pytest.mark.server


@pytest.fixture(scope="module")
def policy_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("agui-policies")
    with Server(folder, agent_file=agent_file(folder, both())) as s:
        yield s


@pytest.fixture
def server(policy_server: Server, monkeypatch: pytest.MonkeyPatch) -> Server:
    return fresh_shop(policy_server, monkeypatch)


def test_a_first_approval_leaves_the_interrupt_pending_with_its_approvals_and_a_second_runs_it_once(
        driver, server):
    page = Client(driver, server.url)
    interrupt = finished(page.run("charge 600 to order 4411"))["outcome"]["interrupts"][0]
    assert interrupt["metadata"]["stalwart"]["approvals"] == {"needed": 2, "given": [], "group": None}
    assert interrupt["metadata"]["stalwart"]["reasons"][-1] == "policy:two-people"

    first = page.run(resume=[approve(interrupt)])
    assert first["error"] is None, first["events"]
    assert types(first) == ["RUN_STARTED", "STATE_SNAPSHOT", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]
    outcome = finished(first)["outcome"]
    assert outcome["type"] == "interrupt" and [i["id"] for i in outcome["interrupts"]] == [interrupt["id"]]
    still = outcome["interrupts"][0]
    assert still["metadata"]["stalwart"]["token"] == interrupt["metadata"]["stalwart"]["token"]
    approvals = still["metadata"]["stalwart"]["approvals"]
    assert approvals["needed"] == 2 and [g["door"] for g in approvals["given"]] == ["agui"]
    assert page.pending == outcome["interrupts"]
    assert pause_status(server.data_dir, interrupt["id"]) == "open" and shop.charges() == []

    console = Console(server.url, server.data_dir, "ops-agui-quorum")
    try:
        console.answer(interrupt["id"], "approve")
    finally:
        console.close()
    assert pause_status(server.data_dir, interrupt["id"]) == "answered" and len(shop.charges("4411")) == 1
    again = page.reloaded().run(connect=True)
    assert again["error"] is None and again["pendingInterrupts"] == []
    assert len(shop.charges("4411")) == 1


def test_outside_the_policys_group_a_resume_is_not_an_approver_and_changes_nothing(driver, server):
    page = Client(driver, server.url, path="/agui/Finance/")
    interrupt = finished(page.run("charge 600 to order 4411"))["outcome"]["interrupts"][0]
    assert interrupt["metadata"]["stalwart"]["approvals"]["group"] == "finance"
    for payload in ({"decision": "approve"}, {"approved": False}):
        refused = page.run(resume=[approve(interrupt, payload)], keep=False)
        assert types(refused) == ["RUN_STARTED", "RUN_ERROR"], refused["events"]
        assert refused["events"][1]["code"] == "not_an_approver" and refused["events"][1]["message"]
    assert pause_status(server.data_dir, interrupt["id"]) == "open" and shop.charges() == []
    payload = rows(server.data_dir, "SELECT payload FROM threads_interrupt WHERE id = ?", (interrupt["id"],))[0][0]
    payload = json.loads(payload) if isinstance(payload, str) else payload  # SQLite: text; PostgreSQL: jsonb
    assert payload["approvals"]["given"] == []
    shown = page.reloaded().run(connect=True)
    assert [i["id"] for i in shown["pendingInterrupts"]] == [interrupt["id"]]



def test_after_a_recorded_approval_the_same_resume_records_nothing_new_and_a_skip_is_taken(driver, server):
    page = Client(driver, server.url)
    interrupt = finished(page.run("charge 600 to order 4411"))["outcome"]["interrupts"][0]
    assert page.run(resume=[approve(interrupt)])["error"] is None
    again = page.run(resume=[approve(interrupt)])
    assert again["error"] is None
    still = finished(again)["outcome"]["interrupts"]
    assert [i["id"] for i in still] == [interrupt["id"]]
    assert len(still[0]["metadata"]["stalwart"]["approvals"]["given"]) == 1  # the same caller counts once
    skipped = page.run(resume=[approve(still[0], {"approved": False})])
    assert skipped["error"] is None, skipped["events"]
    assert finished(skipped)["outcome"]["type"] == "success" and page.pending == []
    assert pause_status(server.data_dir, interrupt["id"]) == "answered" and shop.charges() == []
