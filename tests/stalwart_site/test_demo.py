"""Service tier: ``demo_reset`` (``stalwart reset-demo``, ``./scripts/demo --reset``)
puts the example shop's demo back as it started and keeps the people."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from approvals.services import staff_create
from catalogue.models import Withdrawal
from examples.shop import tools as shop
from stalwart_site.demo import demo_reset
from threads.errors import NotFound
from threads.models import Interrupt, Receipt, Run, Thread


@pytest.fixture
def walked_through(desk):  # type: ignore[no-untyped-def]
    """The README's walk-through done: order 4411 charged and paid, a staff account, a
    withdrawn tool, and a thread of another agent sharing the database."""
    shop.reset()
    desk.say("u-17", "charge 40 to order 4411")
    assert "ch-4411" in desk.confirm("u-17", "approve").text
    desk.say("u-18", "refund 40 on order 4411")  # left waiting
    staff_create(username="ana", operator=True)
    Withdrawal.objects.create(agent="Shop", tool="archive_order", reason="not in the demo")
    Thread.objects.create(id="lib-1", session_hash="x" * 64, agent="Library")
    return desk


@pytest.mark.parametrize("reset", [True, False], ids=["reset", "not-reset"])
def test_after_a_reset_order_4411_charges_again_and_without_one_it_is_already_paid(walked_through, reset):
    if reset:
        done = demo_reset(agents=["Shop"])
        assert (done.threads, done.staff, done.withdrawn) == (2, 1, ("archive_order",))
    walked_through.say("u-17", "charge 40 to order 4411")
    reply = walked_through.confirm("u-17", "approve")
    if reset:
        assert "ch-4411" in reply.text
    else:
        assert "already paid" in reply.text


def test_a_reset_keeps_the_mcp_client_keys_in_force_and_says_how_many(walked_through):
    from doors.mcp.clients import mcp_client_create, mcp_client_revoke
    from doors.mcp.models import McpClient

    mcp_client_create(name="desktop", privileges=[], context={}, by="test")
    mcp_client_create(name="gone", privileges=[], context={}, by="test")
    mcp_client_revoke(client=McpClient.objects.get(name="gone"))
    assert demo_reset(agents=["Shop"]).mcp_keys == 1
    assert McpClient.objects.filter(name="desktop", revoked_at__isnull=True).exists()


def test_a_reset_forgets_the_demos_runs_and_keeps_accounts_withdrawals_and_other_agents(walked_through):
    demo_reset(agents=["Shop"])
    assert list(Thread.objects.values_list("id", flat=True)) == ["lib-1"]
    assert (Run.objects.count(), Interrupt.objects.count(), Receipt.objects.count()) == (0, 0, 0)
    assert get_user_model().objects.filter(username="ana", is_staff=True).exists()
    assert Withdrawal.objects.filter(tool="archive_order").exists()
    assert shop.get_order("4411")["status"] == "unpaid"
    assert shop.charges() == []
    with pytest.raises(NotFound):  # the waiting refund went with its thread
        walked_through.waiting("u-18")
