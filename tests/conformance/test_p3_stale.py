"""P3, stale changes nothing: an answer with a stale, foreign or edited token,
to a pause already answered, or to a pause of another thread or session, is
refused, and nothing changes: no charge, the pause as it was
(docs/conformance.md)."""

from __future__ import annotations

import pytest

from .doors import IN_PROCESS, WRONG_TOKEN, doors, unique
from .doors.agui import AguiDoor, as_answer, entry
from .doors.inprocess import DeskDoor

pytestmark = pytest.mark.server

NO_TOKEN = ("an MCP client is shown no token and answers nothing (docs/mcp.md): its pauses are answered in the "
            "console, whose cell this is")


@pytest.mark.parametrize("door", doors({"mcp-2025-11-25": NO_TOKEN, "mcp-2026-07-28": NO_TOKEN,
                                        "mcp-stdio": NO_TOKEN}), indirect=True)
def test_another_token_and_a_late_answer_change_nothing(door):
    pause = door.propose()
    if door.id == "langchain":  # its caller's resume carries no token: the console answers first, then the graph
        said = door.console_answer(pause.id, "skip")
        assert said.startswith("Answered: Skip."), said
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
    assert (row["status"], row["decision"]) == ("answered", door.decisions["skip"] if door.id != "langchain" else "skip")


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
