"""The LangGraph bridge over a real graph in this process (doors.langgraph): interrupts
mirrored as pauses, answers claimed and handed back, the graph resumed once."""

from __future__ import annotations

import pytest

from doors.langgraph.bridge import DETAIL_GONE, Bridge
from tests.langgraph import graphs
from tests.langgraph.graphs import fan_graph, say, twice_graph
from tests.langgraph.lg import T, checkpoint, journal, resume, served, started
from threads.engine import pause_answer
from threads.engine.handback import DETAIL_OTHER_TOOL
from threads.errors import InvalidAnswer, InvalidDecision, Stale
from threads.models import Interrupt

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _fresh(bridges_forgotten):  # type: ignore[no-untyped-def]
    graphs.SENT.clear()


def test_an_interrupt_is_one_pause_per_action_request_with_ids_stable_across_calls_and_bridges():
    bridge = started(("send_email", {"to": "ana@example.com", "body": "hi"}), ("delete_file", {"path": "/tmp/r"}))
    first = bridge.sync(T)["interrupts"]
    assert [(p["kind"], p["tool"], p["choices"]) for p in first] == [
        ("confirm", "send_email", ["approve", "edit", "reject", "respond"]),
        ("confirm", "delete_file", ["approve", "reject"])]
    assert first[0]["arguments"] == [{"name": "body", "value": "hi", "origin": "model"},
                                     {"name": "to", "value": "ana@example.com", "origin": "model"}]
    again = Bridge(bridge.graph).sync(T)["interrupts"]  # another bridge, as another process would mirror it
    assert [(p["id"], p["token"]) for p in again] == [(p["id"], p["token"]) for p in first]
    (row,) = journal()
    assert Interrupt.objects.count() == 2 and (row.status, row.key, row.meta["graph"]) == (
        "open", row.meta["interrupt"], "mail")


def test_approving_every_action_resumes_the_graph_once_and_the_tool_runs_once():
    bridge = started(("send_email", {"to": "ana@example.com", "body": "hi"}), ("delete_file", {"path": "/tmp/r"}))
    one, two = bridge.sync(T)["interrupts"]
    before = checkpoint(bridge)
    held = resume(bridge, one, "approve")
    assert held["resumed"] is False and [p["id"] for p in held["waiting"]] == [two["id"]]
    assert checkpoint(bridge) == before and graphs.SENT == []  # held: the checkpoint untouched
    done = resume(bridge, two, "reject", answer={"message": "keep it"})
    assert done["resumed"] is True and done["waiting"] == []
    assert graphs.SENT == [{"to": "ana@example.com", "body": "hi"}]
    assert "sent to ana@example.com" in done["output"]["messages"][-1]["content"]
    assert "keep it" in str(done["output"]["messages"])
    (row,) = journal()
    assert row.status == "kept" and row.result == {"decisions": [{"type": "approve"},
                                                                 {"type": "reject", "message": "keep it"}]}


def test_an_answer_after_the_graph_went_on_elsewhere_is_stale_and_the_checkpoint_unchanged():
    from langgraph.types import Command

    bridge = started(("send_email", {"to": "ana@example.com", "body": "hi"}))
    pause = bridge.sync(T)["interrupts"][0]
    state = bridge.graph.get_state(bridge.config(T))
    bridge.graph.invoke(Command(resume={state.interrupts[0].id: {"decisions": [{"type": "reject"}]}}),
                        bridge.config(T))
    after = checkpoint(bridge)
    with pytest.raises(Stale) as stale:
        resume(bridge, pause, "approve")
    assert str(stale.value) == str(DETAIL_GONE) and stale.value.body()["error"] == "interrupt_stale"
    assert checkpoint(bridge) == after and graphs.SENT == []
    assert Interrupt.objects.get(pk=pause["id"]).status == Interrupt.Status.SUPERSEDED
    assert [r.status for r in journal()] == ["expired"]


def test_a_second_answer_and_another_token_are_409_and_a_decision_not_offered_422():
    bridge = started(("delete_file", {"path": "/tmp/r"}))
    pause = bridge.sync(T)["interrupts"][0]
    with pytest.raises(InvalidDecision):
        resume(bridge, pause, "respond", answer="no")
    with pytest.raises(Stale):
        resume(bridge, pause, "approve", token="0" * 64)
    resume(bridge, pause, "approve")
    with pytest.raises(Stale):
        resume(bridge, pause, "approve")


def test_an_edit_naming_another_tool_is_refused():
    bridge = started(("send_email", {"to": "ana@example.com", "body": "hi"}))
    pause = bridge.sync(T)["interrupts"][0]
    with pytest.raises(InvalidAnswer) as refused:
        resume(bridge, pause, "edit", answer={"name": "delete_file", "args": {"path": "/"}})
    assert str(refused.value) == str(DETAIL_OTHER_TOOL).format(tool="send_email", other="delete_file")
    assert bridge.sync(T)["interrupts"][0]["id"] == pause["id"] and graphs.SENT == []


def test_two_parallel_interrupts_the_first_answer_holds_and_the_second_resumes_both():
    bridge = served(fan_graph())
    bridge.graph.invoke({"items": ["cup", "hat"]}, bridge.config(T))
    cup, hat = sorted(bridge.sync(T)["interrupts"], key=lambda p: p["question"])
    assert (cup["kind"], cup["question"]) == ("ask", "Colour of cup?")
    before = checkpoint(bridge)
    held = resume(bridge, cup, "answer", answer={"kind": "open", "text": "red"})
    assert held["resumed"] is False and [p["id"] for p in held["waiting"]] == [hat["id"]]
    assert checkpoint(bridge) == before
    done = resume(bridge, hat, "answer", answer={"kind": "open", "text": "blue"})
    assert done["resumed"] is True and sorted(done["output"]["answers"]) == ["cup=red", "hat=blue"]


def test_sequential_interrupts_of_one_node_are_told_apart():
    bridge = served(twice_graph())
    bridge.graph.invoke({}, bridge.config(T))
    first = bridge.sync(T)["interrupts"][0]
    after = resume(bridge, first, "answer", answer={"kind": "open", "text": "one"})
    second = after["waiting"][0]
    assert second["question"] == "Second?" and second["id"] != first["id"]
    done = resume(bridge, second, "answer", answer={"kind": "open", "text": "two"})
    assert done["output"] == {"first": "one", "second": "two"}
    assert [r.status for r in journal()] == ["kept", "kept"]


def test_a_pause_answered_through_the_engine_elsewhere_resumes_the_graph_at_once():
    bridge = started(("send_email", {"to": "ana@example.com", "body": "hi"}))
    pause = bridge.sync(T)["interrupts"][0]
    pause_answer(thread_id=bridge.thread_of(T), pause_id=pause["id"], decision="approve", token=pause["token"],
                 by="staff", via=Interrupt.Via.CONSOLE)  # the engine's notice carries the graph on
    assert graphs.SENT == [{"to": "ana@example.com", "body": "hi"}]
    assert bridge.graph.get_state(bridge.config(T)).interrupts == ()
    assert [r.status for r in journal()] == ["kept"]


def test_a_mirrored_pause_past_its_deadline_hands_back_a_rejection_never_an_approval():
    from datetime import timedelta

    from django.utils import timezone

    from threads.engine import pauses_expire_due

    bridge = served(graphs.mail_agent(), deadlines={"confirm": 60})
    bridge.graph.invoke(say(("send_email", {"to": "ana@example.com", "body": "hi"})), bridge.config(T))
    pause = bridge.sync(T)["interrupts"][0]
    stored = Interrupt.objects.get(pk=pause["id"])
    assert stored.expires_at is not None and stored.expires_at > timezone.now()
    assert pauses_expire_due(now=timezone.now() + timedelta(seconds=61)) == [pause["id"]]
    assert graphs.SENT == []  # the sweep's notice carried the graph on with a rejection
    state = bridge.graph.get_state(bridge.config(T))
    assert "No one answered in time" in str(state.values["messages"]) and state.interrupts == ()
    with pytest.raises(Stale):
        resume(bridge, pause, "approve")


def test_a_respond_decision_needs_its_message_and_is_handed_back_as_the_tools_answer():
    bridge = started(("send_email", {"to": "ana@example.com", "body": "hi"}))
    pause = bridge.sync(T)["interrupts"][0]
    for empty in (None, "", {"message": " "}):
        with pytest.raises(InvalidAnswer):
            resume(bridge, pause, "respond", answer=empty)
    done = resume(bridge, pause, "respond", answer={"message": "Ana was told by phone."})
    assert done["resumed"] is True and graphs.SENT == []
    assert "Ana was told by phone." in done["output"]["messages"][-1]["content"]


def test_two_bridges_mirroring_one_interrupt_at_the_same_moment_make_one_mirror():
    import threading

    from django.db import connection

    bridge = started(("send_email", {"to": "ana@example.com", "body": "hi"}), ("delete_file", {"path": "/tmp/r"}))
    others = [Bridge(bridge.graph), Bridge(bridge.graph)]  # each its own locks, as two processes have
    barrier = threading.Barrier(2)
    seen: list[list[str]] = [[], []]

    def mirror(i: int) -> None:
        try:
            barrier.wait()
            seen[i] = [p["id"] for p in others[i].sync(T)["interrupts"]]
        finally:
            connection.close()

    workers = [threading.Thread(target=mirror, args=(i,)) for i in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert seen[0] == seen[1] and len(seen[0]) == 2
    assert len(journal()) == 1 and Interrupt.objects.count() == 2
