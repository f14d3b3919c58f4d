"""The LangGraph door's answers under an approval policy (docs/langgraph.md,
docs/policies.md): the bridge's own resume route answers ``202
approval_recorded`` and ``403 not_an_approver`` as the HTTP API does; the
Agent Server API's ``command.resume`` short of the quorum ends with the graph
still interrupted, its interrupt showing the approvals, and is ``403`` in its
error shape when the policy refuses the caller; nothing is sent until the
last approval, and then once.

The graph's own interrupt (the example inbox's ``HumanInterrupt`` asking to
``send_email``) is put under the policies the bridge was given
(``make_app(policies=...)``): the engine opens its pause with the approvals
they ask for, and asks them again of an edit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from catalogue.agentfile import AgentFileError
from doors.langgraph.bridge import bridge_policies
from examples.langgraph import inbox
from tests.approvals.test_console import answer, pause_page
from tests.langgraph.lg import served
from tests.langgraph.test_agent_server import EMAIL, REPLY, get, pauses, post, resume, waiting_thread
from tests.support.staff import make_staff
from threads.models import Interrupt

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.urls("stalwart_site.urls_langgraph")]

ACCEPT = [{"type": "accept", "args": None}]
TWO = {"name": "two-people", "when": {"tool": "send_email"}, "approvers": {"quorum": 2}}


@pytest.fixture(autouse=True)
def bridge(bridges_forgotten):  # type: ignore[no-untyped-def]
    inbox.SENT.clear()
    return served(inbox.build())


def under_policy(group: str | None = None, **given: Any) -> dict[str, Any]:
    """The inbox served under a policy asking two approvals (of ``group``) for ``send_email`` (``given``: more
    of the policy), then run on one email on a new thread: its one open pause, with the thread's id."""
    policy = {**TWO, "approvers": {"quorum": 2, **({"group": group} if group else {})}, **given}
    served(inbox.build(), policies=[policy])
    thread = waiting_thread()
    [pause] = pauses(thread)
    return {**pause, "thread": thread}


def console_approves(pause: dict[str, Any]) -> Any:
    staff = make_staff()
    return answer(staff, pause["id"], pause_page(staff, pause["id"]), "approve")


# -- the Agent Server API -----------------------------------------------------------------

def test_a_resume_short_of_the_quorum_leaves_the_graph_interrupted_showing_the_approvals_then_one_send():
    pause = under_policy()
    thread = pause["thread"]
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
    page = pause_page(make_staff(), pause["id"])  # the console shows the graph's call with its approvals
    assert "1 of 2 approvals" in page and "langgraph bridge" in page
    assert console_approves(pause).status_code == 200
    assert inbox.SENT == [REPLY] and get(f"/threads/{thread}").json()["status"] == "idle"
    late = resume(thread, ACCEPT)
    assert (late.status_code, late.json()["error"]) == (409, "interrupt_stale") and inbox.SENT == [REPLY]


def test_a_resume_the_policys_group_leaves_out_is_403_in_the_apis_shape_and_nothing_changes():
    pause = under_policy(group="finance")
    thread = pause["thread"]
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
    pause = under_policy()
    thread = pause["thread"]
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
    pause = under_policy(group="finance")
    thread = pause["thread"]
    refused = bridge_resume(thread, pause)
    assert refused.status_code == 403 and refused.json()["error"] == "not_an_approver"
    assert Interrupt.objects.get(pk=pause["id"]).status == "open" and inbox.SENT == []


def test_without_a_policy_one_accept_sends_at_once():
    thread = waiting_thread()
    assert "approvals" not in pauses(thread)[0]
    assert resume(thread, ACCEPT).status_code == 200 and inbox.SENT == [REPLY]
    assert EMAIL["subject"] in REPLY["subject"]


# -- the policies over the graph's own interrupt ------------------------------------------

def test_an_edit_is_asked_of_the_policies_again_and_starts_over():
    """An edit is a new proposal: its arguments are asked of the policies again (here one covers only replies to
    bia@example.com, so the first draft waits for one person and the edited one for two), with no approvals."""
    bia = {"name": "bia-needs-two", "when": {"tool": "send_email", "args": {"to": {"eq": "bia@example.com"}}},
           "approvers": {"quorum": 2}}
    served(inbox.build(), policies=[bia])
    thread = waiting_thread()
    [first] = pauses(thread)
    assert "approvals" not in first and "policy:bia-needs-two" not in first["reasons"]
    edited = {**REPLY, "to": "bia@example.com"}
    assert resume(thread, [{"type": "edit", "args": {"action": "send_email", "args": edited}}]).status_code == 200
    [second] = pauses(thread)
    assert second["approvals"] == {"needed": 2, "given": [], "group": None}
    assert "policy:bia-needs-two" in second["reasons"]
    assert resume(thread, ACCEPT).status_code == 200  # the caller's approval: one of two
    assert inbox.SENT == [] and len(pauses(thread)[0]["approvals"]["given"]) == 1
    assert console_approves(second).status_code == 200
    assert inbox.SENT == [edited]


def test_an_edit_of_a_covered_call_drops_the_approvals_given_to_the_draft():
    pause = under_policy()
    thread = pause["thread"]
    assert resume(thread, ACCEPT).status_code == 200
    assert len(pauses(thread)[0]["approvals"]["given"]) == 1
    edited = {**REPLY, "body": "We are on it."}
    assert resume(thread, [{"type": "edit", "args": {"action": "send_email", "args": edited}}]).status_code == 200
    [now] = pauses(thread)
    assert now["id"] != pause["id"] and now["approvals"] == {"needed": 2, "given": [], "group": None}
    assert inbox.SENT == []


def test_a_policys_deadline_that_refuses_fails_closed_and_the_graph_is_handed_a_rejection():
    from datetime import timedelta

    from django.utils import timezone

    from threads.engine import pauses_expire_due
    from threads.models import Step

    pause = under_policy(deadline=600, on_timeout="refuse", remind_before=120)
    stored = Interrupt.objects.get(pk=pause["id"])
    assert stored.expires_at is not None and stored.escalate_at is not None
    assert timedelta(seconds=470) < stored.expires_at - timezone.now() <= timedelta(seconds=600)
    assert stored.expires_at - stored.escalate_at == timedelta(seconds=120)  # the reminder, two minutes before
    assert pauses_expire_due(now=timezone.now() + timedelta(seconds=601)) == [pause["id"]]
    assert inbox.SENT == []
    assert Step.objects.get(pk=stored.step_id).rule == "policy:two-people"
    state = get(f"/threads/{pause['thread']}").json()
    assert state["status"] == "idle" and state["values"]["messages"][-1]["content"] == "Left without a reply."


def test_the_bridges_policies_are_checked_as_an_agent_files_are(tmp_path: Path):
    written = tmp_path / "policies.yaml"
    written.write_text("policies:\n  - name: two\n    when: {tool: send_email}\n    approvers: {quorum: 2}\n",
                       encoding="utf-8")
    assert bridge_policies(written) == [{"name": "two", "when": {"tool": ["send_email"]},
                                         "approvers": {"quorum": 2}}]
    assert bridge_policies(None) == []
    with pytest.raises(AgentFileError) as refused:
        bridge_policies([{"name": "never", "when": {"tool": "send_email"}, "refuse": "Not from here."}])
    assert refused.value.place == "policies[0].refuse" and "StalwartMiddleware" in refused.value.reason
    with pytest.raises(AgentFileError) as six:
        bridge_policies([{"name": "six", "when": {"tool": "send_email"}, "approvers": {"quorum": 6}}])
    assert six.value.place.startswith("policies[0].approvers")
    for condition, place in (({"kind": "read"}, "kind"), ({"declared": ["egress"]}, "declared"),
                             ({"tainted": True}, "tainted"), ({"door": "widget"}, "door")):
        with pytest.raises(AgentFileError) as never:  # a condition no graph's call can meet
            bridge_policies([{"name": "never", "when": {"tool": "send_email", **condition}, "confirm": True}])
        assert never.value.place == f"policies[0].when.{place}" and "never" in never.value.reason
    assert bridge_policies([{"name": "here", "when": {"door": "langgraph"}, "approvers": {"quorum": 2}}])
    (tmp_path / "none.yaml").write_text("agents: []\n", encoding="utf-8")
    with pytest.raises(AgentFileError) as empty:
        bridge_policies(tmp_path / "none.yaml")
    assert "policies:" in empty.value.reason


def test_a_graph_call_under_a_group_is_edited_by_no_caller_of_the_door():
    """Under a group policy only the group's staff answer a graph's call, and an edit is an answer too: the
    API's caller is refused (403 not_an_approver), the pause still open as it was, nothing sent."""
    pause = under_policy(group="finance")
    thread = pause["thread"]
    edited = {**REPLY, "to": "bia@example.com"}
    refused = resume(thread, [{"type": "edit", "args": {"action": "send_email", "args": edited}}])
    assert refused.status_code == 403 and refused.json()["error"] == "not_an_approver", refused.content
    [still] = pauses(thread)
    assert still["id"] == pause["id"] and still["token"] == pause["token"] and inbox.SENT == []
    assert {a["name"]: a["value"] for a in still["arguments"]}["to"] == REPLY["to"]


def test_answers_given_together_are_none_given_when_the_policy_refuses_one():
    """An interrupt asking about two calls, one under a group policy: a resume approving both is 403 and gives
    neither (the other call's pause is not answered, and the graph is not resumed)."""
    from doors.langgraph.commands import resume_command
    from tests.langgraph import graphs
    from tests.langgraph.lg import T
    from threads.engine import Via
    from threads.errors import NotAnApprover

    graphs.SENT.clear()
    bridge = served(graphs.mail_agent(), policies=[
        {"name": "finance-charges", "when": {"tool": "charge_card"}, "approvers": {"quorum": 1, "group": "finance"}}])
    bridge.graph.invoke(graphs.say(("send_email", {"to": "ana@example.com", "body": "hi"}),
                                   ("charge_card", {"order_id": "4411", "amount": 40})), bridge.config(T))
    waiting = bridge.sync(T)["interrupts"]
    assert [p["tool"] for p in waiting] == ["send_email", "charge_card"]
    assert "approvals" not in waiting[0] and waiting[1]["approvals"]["group"] == "finance"
    with pytest.raises(NotAnApprover):
        resume_command(bridge, T, {"decisions": [{"type": "approve"}, {"type": "approve"}]}, by="ana",
                       via=Via.LANGGRAPH)
    assert [Interrupt.objects.get(pk=p["id"]).status for p in waiting] == ["open", "open"]
    assert graphs.SENT == [] and len(bridge.graph.get_state(bridge.config(T)).interrupts) == 1
