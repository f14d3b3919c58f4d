"""The MCP gateway under an approval policy (docs/mcp.md, docs/policies.md):
a held call's result shows the pause's ``approvals`` ("1 of 2"); the client
answering its own call under ``mcp: {approver: client}`` is not an approver
(it proposed it): the call waits for the people the policy names, nothing
runs, no error; the Nth distinct approval runs it once."""

from __future__ import annotations

from typing import Any

import pytest

from doors.mcp import calls
from doors.mcp.server import Gateway
from examples.shop import tools as shop
from tests.support.quorum import GROUPED, QUORUM, console_approve, serve
from threads.engine import Via, pause_answer
from threads.errors import ApprovalRecorded
from threads.models import Interrupt

pytestmark = pytest.mark.django_db(transaction=True)

CHARGE = {"order_id": "4411", "amount": 600}


def held_charge(caller: calls.Caller) -> calls.Held:
    held = calls.call_start(caller, calls.agent_of(None), "charge_card", dict(CHARGE))
    assert held.outcome.status == "waiting" and held.pause is not None
    return held


def shown(held: calls.Held) -> Any:
    return Gateway("Shop").result("charge_card", held, "http://testserver")


def test_a_held_calls_result_shows_its_approvals_one_of_two_then_the_second_runs_it_once(shop_dir, tmp_path):
    serve(tmp_path, QUORUM)
    caller = calls.Caller(name="shopfront", session="s1")
    held = held_charge(caller)
    assert shown(held).structured_content["pause"]["approvals"] == {"needed": 2, "given": [], "group": None}
    pause = held.pause.to_json()
    with pytest.raises(ApprovalRecorded):  # a first person, through another door
        pause_answer(thread_id=caller.thread_id, pause_id=pause["id"], decision="approve", token=pause["token"],
                     by="session", via=Via.HTTP)
    now = calls.call_outcome(held)
    result = shown(now)
    assert result.structured_content["status"] == "waiting" and not result.is_error
    approvals = result.structured_content["pause"]["approvals"]
    assert approvals["needed"] == 2 and [g["door"] for g in approvals["given"]] == ["http"]
    assert shop.charges() == []
    console_approve(caller.thread_id, pause)
    done = shown(calls.call_outcome(held))
    assert done.structured_content["charge_id"] == "ch-4411" and len(shop.charges("4411")) == 1


def test_the_client_approving_its_own_call_under_a_policy_waits_for_the_people_it_names(shop_dir, tmp_path):
    serve(tmp_path, QUORUM)
    caller = calls.Caller(name="shopfront", session="s2")
    held = held_charge(caller)
    answered = calls.answer_for(caller, held, "approve")
    assert answered.waits and answered.refused and not answered.lost
    result = shown(answered)
    assert not result.is_error and result.structured_content["status"] == "waiting"
    assert result.structured_content["not_an_approver"] == answered.refused
    assert result.structured_content["pause"]["approvals"]["given"] == []
    assert "0 of 2" in result.content[0].text
    assert shop.charges() == [] and Interrupt.objects.get(pk=held.pause.id).status == "open"
    # still waiting after a while held, and still saying why
    assert calls.call_outcome(answered).refused == answered.refused
    pause = held.pause.to_json()
    with pytest.raises(ApprovalRecorded):
        console_approve(caller.thread_id, pause, by="ana")
    console_approve(caller.thread_id, pause, by="bruno")
    assert len(shop.charges("4411")) == 1


def test_outside_a_policys_group_the_clients_own_answer_changes_nothing(shop_dir, tmp_path):
    serve(tmp_path, GROUPED)
    caller = calls.Caller(name="shopfront", session="s3")
    held = held_charge(caller)
    for decision in ("approve", "skip"):
        answered = calls.answer_for(caller, held, decision)
        assert answered.waits and answered.refused
        assert shown(answered).structured_content["pause"]["approvals"]["group"] == "finance"
    row = Interrupt.objects.get(pk=held.pause.id)
    assert row.status == "open" and row.payload["approvals"]["given"] == [] and shop.charges() == []


def test_a_small_charge_the_client_approves_runs_at_once_as_without_policies(shop_dir, tmp_path):
    serve(tmp_path, QUORUM)
    caller = calls.Caller(name="shopfront", session="s4")
    held = calls.call_start(caller, calls.agent_of(None), "charge_card", {"order_id": "4411", "amount": 40})
    assert "approvals" not in shown(held).structured_content["pause"]
    answered = calls.answer_for(caller, held, "approve")
    assert not answered.refused and shown(answered).structured_content["charge_id"] == "ch-4411"
