"""Mirrored pauses (threads.engine.handback): another system's question kept
as pauses, answered through the same claim and token, handed back."""

from __future__ import annotations

import pytest

from threads.engine import handback_close, handback_edit, pause_answer, pause_mirror
from threads.engine.handback import DETAIL_OTHER_TOOL
from threads.errors import InvalidAnswer, InvalidDecision, Stale
from threads.models import Interrupt, Run, Step

pytestmark = pytest.mark.django_db(transaction=True)

THREAD = "lg-test-1"


def make_mirror(run_id: str = "r-lg-1", **over):  # type: ignore[no-untyped-def]
    asks = over.pop("asks", [
        {"kind": "confirm", "tool": "send_email", "arguments": {"to": "ana@example.com"},
         "choices": ["approve", "edit", "reject"], "question": "Send it?"},
        {"kind": "confirm", "tool": "delete_file", "arguments": {"path": "/tmp/x"},
         "choices": ["approve", "reject"], "question": "Delete it?"},
    ])
    return pause_mirror(thread_id=THREAD, session_hash="s" * 64, agent="graph", run_id=run_id, text="mirrored",
                        asks=asks, source={"source": "langgraph", "graph": "graph"}, **over).to_json()


def answer(pause: dict, decision: str, **kw):  # type: ignore[no-untyped-def, type-arg]
    return pause_answer(thread_id=THREAD, pause_id=pause["id"], decision=decision,
                        token=kw.pop("token", pause["token"]), via=Interrupt.Via.LANGGRAPH, **kw).to_json()


def test_a_mirror_opens_one_pause_per_ask_with_its_own_choices_and_again_finds_the_same():
    first = make_mirror()
    assert [(p["tool"], p["choices"]) for p in first["waiting"]] == [
        ("send_email", ["approve", "edit", "reject"]), ("delete_file", ["approve", "reject"])]
    assert first["waiting"][0]["arguments"] == [{"name": "to", "value": "ana@example.com", "origin": "model"}]
    again = make_mirror()
    assert [p["id"] for p in again["waiting"]] == [p["id"] for p in first["waiting"]]
    assert [p["token"] for p in again["waiting"]] == [p["token"] for p in first["waiting"]]
    assert Interrupt.objects.count() == 2


def test_answers_are_handed_back_nothing_runs_and_the_run_ends_with_the_last():
    waiting = make_mirror()["waiting"]
    one = answer(waiting[0], "approve", by="ana")
    assert one["status"] == "waiting" and [p["tool"] for p in one["waiting"]] == ["delete_file"]
    two = answer(waiting[1], "reject", answer={"message": "keep it"})
    assert two["status"] == "done" and two["waiting"] == []
    assert [(s["tool"], s["status"], s["result"]["decision"]) for s in two["steps"]] == [
        ("send_email", "handed_back", "approve"), ("delete_file", "skipped", "reject")]
    assert two["steps"][1]["result"]["answer"] == {"message": "keep it"}


def test_a_decision_it_does_not_offer_is_422_and_a_second_answer_409():
    waiting = make_mirror()["waiting"]
    with pytest.raises(InvalidDecision):
        answer(waiting[1], "edit")
    with pytest.raises(InvalidDecision):
        answer(waiting[1], "skip")  # a confirm's own choices are not a mirrored one's
    answer(waiting[1], "approve")
    with pytest.raises(Stale) as lost:
        answer(waiting[1], "reject")
    assert lost.value.extra["interrupt"]["decision"] == "approve"


def test_an_edit_pauses_again_under_a_new_id_and_token_and_the_old_token_is_stale():
    old = make_mirror()["waiting"][0]
    edited = handback_edit(thread_id=THREAD, pause_id=old["id"], token=old["token"],
                           edit={"args": {"to": "bia@example.com"}}, by="ana", via=Interrupt.Via.LANGGRAPH).to_json()
    new = next(p for p in edited["waiting"] if p["tool"] == "send_email")
    assert new["id"] != old["id"] and new["token"] != old["token"]
    assert new["arguments"] == [{"name": "to", "value": "bia@example.com", "origin": "person"}]
    assert Interrupt.objects.get(pk=old["id"]).status == Interrupt.Status.EDITED
    with pytest.raises(Stale):
        answer(old, "approve")
    assert answer(new, "approve")["steps"][0]["status"] == "handed_back"


@pytest.mark.parametrize(("decision", "given"), [("edit", None), ("edit", {"args": {"to": "x@example.com"}}),
                                                 ("respond", None), ("respond", {"message": "  "}), ("respond", "")])
def test_an_edit_without_its_arguments_or_an_empty_response_is_refused_and_changes_nothing(decision, given):
    """What is handed back is what was decided: an ``edit`` answered as a plain decision was once
    recorded "Edited" and handed back to the graph as an approval (its email sent)."""
    asks = [{"kind": "confirm", "tool": "send_email", "arguments": {"to": "ana@example.com"},
             "choices": ["approve", "edit", "reject", "respond"], "question": "Send it?"}]
    pause = make_mirror(asks=asks)["waiting"][0]
    with pytest.raises(InvalidAnswer):
        answer(pause, decision, answer=given)
    row = Interrupt.objects.get(pk=pause["id"])
    assert (row.status, row.decision) == ("open", "")
    assert Step.objects.get(run_id="r-lg-1").status == Step.Status.WAITING
    assert answer(pause, "respond", answer={"message": "not this one"})["steps"][0]["result"]["decision"] == "respond"


def test_an_edit_naming_another_tool_is_refused_and_the_pause_still_waits():
    old = make_mirror()["waiting"][0]
    with pytest.raises(InvalidAnswer) as refused:
        handback_edit(thread_id=THREAD, pause_id=old["id"], token=old["token"],
                      edit={"name": "delete_file", "args": {"path": "/"}}, by="ana", via=Interrupt.Via.LANGGRAPH)
    assert str(refused.value) == str(DETAIL_OTHER_TOOL).format(tool="send_email", other="delete_file")
    assert Interrupt.objects.get(pk=old["id"]).status == Interrupt.Status.OPEN


def test_a_closed_mirror_supersedes_what_waits_and_an_answer_after_is_stale():
    waiting = make_mirror()["waiting"]
    assert sorted(handback_close(run_id="r-lg-1")) == sorted(p["id"] for p in waiting)
    assert Run.objects.get(pk="r-lg-1").status == Run.Status.SUPERSEDED
    assert not Step.objects.filter(run_id="r-lg-1", status=Step.Status.WAITING).exists()
    with pytest.raises(Stale):
        answer(waiting[0], "approve")


def test_a_mirrored_question_takes_an_answer_of_its_shape():
    ask = make_mirror(run_id="r-lg-2", asks=[{"kind": "ask", "tool": "", "question": "Which colour?",
                                               "ask": {"kind": "open", "prompt": "Which colour?"},
                                               "value": {"question": "Which colour?"}}])["waiting"][0]
    assert ask["kind"] == "ask" and ask["choices"] == ["answer"]
    with pytest.raises(InvalidAnswer):
        answer(ask, "answer", answer={"kind": "choice", "index": 0})
    done = answer(ask, "answer", answer={"kind": "open", "text": "blue"})
    assert done["steps"][0]["result"]["answer"] == "blue"
