"""StalwartMiddleware on a real create_agent agent: every tool call through Stalwart's check."""

from __future__ import annotations

import pytest
from langgraph.types import Command

from catalogue.services import withdrawal_create
from examples.shop import tools as shop
from tests.langgraph.graphs import say
from tests.langgraph.lg import journal
from tests.langgraph.shop_agent import shop_agent
from threads.models import Interrupt

pytestmark = pytest.mark.django_db(transaction=True)

CONFIG = {"configurable": {"thread_id": "m-1"}}


@pytest.fixture(autouse=True)
def _shop(shop_dir):  # type: ignore[no-untyped-def]
    shop.reset()


def tool_messages(agent):  # type: ignore[no-untyped-def]
    return [m for m in agent.get_state(CONFIG).values["messages"] if m.type == "tool"]


def test_a_read_runs_and_its_result_comes_back():
    agent = shop_agent()
    out = agent.invoke(say(("get_order", {"order_id": "4411"})), CONFIG)
    assert "__interrupt__" not in out
    (message,) = tool_messages(agent)
    assert '"status": "unpaid"' in message.content and message.status == "success"


def test_a_write_interrupts_with_a_hitl_request_and_stalwarts_pause_and_runs_once_after_approval():
    agent = shop_agent()
    out = agent.invoke(say(("charge_card", {"order_id": "4411", "amount": 40})), CONFIG)
    (pending,) = out["__interrupt__"]
    value = pending.value
    assert value["action_requests"][0]["name"] == "charge_card"
    assert value["review_configs"] == [{"action_name": "charge_card", "allowed_decisions": ["approve", "reject"]}]
    pause = Interrupt.objects.get(pk=value["stalwart"]["pause_id"])
    assert pause.status == Interrupt.Status.OPEN and pause.tool == "charge_card" and value["stalwart"]["token"]
    assert (pause.run.proposed_via, pause.run.proposed_by) == ("langchain", pause.run.agent)  # the console says who
    assert shop.charges("4411") == []
    agent.invoke(Command(resume={pending.id: {"decisions": [{"type": "approve"}]}}), CONFIG)
    assert len(shop.charges("4411")) == 1
    assert "ch-4411" in tool_messages(agent)[0].content


def test_a_write_whose_node_runs_again_is_sent_once():
    agent = shop_agent()
    out = agent.invoke(say(("charge_card", {"order_id": "4411", "amount": 40})), CONFIG)
    agent.invoke(Command(resume={out["__interrupt__"][0].id: "approve"}), CONFIG)
    # Run the tools node again from the checkpoint before it (as a resume or a replay does).
    before = next(s for s in agent.get_state_history(CONFIG) if s.next and "tools" in s.next)
    agent.invoke(None, before.config)
    assert len(shop.charges("4411")) == 1
    assert Interrupt.objects.filter(tool="charge_card").count() == 1
    (row,) = journal("langchain")  # the tool call's row: the node run again found its run
    assert (row.status, row.kind, row.key, row.meta) == ("kept", "tool_call", "call-0", {"graph_thread": "m-1"})


def test_a_tool_call_leaves_the_processs_own_agent_file_alone():
    from catalogue import registry

    agent = shop_agent()
    agent.invoke(say(("get_order", {"order_id": "4411"})), CONFIG)
    assert registry.get_agent().name == "Shop"  # the shop's file still served first; ShopAgent found beside it
    assert registry.get_agent("ShopAgent").name == "ShopAgent"


def test_a_rejection_sends_nothing_and_tells_the_model():
    agent = shop_agent()
    out = agent.invoke(say(("charge_card", {"order_id": "4411", "amount": 40})), CONFIG)
    agent.invoke(Command(resume={out["__interrupt__"][0].id: {"decisions": [{"type": "reject"}]}}), CONFIG)
    assert shop.charges("4411") == []
    (message,) = tool_messages(agent)
    assert message.status == "error" and "declined" in message.content


def test_a_withdrawn_tool_is_refused_before_it_runs():
    agent = shop_agent()
    withdrawal_create(agent="ShopAgent", tool="charge_card", reason="card processor down")
    out = agent.invoke(say(("charge_card", {"order_id": "4411", "amount": 40})), CONFIG)
    assert "__interrupt__" not in out and shop.charges("4411") == []
    (message,) = tool_messages(agent)
    assert message.status == "error" and "(withdrawn)" in message.content


@pytest.mark.parametrize(("privileges", "refused"), [((), True), (("refunds",), False)])
def test_a_privileged_tool_needs_its_privilege(privileges, refused):  # type: ignore[no-untyped-def]
    agent = shop_agent(privileges=privileges)
    out = agent.invoke(say(("refund_card", {"order_id": "4412", "amount": 15.5})), CONFIG)
    if refused:
        (message,) = tool_messages(agent)
        assert "__interrupt__" not in out and "(privilege:refunds)" in message.content
    else:
        assert out["__interrupt__"][0].value["action_requests"][0]["name"] == "refund_card"
