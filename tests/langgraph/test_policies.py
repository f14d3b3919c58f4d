"""The LangGraph door's answers under an approval policy (docs/langgraph.md,
docs/policies.md): the bridge's own resume route answers ``202
approval_recorded`` and ``403 not_an_approver`` as the HTTP API does; the
Agent Server API's ``command.resume`` short of the quorum ends with the graph
still interrupted, its interrupt showing the approvals, and is ``403`` in its
error shape when the policy refuses the caller; nothing is sent until the
last approval, and then once.

The engine does not put mirrored pauses under policies yet: these tests give
a mirrored pause the ``approvals`` a policy would (``under_policy``), which is
what the engine's answer reads."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from examples.langgraph import inbox
from tests.approvals.test_console import answer, pause_page
from tests.langgraph.lg import served
from tests.langgraph.test_agent_server import EMAIL, REPLY, get, pauses, post, resume, waiting_thread
from tests.support.staff import make_staff
from threads.models import Interrupt

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.urls("stalwart_site.urls_langgraph")]

ACCEPT = [{"type": "accept", "args": None}]


@pytest.fixture(autouse=True)
def bridge(bridges_forgotten):  # type: ignore[no-untyped-def]
    inbox.SENT.clear()
    return served(inbox.build())


def under_policy(thread: str, group: str | None = None) -> dict[str, Any]:
    """The thread's one open mirrored pause, as a policy asking two approvals (of ``group``) would open it."""
    [pause] = pauses(thread)
    row = Interrupt.objects.get(pk=pause["id"])
    row.payload = {**row.payload, "approvals": {"needed": 2, "given": [], "group": group},
                   "reasons": [*row.payload.get("reasons", []), "policy:two-people"]}
    row.save(update_fields=["payload"])
    [shown] = pauses(thread)
    return shown


def console_approves(pause: dict[str, Any]) -> Any:
    staff = make_staff()
    return answer(staff, pause["id"], pause_page(staff, pause["id"]), "approve")


# -- the Agent Server API -----------------------------------------------------------------

def test_a_resume_short_of_the_quorum_leaves_the_graph_interrupted_showing_the_approvals_then_one_send():
    thread = waiting_thread()
    pause = under_policy(thread)
    assert pause["approvals"] == {"needed": 2, "given": [], "group": None}
    run = resume(thread, ACCEPT)
    assert run.status_code == 200, run.content
    assert inbox.SENT == []
    state = get(f"/threads/{thread}").json()
    assert state["status"] == "interrupted"
    [[interrupt]] = state["interrupts"].values()
    [item] = interrupt["value"]
    assert item["approvals"]["needed"] == 2 and [g["by"] for g in item["approvals"]["given"]] == ["langgraph bridge"]
    assert "1 of 2" in item["description"]
    waited = post(f"/threads/{thread}/runs/wait", {"command": {"resume": ACCEPT}})  # the same caller: counts once
    assert waited.status_code == 200
    assert waited.json()["__interrupt__"][0]["value"][0]["approvals"]["given"][0]["door"] == "langgraph"
    assert len(waited.json()["__interrupt__"][0]["value"][0]["approvals"]["given"]) == 1
    [still] = pauses(thread)
    assert still["id"] == pause["id"] and still["token"] == pause["token"] and inbox.SENT == []
    assert console_approves(pause).status_code == 200
    assert inbox.SENT == [REPLY] and get(f"/threads/{thread}").json()["status"] == "idle"
    late = resume(thread, ACCEPT)
    assert (late.status_code, late.json()["error"]) == (409, "interrupt_stale") and inbox.SENT == [REPLY]


def test_a_resume_the_policys_group_leaves_out_is_403_in_the_apis_shape_and_nothing_changes():
    thread = waiting_thread()
    pause = under_policy(thread, group="finance")
    for value in (ACCEPT, [{"type": "ignore", "args": None}]):
        refused = resume(thread, value)
        assert refused.status_code == 403, refused.content
        assert refused.json()["error"] == "not_an_approver" and refused.json()["detail"]
    row = Interrupt.objects.get(pk=pause["id"])
    assert row.status == "open" and row.payload["approvals"]["given"] == [] and inbox.SENT == []
    assert get(f"/threads/{thread}").json()["status"] == "interrupted"


# -- the bridge's own resume route --------------------------------------------------------

def bridge_resume(thread: str, pause: dict[str, Any], decision: str = "approve") -> Any:
    body = {"interrupt_id": pause["id"], "decision": decision, "token": pause["token"]}
    return Client().post(f"/threads/{thread}/resume", data=json.dumps(body), content_type="application/json")


def test_the_bridges_resume_short_of_the_quorum_is_202_and_the_nth_approval_sends_once():
    thread = waiting_thread()
    pause = under_policy(thread)
    first = bridge_resume(thread, pause)
    assert first.status_code == 202, first.content
    body = first.json()
    assert body["status"] == "approval_recorded" and body["interrupt_id"] == pause["id"] and body["detail"]
    assert [g["door"] for g in body["approvals"]["given"]] == ["langgraph"]
    assert inbox.SENT == [] and pauses(thread)[0]["approvals"]["given"][0]["by"] == "langgraph bridge"
    assert console_approves(pause).status_code == 200
    assert inbox.SENT == [REPLY]
    assert bridge_resume(thread, pause).status_code == 409 and inbox.SENT == [REPLY]


def test_the_bridges_resume_outside_the_policys_group_is_403_and_nothing_changes():
    thread = waiting_thread()
    pause = under_policy(thread, group="finance")
    refused = bridge_resume(thread, pause)
    assert refused.status_code == 403 and refused.json()["error"] == "not_an_approver"
    assert Interrupt.objects.get(pk=pause["id"]).status == "open" and inbox.SENT == []


def test_without_a_policy_one_accept_sends_at_once():
    thread = waiting_thread()
    assert "approvals" not in pauses(thread)[0]
    assert resume(thread, ACCEPT).status_code == 200 and inbox.SENT == [REPLY]
    assert EMAIL["subject"] in REPLY["subject"]
