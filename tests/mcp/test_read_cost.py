"""What a read through the MCP gateway costs the database, pinned (docs/decisions.md, "The gateway's
read path"): ``calls.call_start`` then ``calls.delivered``, as ``doors.mcp.server`` runs them for a
read the check runs at once. Counted as ``tests/threads/test_query_counts.py`` counts: every
statement Django sends, BEGIN and COMMIT included; a write outside a transaction commits on its own."""

from __future__ import annotations

import pytest
from django.db import connection

from doors.mcp import calls
from tests.threads.test_query_counts import cost
from threads.models import Replay, Run

pytestmark = pytest.mark.django_db(transaction=True)

BUDGETS = {"postgresql": 19, "sqlite": 19}  # statements per read (23 before issue 37: the journal's row)
COMMITS = 2  # the proposal, then the result (3 before: the journal's row marked delivered)


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


def test_a_read_takes_no_row_in_the_replay_journal_and_runs_again_when_called_again(gateway_read) -> None:  # type: ignore[no-untyped-def]
    first, second = gateway_read(), gateway_read()
    assert first.replay_id is None and second.replay_id is None
    assert first.outcome.run != second.outcome.run  # run again: a read has nothing to send twice
    assert not Replay.objects.filter(door="mcp").exists()


def test_a_write_still_takes_its_row_and_its_twin_finds_the_same_pause(shop_dir) -> None:  # type: ignore[no-untyped-def]
    agent, caller = calls.agent_of(None), calls.Caller(name="local", session="s-write")
    first = calls.call_start(caller, agent, "charge_card", {"order_id": "4411", "amount": 40})
    again = calls.call_start(caller, agent, "charge_card", {"order_id": "4411", "amount": 40})
    assert first.waits and first.replay_id is not None
    assert again.pause is not None and first.pause is not None and again.pause.id == first.pause.id
    assert Replay.objects.filter(door="mcp").count() == 1


def test_the_sessions_taint_still_reaches_a_later_write_past_many_untainted_reads(gateway_read) -> None:  # type: ignore[no-untyped-def]
    agent, caller = calls.agent_of(None), calls.Caller(name="local", session="s-read")
    assert calls.call_start(caller, agent, "read_inbox", {}).outcome.status == "done"
    for _ in range(3):
        gateway_read()
    held = calls.call_start(caller, agent, "charge_card", {"order_id": "4411", "amount": 40})
    assert held.waits and held.pause is not None
    assert Run.objects.get(pk=held.outcome.run).tainted_by == ["read_inbox"]
