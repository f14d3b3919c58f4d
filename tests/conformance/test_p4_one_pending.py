"""P4, one pending: new input while a pause is open is refused atomically
(AG-UI's rule), or, where a door's contract is that a new turn supersedes
what waits (the HTTP API, the widget, the Desk, the LangGraph bridge), the
supersede is atomic against a racing answer: one way only, never both
(docs/conformance.md)."""

from __future__ import annotations

import pytest

from examples.shop import tools as shop
from tests.langgraph.graphs import say

from .doors import IN_PROCESS, SAY, doors, unique
from .doors.agui import AguiDoor, events_of, finished, run_error
from .doors.estate import Estate
from .doors.races import at_once

pytestmark = pytest.mark.server

SUPERSEDES = "a new turn supersedes what waits by contract (docs/http-api.md): see the atomic supersede test"
REFUSED = {
    "http": SUPERSEDES, "widget": SUPERSEDES,
    "desk": "the Desk's say() is the HTTP turn: a new turn supersedes what waits (docs/http-api.md)",
    "console": "staff answer pauses in the console; they write no turns",
    "mcp-2025-11-25": "a tools/call is a run of its own and supersedes nothing (docs/mcp.md): see the test below",
    "mcp-2026-07-28": "a tools/call is a run of its own and supersedes nothing (docs/mcp.md): see the test below",
    "mcp-stdio": "a tools/call is a run of its own and supersedes nothing (docs/mcp.md): see the test below",
    "langgraph": "the bridge runs the team's graph as LangGraph does: new input drops the pending interrupt and "
                 "its mirror closes superseded (docs/langgraph.md); see the atomic supersede test",
    "langgraph-api": "a run's input goes through the bridge: new input drops the pending interrupt and its mirror "
                     "closes superseded (docs/langgraph.md); see the atomic supersede test",
}


@pytest.mark.parametrize("door", doors(REFUSED), indirect=True)
def test_new_input_while_a_pause_waits_is_refused_and_the_pause_stays_answerable(door):
    pause = door.propose()
    if door.id == "agui":
        assert isinstance(door, AguiDoor)
        tab = door.tab()
        tab.pending = []  # another tab, which never saw the interrupt (HttpAgent itself holds back while it does)
        told = tab.run("show order 4412", keep=False)
        error = run_error(told)
        assert error is not None and error["code"] == "pending_interrupts", told["events"]
        assert door.pause_row(pause.id)["status"] == "open"
    else:  # langchain: the graph's caller writes again; LangGraph drops the interrupt it was waiting on
        door.agent.invoke(say(("get_order", {"order_id": "4412"})), door.config)  # type: ignore[attr-defined]
        # The pause the graph no longer waits on must not stay open for someone to approve later.
        assert door.pause_row(pause.id)["status"] != "open", "the graph went on; its pause still waits in the console"
    approved = door.answer(pause, door.decisions["approve"])
    assert door.effects() == (1 if door.id == "agui" else 0), approved.body


ONE_WAY = {
    "console": "staff write no turns",
    "agui": "AG-UI refuses new input while a pause is open (the test above; issue 32's defect 4 below)",
    "mcp-2025-11-25": REFUSED["mcp-2025-11-25"], "mcp-2026-07-28": REFUSED["mcp-2026-07-28"],
    "mcp-stdio": REFUSED["mcp-stdio"],
    "langchain": "the graph's caller drives its own graph one step at a time: it cannot resume and write at once",
}
ROUNDS = 3


@pytest.mark.parametrize("door", doors(ONE_WAY), indirect=True)
def test_a_new_turn_and_an_answer_at_once_end_one_way(door):
    """The answer on one worker and a new turn on the other, at the same moment: either the answer won (one
    charge, the pause answered) or the turn did (the pause superseded, the answer refused stale, no charge)."""
    outcomes = [answer_and_turn(door, round_) for round_ in range(ROUNDS)]
    assert len(outcomes) == ROUNDS


def answer_and_turn(door, round_: int) -> str:  # type: ignore[no-untyped-def]
    shop.reset()
    door.thread = unique(door.id)
    pause = door.propose()
    workers = (0, 1) if door.workers == 2 else (0, 0)
    answered, _turned = at_once(lambda: door.answer(pause, door.decisions["approve"], worker=workers[0]),
                                lambda: new_turn(door, workers[1]), in_process=door.id in IN_PROCESS)
    status = door.pause_row(pause.id)["status"]
    if answered.taken:
        assert (status, door.effects()) == ("answered", 1), f"round {round_}: {answered.body}"
        return "answer won"
    assert answered.code == "interrupt_stale", f"round {round_}: {answered.body}"
    assert (status, door.effects()) == ("superseded", 0), f"round {round_}"
    return "turn won"


def new_turn(door, worker: int) -> None:  # type: ignore[no-untyped-def]
    if door.id in ("http", "widget"):
        browser = door.browser_for(worker, door.browser.session)
        try:
            assert door.say("show order 4412", browser=browser).status_code == 200
        finally:
            browser.close()
    elif door.id == "desk":
        door.desk.say(door.thread, "show order 4412")
    else:  # the bridge, or the Agent Server API over it: the graph run on new input
        assert door.runs({"input": say(("get_order", {"order_id": "4412"}))}).status_code in (200, 409)


@pytest.mark.parametrize("door", doors(only=["mcp-2025-11-25", "mcp-2026-07-28", "mcp-stdio"]), indirect=True)
def test_an_mcp_call_while_a_pause_waits_runs_as_its_own_and_leaves_the_pause_open(door):
    pause = door.propose()
    read = door.call("get_order", {"order_id": "4412"})  # type: ignore[attr-defined]
    assert not read.is_error and read.structured_content["status"] == "paid"
    assert door.pause_row(pause.id)["status"] == "open" and door.effects() == 0


# -- issue 32, defect 4 -------------------------------------------------------------------------

TABS = 6


def test_defect4_two_agui_tabs_writing_at_once_get_one_run_and_one_pending_interrupts(fresh: Estate):
    """Issue 32, defect 4: "Two writes sent to one thread at the same moment were both accepted in 6 of 10 rounds
    (PostgreSQL) and 2 of 6 (SQLite); one tab's pause was closed `superseded` while that tab had been told
    `RUN_FINISHED` with it."

    After the fix: the two writes (other message ids, the same session and thread, one tab per worker) give one
    run, which pauses, and one ``RUN_ERROR`` ``pending_interrupts``; no pause closes superseded. Six rounds."""
    for round_ in range(TABS):
        shop.reset()
        seen, statuses = two_tabs_at_once(AguiDoor(fresh), fresh)
        assert "superseded" not in statuses, f"round {round_}: {seen}, {statuses}"
        assert seen == ["interrupt", "pending_interrupts"] and statuses == ["open"], f"round {round_}: {seen}"


def two_tabs_at_once(door: AguiDoor, estate: Estate) -> tuple[list[str], list[str]]:
    """Two tabs of one page (one per worker) each send a write at the same moment: what each was told, sorted
    (``interrupt``, or its ``RUN_ERROR``'s code), and the statuses of the thread's pauses. Each tab's request
    is the ``RunAgentInput`` its ``HttpAgent`` sends, as a plain POST: a Node process per tab would start
    a few hundred milliseconds apart, wider than the race."""
    def body(text: str) -> dict[str, object]:
        return {"threadId": door.page.thread, "runId": unique("r"), "state": {}, "tools": [], "context": [],
                "forwardedProps": {}, "messages": [{"id": unique("u"), "role": "user", "content": text}]}

    told = at_once(lambda: door.post(body(SAY), worker=0), lambda: door.post(body("charge 99.90 to order 5001"),
                                                                           worker=1))
    seen = []
    for response in told:
        events = events_of(response) if response.status_code == 200 else []
        done = finished({"events": events}) or {}
        seen.append("interrupt" if done.get("outcome", {}).get("type") == "interrupt"
                    else (run_error({"events": events}) or {}).get("code", str(response.status_code)))
    statuses = sorted(s for (s,) in estate.rows("SELECT status FROM threads_interrupt WHERE thread_id LIKE ?",
                                                (f"{door.page.thread}%",)))
    return sorted(seen), statuses
