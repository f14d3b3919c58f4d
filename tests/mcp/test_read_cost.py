"""What a read through the MCP gateway costs the database, pinned (docs/decisions.md, "The gateway's
read path"): ``calls.call_start`` then ``calls.delivered``, as ``doors.mcp.server`` runs them for a
read the check runs at once. Counted as ``tests/threads/test_query_counts.py`` counts: every
statement Django sends, BEGIN and COMMIT included; a write outside a transaction commits on its own."""

from __future__ import annotations

import pytest
from django.db import connection

from doors.mcp import calls
from tests.threads.test_query_counts import cost

pytestmark = pytest.mark.django_db(transaction=True)

BUDGETS = {"postgresql": 23, "sqlite": 23}  # statements per read
COMMITS = 3


@pytest.fixture
def gateway_read(shop_dir):  # type: ignore[no-untyped-def]
    agent = calls.agent_of(None)
    caller = calls.Caller(name="local", session="s-read")

    def read() -> calls.Held:
        held = calls.call_start(caller, agent, "get_order", {"order_id": "4411"})
        calls.delivered(held.replay_id)
        return held

    read()  # the session's thread made, the agent's configuration read once, as in a serving process
    return read


def test_a_read_through_the_gateway_runs_at_once_within_its_budget(gateway_read) -> None:  # type: ignore[no-untyped-def]
    with cost() as spent:
        held = gateway_read()
    assert held.outcome.status == "done" and held.outcome.result["order_id"] == "4411"
    assert held.pause is None
    assert spent.queries <= BUDGETS[connection.vendor], f"{spent.queries} queries:\n{spent}"
    assert spent.commits <= COMMITS, f"{spent.commits} commits:\n{spent}"
