"""The bridge's background work, as the serving process's Worker runs it
(doors.langgraph.bridges.tick): a claim a dead worker left settling is sent again
once, an answer given in a process that does not serve the graph is carried on, a
graph that failed as it resumed is tried again with the same answer."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from doors.langgraph import bridges
from doors.langgraph.bridge import GraphFailed
from tests.langgraph import graphs
from tests.langgraph.lg import T, journal, resume, served, started
from threads.engine import pause_answer, replays_settle
from threads.models import Interrupt, Replay

pytestmark = pytest.mark.django_db(transaction=True)
LATER = 3600.0  # seconds: every retry and poll of the bridge due


@pytest.fixture(autouse=True)
def _fresh(bridges_forgotten):  # type: ignore[no-untyped-def]
    graphs.SENT.clear()


def answered_where_no_bridge_runs() -> tuple[object, dict]:  # type: ignore[type-arg]
    """A mirror approved in a process that does not serve its graph (another process's console)."""
    bridge = started(("send_email", {"to": "ana@example.com", "body": "hi"}))
    pause = bridge.sync(T)["interrupts"][0]
    bridges.bridge_forget(bridge.name)
    pause_answer(thread_id=bridge.thread_of(T), pause_id=pause["id"], decision="approve", token=pause["token"],
                 by="staff", via=Interrupt.Via.CONSOLE)
    assert graphs.SENT == [] and [r.status for r in journal()] == ["open"]
    return bridge, pause


def claimed_by(owner: str, *, seconds_ago: float) -> None:
    """The mirror claimed (settling, its value kept) by ``owner``, whose last heartbeat was ``seconds_ago``."""
    (row,) = journal()
    assert replays_settle({row.id: {"decisions": [{"type": "approve"}]}})
    Replay.objects.filter(pk=row.id).update(lease_owner=owner,
                                            lease_at=timezone.now() - timedelta(seconds=seconds_ago))


def test_an_answer_given_in_another_process_is_carried_on_by_the_tick_once():
    bridge, _ = answered_where_no_bridge_runs()
    served(bridge.graph)
    assert bridges.tick(time.monotonic() + LATER) == [T]
    assert graphs.SENT == [{"to": "ana@example.com", "body": "hi"}]
    assert [r.status for r in journal()] == ["kept"]
    assert bridges.tick(time.monotonic() + 2 * LATER) == [] and len(graphs.SENT) == 1


def test_an_answer_given_in_another_process_is_carried_on_at_the_bridges_start():
    bridge, _ = answered_where_no_bridge_runs()
    assert bridges.bridge_start(served(bridge.graph)) == [T]
    assert graphs.SENT == [{"to": "ana@example.com", "body": "hi"}]


def test_a_claim_a_dead_worker_left_settling_is_sent_again_by_the_tick_with_the_same_answer():
    bridge, _ = answered_where_no_bridge_runs()
    claimed_by("dead-worker", seconds_ago=3600)  # the worker died between its claim and the graph's resume
    served(bridge.graph)
    assert bridges.tick(time.monotonic() + LATER) == [T]
    assert graphs.SENT == [{"to": "ana@example.com", "body": "hi"}]
    (row,) = journal()
    assert row.status == "kept" and row.result == {"decisions": [{"type": "approve"}]}
    assert bridges.tick(time.monotonic() + 2 * LATER) == [] and len(graphs.SENT) == 1  # never sent twice


def test_a_claim_a_live_worker_holds_is_left_to_it():
    bridge, _ = answered_where_no_bridge_runs()
    claimed_by("live-worker", seconds_ago=0)  # its heartbeat is fresh: it is resuming the graph now
    served(bridge.graph)
    assert bridges.tick(time.monotonic() + LATER) == []
    assert graphs.SENT == [] and [r.status for r in journal()] == ["settling"]


def test_a_claim_left_settling_is_sent_again_at_start_and_its_row_kept_if_the_graph_went_on():
    bridge, _ = answered_where_no_bridge_runs()
    claimed_by("", seconds_ago=3600)  # a row kept from before leases: held by no one
    assert bridges.bridge_start(served(bridge.graph)) == [T]
    assert len(graphs.SENT) == 1 and [r.status for r in journal()] == ["kept"]
    # As if the worker died after the graph resumed, before the row was kept.
    Replay.objects.filter(door="langgraph").update(status="settling", lease_owner="", lease_at=None)
    assert bridges.bridge_start(bridges.served()) == []  # the interrupt is gone: kept, nothing sent again
    assert len(graphs.SENT) == 1 and [r.status for r in journal()] == ["kept"]


def test_a_graph_that_fails_on_resume_is_502_and_the_tick_sends_the_same_answer_again():
    graphs.FLAKY.update(failures_left=2, sent=0)
    bridge = served(graphs.flaky_graph(), retry_base=0.05)
    bridge.graph.invoke({}, bridge.config(T))
    pause = bridge.sync(T)["interrupts"][0]
    with pytest.raises(GraphFailed) as failed:
        resume(bridge, pause, "answer", answer={"kind": "open", "text": "yes"})
    assert failed.value.http_status == 502 and failed.value.body()["error"] == "graph_failed"
    assert [r.status for r in journal()] == ["settling"]
    assert bridges.tick(time.monotonic() + LATER) == []  # failed once more: tried again later
    assert bridges.tick(time.monotonic() + 2 * LATER) == [T]
    assert graphs.FLAKY == {"failures_left": 0, "sent": 1}
    assert bridge.graph.get_state(bridge.config(T)).values == {"first": "yes"}
    assert [r.status for r in journal()] == ["kept"] and bridge.retries == {}


def test_the_workers_loop_runs_the_tick_while_a_graph_is_served():
    from stalwart_site import worker

    bridge, _ = answered_where_no_bridge_runs()
    served(bridge.graph, poll=0.05)
    worker._langgraph_tick()  # what the Worker's "stalwart-langgraph" loop calls every second
    assert graphs.SENT == [{"to": "ana@example.com", "body": "hi"}]
