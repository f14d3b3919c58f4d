"""The LangGraph bridge over a real graph in this process (doors.langgraph.bridge):
interrupts mirrored as pauses, answers claimed and handed back, the graph resumed once."""

from __future__ import annotations

import pytest

from approvals import langgraph as bridges
from approvals.models import LangGraphCall
from doors.langgraph.bridge import DETAIL_GONE, Bridge
from tests.langgraph import graphs
from tests.langgraph.graphs import fan_graph, mail_agent, say, twice_graph
from threads.engine import pause_answer
from threads.engine.handback import DETAIL_OTHER_TOOL
from threads.errors import InvalidAnswer, InvalidDecision, Stale
from threads.models import Interrupt

pytestmark = pytest.mark.django_db(transaction=True)

T = "t-1"


@pytest.fixture(autouse=True)
def _fresh(shop_dir):  # type: ignore[no-untyped-def]
    graphs.SENT.clear()
    yield
    for name in ("mail", "fan", "twice"):
        bridges.bridge_forget(name)


def started(*calls):  # type: ignore[no-untyped-def]
    bridge = Bridge(mail_agent())
    bridge.graph.invoke(say(*calls), bridge.config(T))
    return bridge


def resume(bridge: Bridge, pause: dict, decision: str, **body):  # type: ignore[no-untyped-def, type-arg]
    return bridge.resume(T, {"interrupt_id": pause["id"], "decision": decision,
                             "token": body.pop("token", pause["token"]), **body}, by="ana", via="langgraph")


def checkpoint(bridge: Bridge) -> str:
    return str(bridge.graph.get_state(bridge.config(T)).config["configurable"]["checkpoint_id"])


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
    assert Interrupt.objects.count() == 2 and LangGraphCall.objects.count() == 1


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
    assert LangGraphCall.objects.get().status == LangGraphCall.Status.RESUMED


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


def test_an_edit_pauses_again_under_a_new_id_and_token_and_runs_only_after_its_approval():
    bridge = started(("send_email", {"to": "ana@example.com", "body": "hi"}))
    old = bridge.sync(T)["interrupts"][0]
    edited = resume(bridge, old, "edit", answer={"args": {"to": "bia@example.com", "body": "hi"}})
    new = edited["waiting"][0]
    assert edited["resumed"] is False and graphs.SENT == []
    assert (new["id"], new["token"]) != (old["id"], old["token"])
    assert {"name": "to", "value": "bia@example.com", "origin": "person"} in new["arguments"]
    with pytest.raises(Stale):  # the token of the generation before the edit
        resume(bridge, old, "approve")
    done = resume(bridge, new, "approve")
    assert done["resumed"] is True and graphs.SENT == [{"to": "bia@example.com", "body": "hi"}]


def test_two_parallel_interrupts_the_first_answer_holds_and_the_second_resumes_both():
    bridge = Bridge(fan_graph())
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
    bridge = Bridge(twice_graph())
    bridge.graph.invoke({}, bridge.config(T))
    first = bridge.sync(T)["interrupts"][0]
    after = resume(bridge, first, "answer", answer={"kind": "open", "text": "one"})
    second = after["waiting"][0]
    assert second["question"] == "Second?" and second["id"] != first["id"]
    done = resume(bridge, second, "answer", answer={"kind": "open", "text": "two"})
    assert done["output"] == {"first": "one", "second": "two"}


def test_a_pause_answered_in_the_console_resumes_the_graph_in_process():
    bridge = started(("send_email", {"to": "ana@example.com", "body": "hi"}))
    pause = bridge.sync(T)["interrupts"][0]
    pause_answer(thread_id=bridge.thread_of(T), pause_id=pause["id"], decision="approve", token=pause["token"],
                 by="staff", via=Interrupt.Via.CONSOLE)
    assert bridges.pause_answered(pause["run"]) is True
    assert graphs.SENT == [{"to": "ana@example.com", "body": "hi"}]
    assert bridge.graph.get_state(bridge.config(T)).interrupts == ()


def test_a_claim_left_resuming_is_reconciled_at_start_with_the_same_answer():
    bridge = started(("send_email", {"to": "ana@example.com", "body": "hi"}))
    pause = bridge.sync(T)["interrupts"][0]
    thread = bridge.thread_of(T)
    pause_answer(thread_id=thread, pause_id=pause["id"], decision="approve", token=pause["token"], by="ana",
                 via=Interrupt.Via.LANGGRAPH)
    row = LangGraphCall.objects.get()
    LangGraphCall.objects.filter(pk=row.pk).update(status=LangGraphCall.Status.RESUMING,
                                                   resume=Bridge.resume_value(row))  # the worker died here
    assert Bridge(bridge.graph).reconcile() == [T]
    assert graphs.SENT == [{"to": "ana@example.com", "body": "hi"}]
    assert LangGraphCall.objects.get().status == LangGraphCall.Status.RESUMED
    assert Bridge(bridge.graph).reconcile() == []  # nothing left: never sent twice
    assert len(graphs.SENT) == 1


def test_an_answer_given_where_no_bridge_ran_resumes_the_graph_at_the_bridges_start():
    bridge = started(("send_email", {"to": "ana@example.com", "body": "hi"}))
    pause = bridge.sync(T)["interrupts"][0]
    bridges.bridge_forget(bridge.name)  # another process's console: no bridge of this graph there
    pause_answer(thread_id=bridge.thread_of(T), pause_id=pause["id"], decision="approve", token=pause["token"],
                 by="staff", via=Interrupt.Via.CONSOLE)
    assert bridges.pause_answered(pause["run"]) is False and graphs.SENT == []
    assert Bridge(bridge.graph).reconcile() == [T]
    assert graphs.SENT == [{"to": "ana@example.com", "body": "hi"}]


def test_a_mirrored_pause_past_its_deadline_hands_back_a_rejection_never_an_approval():
    from datetime import timedelta

    from django.utils import timezone

    from threads.engine import pauses_expire_due

    bridge = Bridge(mail_agent(), deadlines={"confirm": 60})
    bridge.graph.invoke(say(("send_email", {"to": "ana@example.com", "body": "hi"})), bridge.config(T))
    pause = bridge.sync(T)["interrupts"][0]
    stored = Interrupt.objects.get(pk=pause["id"])
    assert stored.expires_at is not None and stored.expires_at > timezone.now()
    assert pauses_expire_due(now=timezone.now() + timedelta(seconds=61)) == [pause["id"]]
    bridge("lg-mail-t-1", {**pause, "status": "timed_out"})  # the bridge's own listener, told of the expiry
    assert graphs.SENT == []
    messages = bridge.graph.get_state(bridge.config(T)).values["messages"]
    assert "No one answered in time" in str(messages) and bridge.graph.get_state(bridge.config(T)).interrupts == ()
    with pytest.raises(Stale):
        resume(bridge, pause, "approve")


def test_a_respond_decision_is_handed_back_as_the_tools_answer():
    bridge = started(("send_email", {"to": "ana@example.com", "body": "hi"}))
    pause = bridge.sync(T)["interrupts"][0]
    with pytest.raises(InvalidAnswer):
        resume(bridge, pause, "respond")
    done = resume(bridge, pause, "respond", answer={"message": "Ana was told by phone."})
    assert done["resumed"] is True and graphs.SENT == []
    assert "Ana was told by phone." in done["output"]["messages"][-1]["content"]


def test_a_graph_that_fails_on_resume_is_502_and_tried_again_with_the_same_answer():
    import time

    from doors.langgraph.bridge import GraphFailed

    graphs.FLAKY.update(failures_left=2, sent=0)
    bridge = Bridge(graphs.flaky_graph(), retry_base=0.05)
    bridge.graph.invoke({}, bridge.config(T))
    pause = bridge.sync(T)["interrupts"][0]
    with pytest.raises(GraphFailed) as failed:
        resume(bridge, pause, "answer", answer={"kind": "open", "text": "yes"})
    assert failed.value.http_status == 502 and failed.value.body()["error"] == "graph_failed"
    deadline = time.monotonic() + 20
    while LangGraphCall.objects.get().status != LangGraphCall.Status.RESUMED and time.monotonic() < deadline:
        time.sleep(0.05)
    assert LangGraphCall.objects.get().status == LangGraphCall.Status.RESUMED
    assert graphs.FLAKY == {"failures_left": 0, "sent": 1}
    assert bridge.graph.get_state(bridge.config(T)).values == {"first": "yes"}
    bridges.bridge_forget("flaky")


def test_a_bridge_polling_carries_on_an_answer_given_in_another_process():
    import time

    bridge = started(("send_email", {"to": "ana@example.com", "body": "hi"}))
    pause = bridge.sync(T)["interrupts"][0]
    bridges.bridge_forget(bridge.name)  # the console's process has no bridge of this graph
    poller = bridge.poll_start(0.05)
    try:
        pause_answer(thread_id=bridge.thread_of(T), pause_id=pause["id"], decision="approve", token=pause["token"],
                     by="staff", via=Interrupt.Via.CONSOLE)
        deadline = time.monotonic() + 20
        while not graphs.SENT and time.monotonic() < deadline:
            time.sleep(0.05)
        assert graphs.SENT == [{"to": "ana@example.com", "body": "hi"}]
    finally:
        bridge._stopped.set()
        poller.join(timeout=5)
    assert LangGraphCall.objects.get().status == LangGraphCall.Status.RESUMED
