"""P6, what is reported is what ran: the audit (the pause's decision, where it
came from and who gave it), the console's decisions page and its CSV export,
and the door's own answer all name the decision that was carried out
(docs/conformance.md)."""

from __future__ import annotations

import pytest

from threads.labels import decision_words

from .doors import Door, doors
from .doors.estate import Estate
from .doors.langgraph import BridgeDoor

pytestmark = pytest.mark.server

WHERE = {"http": "HTTP", "widget": "widget", "console": "console", "python": "Python API", "langgraph": "LangGraph",
         "agui": "AG-UI client"}


def reported(door: Door, pause_id: str) -> tuple[dict[str, str], str]:
    """The decisions export's row of the pause, and the decisions page searched by it."""
    (row,) = door.decisions_csv(pause_id)
    status, page = door.console_get(f"/admin/approvals/decision/?q={pause_id}")
    assert status == 200
    return row, page


@pytest.mark.parametrize("decision", ["approve", "skip"])
@pytest.mark.parametrize("door", doors(), indirect=True)
def test_the_audit_the_decisions_page_and_the_door_name_the_decision_carried_out(door, decision):
    pause = door.propose()
    said = door.decisions[decision]
    told = door.answer(pause, said)
    recorded = door.recorded.get(said, said)
    assert told.taken and told.outcome == ("done" if decision == "approve" else "skipped"), told.body
    assert door.effects() == (1 if decision == "approve" else 0)
    audit = door.pause_row(pause.id)
    assert (audit["status"], audit["decision"], audit["answered_via"]) == ("answered", recorded, door.via)
    row, page = reported(door, pause.id)
    assert (row["pause"], row["decision"], row["from where"]) == (pause.id, decision_words(recorded), WHERE[door.via])
    assert row["who"] in (audit["answered_by"], "the customer") and row["who"]
    assert decision_words(recorded) in page and pause.id in page


# -- issue 32, defect 5 -------------------------------------------------------------------------

def test_defect5_the_console_refuses_an_edit_it_does_not_offer_on_a_mirrored_pause(fresh: Estate):
    """Issue 32, defect 5: "Posting `edit` (no button, but the URL takes any choice the pause lists) on a
    mirrored LangGraph pause recorded "Answered: Edited" and handed the graph `{"type": "approve"}`: the email
    was sent."

    After the fix: the console takes only the choices its page offers (approve, reject); ``decision=edit``
    posted to the answer URL is refused and changes nothing: the pause open, nothing sent, nothing recorded."""
    door = BridgeDoor(fresh)
    staff = fresh.staff("bridge")  # the bridge's own console: an answer there resumes the graph in process
    try:
        pause = door.propose()
        status, said = staff.post_answer(pause.id, {"decision": "edit", "token": staff.token_shown(pause.id)})
        audit = door.pause_row(pause.id)
        assert door.effects() == 0, f"charged; the console said {said!r}, recorded {audit['decision']!r}"
        assert status < 500 and not said.startswith("Answered"), said
        assert (audit["status"], audit["decision"]) == ("open", "")
        assert door.decisions_csv(pause.id) == []
    finally:
        door.close()


@pytest.mark.parametrize("decision", ["approve", "reject"])
def test_defect5_the_twin_what_the_console_records_is_what_the_graph_received(fresh: Estate, decision: str):
    """Issue 32, defect 5 (P6): whatever the console records as the decision is what the graph received:
    an approval charges once, a rejection charges nothing and the graph goes on past its interrupt."""
    door = BridgeDoor(fresh)
    staff = fresh.staff("bridge")
    try:
        pause = door.propose()
        said = staff.answer(pause.id, decision)
        assert said.startswith(f"Answered: {decision_words(decision)}."), said
        assert door.pause_row(pause.id)["decision"] == decision
        assert door.effects() == (1 if decision == "approve" else 0)
        waiting = door.http.get(f"/threads/{pause.thread}/interrupts").json()["interrupts"]
        assert waiting == []  # the graph was handed the answer and went on
        (row,) = door.decisions_csv(pause.id)
        assert row["decision"] == decision_words(decision)
    finally:
        door.close()


@pytest.mark.parametrize("message", ["", "Ana was told by phone."], ids=["empty", "said"])
def test_defect5_a_respond_with_an_empty_message_is_refused(fresh: Estate, message: str):
    """Issue 32, defect 5: "`respond` with an empty message was accepted."

    After the fix: ``respond`` with an empty message on the bridge's ``/resume`` is 422 ``invalid_answer`` and
    the pause stays open; with a message (the twin) the graph gets it, and nothing is charged either way."""
    door = BridgeDoor(fresh)
    try:
        pause = door.propose()
        response = door.resume(pause, "respond", answer={"message": message})
        assert door.effects() == 0
        if message:
            assert response.status_code == 200 and message in str(response.json()["output"]), response.text
            assert door.pause_row(pause.id)["decision"] == "respond"
        else:
            assert (response.status_code, response.json().get("error")) == (422, "invalid_answer"), response.text
            assert door.pause_row(pause.id)["status"] == "open"
    finally:
        door.close()
