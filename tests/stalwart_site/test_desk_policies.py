"""The Python API (``stalwart_site.desk``) under an approval policy
(docs/policies.md): an approval short of the quorum is a Reply that says it
was recorded, the pause still waiting; the Nth approval runs the call once;
an answer the policy refuses raises NotAnApprover and changes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from examples.shop import tools as shop
from tests.support.quorum import GROUPED, QUORUM, agent_file, console_approve
from threads.errors import NotAnApprover
from threads.models import Interrupt

pytestmark = pytest.mark.django_db(transaction=True)


def desk_for(folder: Path, text: str):  # type: ignore[no-untyped-def]
    from stalwart_site.desk import Desk

    return Desk(agent_file(folder, text))


@pytest.mark.parametrize("how", ["resume", "confirm"])
def test_a_desk_approval_short_of_the_quorum_is_recorded_then_a_console_approval_runs_it_once(
        shop_dir, tmp_path, how):
    desk = desk_for(tmp_path, QUORUM)
    pause = desk.say("t-1", "charge 600 to order 4411").waiting[0]
    assert pause["approvals"] == {"needed": 2, "given": [], "group": None}
    reply = desk.resume("t-1", pause["id"], "approve") if how == "resume" else desk.confirm("t-1", "approve")
    assert reply.recorded is not None and reply.recorded["status"] == "approval_recorded"
    assert reply.recorded["interrupt_id"] == pause["id"] and reply.text == reply.recorded["detail"]
    assert [p["id"] for p in reply.waiting] == [pause["id"]]
    assert [(g["by"], g["door"]) for g in reply.waiting[0]["approvals"]["given"]] == [("desk", "python")]
    assert reply.steps == [] and shop.charges() == []
    again = desk.confirm("t-1", "approve")  # the Desk again counts once
    assert again.recorded is not None and len(again.recorded["approvals"]["given"]) == 1
    done = console_approve(desk.key("t-1"), pause).to_json()
    assert [s["status"] for s in done["steps"]] == ["succeeded"]
    assert len(shop.charges("4411")) == 1 and desk.waiting("t-1") == []


def test_a_desk_answer_a_grouped_policy_refuses_raises_and_changes_nothing(shop_dir, tmp_path):
    desk = desk_for(tmp_path, GROUPED)
    pause = desk.say("t-1", "charge 600 to order 4411").waiting[0]
    with pytest.raises(NotAnApprover) as refused:
        desk.resume("t-1", pause["id"], "approve")
    assert refused.value.code == "not_an_approver"
    with pytest.raises(NotAnApprover):
        desk.confirm("t-1", "skip")
    row = Interrupt.objects.get(pk=pause["id"])
    assert row.status == "open" and row.payload["approvals"]["given"] == []
    assert shop.charges() == [] and [p["id"] for p in desk.waiting("t-1")] == [pause["id"]]


def test_without_a_policy_a_desk_approval_runs_at_once_and_records_nothing(shop_dir, tmp_path):
    desk = desk_for(tmp_path, QUORUM)
    pause = desk.say("t-1", "charge 40 to order 4411").waiting[0]
    reply = desk.resume("t-1", pause["id"], "approve")
    assert reply.recorded is None and [s["status"] for s in reply.steps] == ["succeeded"]
