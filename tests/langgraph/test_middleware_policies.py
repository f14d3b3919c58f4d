"""StalwartMiddleware under an approval policy (docs/langgraph.md, docs/policies.md):
the graph's approval short of the quorum leaves it interrupted again with the
same pause and its approvals, nothing sent; once a person in the console gives
the last approval, the graph's next resume gets the result, sent once; an
answer a policy's group leaves out interrupts again saying why, nothing sent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from doors.langgraph.middleware import StalwartMiddleware
from examples.shop import tools as shop
from tests.langgraph.graphs import ScriptedModel, say
from tests.langgraph.shop_agent import TOOLS
from tests.support.quorum import GROUPED, QUORUM, agent_file, console_approve
from threads.models import Interrupt

pytestmark = pytest.mark.django_db(transaction=True)

CONFIG = {"configurable": {"thread_id": "mp-1"}}
APPROVE = {"decisions": [{"type": "approve"}]}
CHARGE = ("charge_card", {"order_id": "4411", "amount": 600})


@pytest.fixture(autouse=True)
def _shop(shop_dir):  # type: ignore[no-untyped-def]
    shop.reset()


def policy_agent(folder: Path, text: str, name: str) -> Any:
    path = agent_file(folder, text.replace("name: Shop", f"name: {name}"))
    return create_agent(ScriptedModel(), tools=TOOLS, name="policy-agent",
                        middleware=[StalwartMiddleware(path, agent=name)], checkpointer=InMemorySaver())


def tool_messages(agent: Any) -> list[Any]:
    return [m for m in agent.get_state(CONFIG).values["messages"] if m.type == "tool"]


def test_an_approval_short_of_the_quorum_interrupts_again_and_the_last_one_runs_it_once(tmp_path):
    agent = policy_agent(tmp_path, QUORUM, "QuorumShop")
    out = agent.invoke(say(CHARGE), CONFIG)
    (pending,) = out["__interrupt__"]
    asked = pending.value["stalwart"]
    assert asked["approvals"] == {"needed": 2, "given": [], "group": None}
    again = agent.invoke(Command(resume={pending.id: APPROVE}), CONFIG)
    (still,) = again["__interrupt__"]
    assert still.value["stalwart"]["pause_id"] == asked["pause_id"] and still.value["stalwart"]["token"] == asked["token"]
    assert [g["door"] for g in still.value["stalwart"]["approvals"]["given"]] == ["langgraph"]
    assert shop.charges() == [] and tool_messages(agent) == []
    third = agent.invoke(Command(resume={still.id: APPROVE}), CONFIG)  # the graph again: counts once
    (left,) = third["__interrupt__"]
    assert len(left.value["stalwart"]["approvals"]["given"]) == 1 and shop.charges() == []
    pause = Interrupt.objects.get(pk=asked["pause_id"])
    console_approve(pause.thread_id, {"id": pause.id, "token": asked["token"]}, by="ana")
    assert len(shop.charges("4411")) == 1
    done = agent.invoke(Command(resume={left.id: APPROVE}), CONFIG)
    assert "__interrupt__" not in done
    assert "ch-4411" in tool_messages(agent)[0].content and len(shop.charges("4411")) == 1


def test_an_answer_the_policys_group_leaves_out_interrupts_again_saying_why_and_sends_nothing(tmp_path):
    agent = policy_agent(tmp_path, GROUPED, "GroupShop")
    out = agent.invoke(say(CHARGE), CONFIG)
    (pending,) = out["__interrupt__"]
    for resume in (APPROVE, {"decisions": [{"type": "reject"}]}):
        again = agent.invoke(Command(resume={pending.id: resume}), CONFIG)
        (pending,) = again["__interrupt__"]
        assert pending.value["stalwart"]["not_an_approver"]
        assert pending.value["stalwart"]["approvals"]["given"] == []
    row = Interrupt.objects.get(pk=pending.value["stalwart"]["pause_id"])
    assert row.status == "open" and shop.charges() == [] and tool_messages(agent) == []


def test_a_small_charge_runs_on_the_first_approval(tmp_path):
    agent = policy_agent(tmp_path, QUORUM, "SmallShop")
    out = agent.invoke(say(("charge_card", {"order_id": "4411", "amount": 40})), CONFIG)
    (pending,) = out["__interrupt__"]
    assert "approvals" not in pending.value["stalwart"]
    assert "__interrupt__" not in agent.invoke(Command(resume={pending.id: APPROVE}), CONFIG)
    assert len(shop.charges("4411")) == 1
