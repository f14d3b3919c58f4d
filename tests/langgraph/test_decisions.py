"""What the graph receives is exactly the decision recorded (defect 5): through the
bridge's route, each decision as the audit says it, and the mapping itself."""

from __future__ import annotations

from typing import Any

import pytest

from doors.langgraph.values import NO_ANSWER, decision_of
from tests.langgraph import graphs
from tests.langgraph.lg import T, handed, resume, started
from threads.engine import StepStatus, StepView
from threads.models import Interrupt

EMAIL = ("send_email", {"to": "ana@example.com", "body": "hi"})


def step(status: str, result: Any, generation: int = 0) -> StepView:
    return StepView(step=1, tool="send_email", kind="write", status=status, reasons=[], result=result,
                    generation=generation, arguments=[{"name": "to", "value": "bia@example.com", "origin": "person"}])


@pytest.mark.parametrize(("recorded", "handed_back"), [
    (step(StepStatus.HANDED_BACK, {"decision": "approve", "answer": None}), {"type": "approve"}),
    (step(StepStatus.HANDED_BACK, {"decision": "approve", "answer": None}, generation=1),
     {"type": "edit", "edited_action": {"name": "send_email", "args": {"to": "bia@example.com"}}}),
    (step(StepStatus.SKIPPED, {"decision": "reject", "answer": {"message": "no"}}), {"type": "reject", "message": "no"}),
    (step(StepStatus.SKIPPED, {"decision": "reject", "answer": None}), {"type": "reject"}),
    (step(StepStatus.HANDED_BACK, {"decision": "respond", "answer": {"message": "told"}}),
     {"type": "respond", "message": "told"}),
    (step(StepStatus.HANDED_BACK, {"decision": "respond", "answer": "told"}), {"type": "respond", "message": "told"}),
    # Never an approval for a step no one approved: its deadline passed, it was closed, or it holds nothing.
    (step(StepStatus.CANCELLED, None), {"type": "reject", "message": NO_ANSWER}),
    (step(StepStatus.CANCELLED, {"decision": "approve"}), {"type": "reject", "message": NO_ANSWER}),
    (step(StepStatus.HANDED_BACK, {"decision": "edit"}), {"type": "reject", "message": NO_ANSWER}),
    (step(StepStatus.HANDED_BACK, {"decision": "respond", "answer": {"message": " "}}),
     {"type": "reject", "message": NO_ANSWER}),
])
def test_a_recorded_decision_is_handed_back_as_what_it_says(recorded, handed_back):
    assert decision_of(recorded) == handed_back


@pytest.fixture
def waiting(bridges_forgotten):  # type: ignore[no-untyped-def]
    graphs.SENT.clear()
    bridge = started(EMAIL)
    return bridge, bridge.sync(T)["interrupts"][0], handed(bridge)


def only(given: list[Any]) -> Any:
    (resume_map,) = given
    (value,) = resume_map.values()
    return value["decisions"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("decision", "answer", "recorded"), [
    ("approve", None, [{"type": "approve"}]),
    ("reject", {"message": "not today"}, [{"type": "reject", "message": "not today"}]),
    ("respond", {"message": "Ana was told by phone."}, [{"type": "respond", "message": "Ana was told by phone."}]),
])
def test_through_the_route_the_graph_gets_the_decision_recorded(waiting, decision, answer, recorded):
    bridge, pause, given = waiting
    done = resume(bridge, pause, decision, answer=answer)
    assert done["resumed"] is True and only(given) == recorded
    stored = Interrupt.objects.get(pk=pause["id"])
    assert (stored.decision, stored.status) == (decision, Interrupt.Status.ANSWERED)
    assert graphs.SENT == ([{"to": "ana@example.com", "body": "hi"}] if decision == "approve" else [])


@pytest.mark.django_db(transaction=True)
def test_an_edit_pauses_again_and_its_approval_hands_the_graph_the_edited_call():
    graphs.SENT.clear()
    bridge = started(EMAIL)
    given = handed(bridge)
    old = bridge.sync(T)["interrupts"][0]
    edited = resume(bridge, old, "edit", answer={"args": {"to": "bia@example.com", "body": "hi"}})
    new = edited["waiting"][0]
    assert edited["resumed"] is False and given == [] and graphs.SENT == []
    assert (new["id"], new["token"]) != (old["id"], old["token"])
    assert {"name": "to", "value": "bia@example.com", "origin": "person"} in new["arguments"]
    assert Interrupt.objects.get(pk=old["id"]).status == Interrupt.Status.EDITED
    done = resume(bridge, new, "approve")
    assert done["resumed"] is True
    assert only(given) == [{"type": "edit", "edited_action": {"name": "send_email",
                                                              "args": {"to": "bia@example.com", "body": "hi"}}}]
    assert graphs.SENT == [{"to": "bia@example.com", "body": "hi"}]  # the call the audit shows approved


@pytest.mark.django_db(transaction=True)
def test_an_edited_call_rejected_is_handed_back_as_a_rejection():
    graphs.SENT.clear()
    bridge = started(EMAIL)
    given = handed(bridge)
    old = bridge.sync(T)["interrupts"][0]
    new = resume(bridge, old, "edit", answer={"args": {"to": "bia@example.com", "body": "hi"}})["waiting"][0]
    resume(bridge, new, "reject")
    assert only(given) == [{"type": "reject"}] and graphs.SENT == []
