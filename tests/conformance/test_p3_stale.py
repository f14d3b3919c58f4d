"""P3, stale changes nothing: an answer with a stale, foreign or edited token,
to a pause already answered, or to a pause of another thread or session, is
refused, and nothing changes: no charge, the pause as it was
(docs/conformance.md)."""

from __future__ import annotations

import pytest

from examples.shop import tools as shop
from threads.labels import decision_words

from .doors import IN_PROCESS, WRONG_TOKEN, doors, unique
from .doors.agui import AguiDoor, as_answer, entry
from .doors.estate import Estate
from .doors.inprocess import DeskDoor
from .doors.langgraph import AgentServerDoor, approve_or_reject

pytestmark = pytest.mark.server

NO_TOKEN = ("an MCP client is shown no token and answers nothing (docs/mcp.md): its pauses are answered in the "
            "console, whose cell this is")


@pytest.mark.parametrize("door", doors({"mcp-2025-11-25": NO_TOKEN, "mcp-2026-07-28": NO_TOKEN,
                                        "mcp-stdio": NO_TOKEN}), indirect=True)
def test_another_token_and_a_late_answer_change_nothing(door):
    pause = door.propose()
    skip = "skip" if door.id == "langchain" else door.decisions["skip"]
    if not door.shows_token:  # its caller's resume carries no token: the console answers first, then the door
        said = door.console_answer(pause.id, skip)
        assert said.startswith(f"Answered: {decision_words(skip)}."), said
    else:
        wrong = door.answer(pause, door.decisions["approve"], token=WRONG_TOKEN)
        assert not wrong.taken and wrong.code == "interrupt_stale", wrong.body
        assert door.pause_row(pause.id)["status"] == "open" and door.effects() == 0
        declined = door.answer(pause, door.decisions["skip"])
        assert declined.taken and declined.outcome == "skipped", declined.body
    late = door.answer(pause, door.decisions["approve"])  # the right token, once the pause was answered
    if door.id == "langchain":  # the graph is told what the console decided, and runs nothing
        assert late.taken and late.outcome == "skipped", late.body
    else:
        assert not late.taken and late.code == "interrupt_stale", late.body
    assert door.effects() == 0
    row = door.pause_row(pause.id)
    assert (row["status"], row["decision"]) == ("answered", skip)


STAFF_ANY = "staff answer any thread's pauses by contract (docs/http-api.md); a foreign token is the test above"
ONE_THREAD = ("a LangChain graph's caller resumes its own graph thread, whose checkpointer holds the interrupt; "
              "another thread has no such interrupt to resume")


@pytest.mark.parametrize("door", doors({"console": STAFF_ANY, "langchain": ONE_THREAD}), indirect=True)
def test_a_pause_answered_from_another_thread_or_session_is_refused(door):
    pause = door.propose()
    if door.id in ("http", "widget"):
        other_thread = door.resume(pause, "approve", thread=unique("other"))
        other_session = door.resume(pause, "approve", session="")  # a browser with no session: a new one
        refused = [(r.status_code, r.json()["error"]) for r in (other_thread, other_session)]
        assert refused == [(404, "not_found")] * 2, refused
    elif door.id == "desk":
        from threads.errors import NotFound

        stranger = DeskDoor()
        for desk, thread in ((door.desk, unique("other")), (stranger.desk, pause.thread)):
            with pytest.raises(NotFound):
                desk.resume(thread, pause.id, "approve", token=pause.token)
    elif door.id == "agui":
        assert isinstance(door, AguiDoor)
        for page in (door.page_on(0, thread=unique("other"), session=door.page.session),  # another thread
                     door.page_on(0, thread=door.page.thread)):  # the same thread id, another session
            page.pending = [pause.shown]
            told = as_answer(page.run(resume=[entry(pause.shown, {"decision": "approve"})], keep=False))
            assert not told.taken and told.code in ("interrupt_stale", "not_found"), told.body
    elif door.id == "langgraph":
        other = door.resume(pause, "approve", thread=unique("other"))  # type: ignore[attr-defined]
        assert (other.status_code, other.json()["error"]) == (404, "not_found"), other.text
    elif door.id == "langgraph-api":  # its answer names no pause: another thread's has nothing to answer
        assert isinstance(door, AgentServerDoor)
        approve = approve_or_reject("approve")
        elsewhere = unique("other")
        door.thread_made(elsewhere)
        other = door.command(approve, thread=elsewhere)
        unmade = door.runs({"command": approve}, thread=unique("other"))  # a resume makes no thread
        refused = [(r.status_code, r.json()["error"]) for r in (other, unmade)]
        assert refused == [(409, "interrupt_stale"), (404, "not_found")], refused
    else:  # MCP: another client's identical call is its own call, never this one's pause or result
        said = door.estate.staff().answer(pause.id, "approve")  # type: ignore[attr-defined]
        assert said.startswith("Answered: Approve."), said
        stranger = door.call(name=unique("stranger"))  # type: ignore[attr-defined]
        body = stranger.structured_content
        assert body["status"] == "waiting" and body["pause"]["id"] != pause.id, body
        assert door.effects() == 1  # this client's approved charge, and nothing of the stranger's
        assert door.rows("SELECT status FROM threads_interrupt WHERE id = ?", (body["pause"]["id"],)) == [("open",)]
        return
    assert door.effects() == 0 and door.pause_row(pause.id)["status"] == "open"


EDITS = {
    "mcp-2025-11-25": NO_TOKEN, "mcp-2026-07-28": NO_TOKEN, "mcp-stdio": NO_TOKEN,
    "langchain": "the middleware's interrupt offers approve and reject only: nothing edits its call",
    "langgraph-api": "a command.resume holds no token: it answers what waits now, which after an edit is the "
                     "edited call; see the test below",
}


@pytest.mark.parametrize("door", doors(EDITS), indirect=True)
def test_an_answer_with_the_token_of_a_call_since_edited_changes_nothing(door):
    """An edit closes the pause as ``edited`` and opens a new one with a new token: the old one's is stale."""
    pause = door.propose()
    if door.id == "agui":  # the person's own edit: editedArgs, a full replacement of the arguments
        edited = as_answer(door.tab().run(resume=[entry(pause.shown, {"editedArgs": {"order_id": "4411",
                                                                                    "amount": 30}})], keep=False))
        assert edited.taken, edited.body
    elif door.id == "langgraph":  # the graph's own edit decision
        edited_response = door.resume(pause, "edit", answer={"args": {"order_id": "4411", "amount": 30}})
        assert edited_response.status_code == 200, edited_response.text
    elif door.id in IN_PROCESS:
        said = door.console_post(f"/admin/threads/interrupt/{pause.id}/edit/",
                                 {"arg:amount": "30", "token": pause.token})
        assert said.startswith("Edited"), said
    else:  # a staff member edits the call in the console
        said = door.estate.staff().edit(pause.id, {"amount": "30"})  # type: ignore[attr-defined]
        assert said.startswith("Edited"), said
    assert door.pause_row(pause.id)["status"] == "edited"
    late = door.answer(pause, door.decisions["approve"], token=pause.token)
    assert not late.taken and late.code == "interrupt_stale", late.body
    assert door.effects() == 0
    successors = [status for pid, status in door.thread_pauses(pause.id) if pid != pause.id]
    assert successors == ["open"]  # the edited call waits, as a new proposal


EDITED = {"order_id": "4411", "amount": 30}


def test_an_agent_server_answer_after_an_edit_runs_the_edited_call_and_never_the_one_before(fresh: Estate):
    """The Agent Server API's cell of the edit: its answer names no pause, so no token of the call before the
    edit can be sent. An ``edit`` decision closes the pause as ``edited`` and opens one for the edited call
    (the graph still waits); the next ``approve`` answers that one: the edited call runs, once, and the call
    as first proposed never does; the same approve again is stale."""
    door = AgentServerDoor(fresh)
    try:
        pause = door.propose()
        edit = door.command(approve_or_reject("edit", edited_action={"name": "charge_card", "args": EDITED}))
        assert edit.status_code == 200, edit.text
        assert door.pause_row(pause.id)["status"] == "edited" and door.effects() == 0
        (successor,) = door.open_pauses()
        approved = door.answer(pause, door.decisions["approve"])
        assert approved.taken and approved.outcome == "done", approved.body
        assert [c["amount"] for c in shop.charges("4411")] == ["30.00"]
        assert door.pause_row(successor)["status"] == "answered"
        again = door.answer(pause, door.decisions["approve"])
        assert not again.taken and again.code == "interrupt_stale", again.body
        assert door.effects() == 1
    finally:
        door.close()
