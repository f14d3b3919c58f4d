"""P2, once: an approved write is sent once, whatever arrives twice: two
answers at the same moment (on two workers where the door has two), an answer
sent again later, identical proposals at the same moment, a client that dies
before the result reaches it and calls again, a worker killed mid-call
(docs/conformance.md)."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import threading
import time
from typing import Any

import pytest

from examples.shop import tools as shop
from tests.e2e.test_faults import rows
from tests.support.mcp import mcp_session
from tests.support.server import ROOT, Browser

from .doors import CHARGE, IN_PROCESS, SAY, doors, unique
from .doors.agui import as_answer, entry, finished
from .doors.estate import Estate, Staff
from .doors.mcp import run
from .doors.races import HANGING_CHARGE, at_once, faulty_workers, kill

pytestmark = pytest.mark.server

LANGCHAIN_ONE_RESUME = ("the graph's caller answers by resuming its own graph thread, which LangGraph runs one "
                        "resume at a time; the sending once is the next test's (a node run again sends nothing)")


@pytest.mark.parametrize("door", doors({"langchain": LANGCHAIN_ONE_RESUME}), indirect=True)
def test_two_answers_at_once_send_the_write_once(door):
    pause = door.propose()
    approve = door.decisions["approve"]
    workers = (0, 1) if door.workers == 2 else (0, 0)
    answers = at_once(*(lambda w=w: door.answer(pause, approve, worker=w) for w in workers),
                      in_process=door.id in IN_PROCESS)
    assert door.effects() == 1
    taken = [a for a in answers if a.taken]
    assert taken and [a.outcome for a in taken] == ["done"] * len(taken), answers
    assert [a.code for a in answers if not a.taken] in ([], ["interrupt_stale"], ["idempotency_in_progress"]), answers
    if door.id != "agui":  # an identical AG-UI resume is the same request: it replays the first's events
        assert len(taken) == 1, answers
    row = door.pause_row(pause.id)
    assert (row["status"], row["decision"]) == ("answered", "approve")


@pytest.mark.parametrize("door", doors(), indirect=True)
def test_an_answer_sent_again_later_sends_nothing_again(door):
    pause = door.propose()
    first = door.answer(pause, door.decisions["approve"])
    assert first.taken and first.outcome == "done", first.body
    if door.id == "langchain":  # the node LangGraph runs again from the checkpoint before it
        before = next(s for s in door.agent.get_state_history(door.config) if s.next and "tools" in s.next)
        door.agent.invoke(None, before.config)
    else:
        again = door.answer(pause, door.decisions["approve"])
        if door.id == "agui":  # the identical resume: the first's events again
            assert again.taken and again.outcome == "done", again.body
        else:
            assert not again.taken and again.code == "interrupt_stale", again.body
    assert door.effects() == 1
    assert [status for _, status in door.thread_pauses(pause.id)] == ["answered"]


KILLED = {
    "widget": "the widget's answer is the HTTP route's (only its Stalwart-Client label differs): the http cell",
    "console": "a staff answer runs the write through the same engine call as http's on the worker it reached",
    "desk": "the Desk runs in the caller's own process: a killed worker leaves no one to tell",
    "langchain": "the middleware runs in the caller's own process: a killed worker leaves no one to tell",
    "mcp-2026-07-28": "the write runs on the worker whose console took the approval, as in the 2025-11-25 cell",
    "mcp-stdio": "the write runs on the worker whose console took the approval, as in the 2025-11-25 cell",
    "agui": "issue 32's defect 6 is this case: test_defect6_an_agui_resume_whose_worker_died_gets_its_outcome",
    "langgraph": "the graph's own tools run in the team's graph; a bridge killed between its claim and the resume "
                 "is reconciled at its start (tests/langgraph/test_bridge.py)",
    "langgraph-api": "a command.resume is answered through the bridge's own engine call, as the langgraph cell's "
                     "answer is: the graph's tools run in the team's graph, reconciled at the bridge's start",
}


@pytest.mark.parametrize("door_id", doors(KILLED))
def test_a_worker_killed_mid_charge_charges_once_and_the_door_tells_the_outcome(door_id, tmp_path, monkeypatch):
    """The charge applied, its reply held (the shop's ``hang`` fault), the worker SIGKILLed: the other
    worker's sweep verifies it (``charge_card`` declares how) and the door tells the outcome; one charge."""
    with faulty_workers(tmp_path, monkeypatch, HANGING_CHARGE) as (doomed, survivor):
        if door_id == "http":
            browser, thread = Browser(doomed.url), unique("killed")
            pause = browser.say(thread, SAY).json()["waiting"][0]
            answer = lambda: browser.resume(thread, pause, "approve")  # noqa: E731
        else:
            me = unique("client")
            pause = run(_call(doomed.url, me)).structured_content["pause"]
            staff = Staff(doomed.url, doomed.data_dir)
            answer = lambda: staff.answer(pause["id"], "approve")  # noqa: E731
        threading.Thread(target=lambda: _quietly(answer), daemon=True).start()
        _until(lambda: len(shop.charges("4411")) == 1, 30, "the charge never showed")
        kill(doomed)
        killed_at, told, history = time.monotonic(), None, []
        while time.monotonic() - killed_at < 30:
            if door_id == "http":
                browser.client.base_url = survivor.url  # type: ignore[assignment]
                told = browser.request("GET", f"/threads/{thread}/interrupts").json()["interrupts"]
                if not told and _run_status(survivor.data_dir, pause["id"]) == "done":
                    break
            else:
                told = run(_call(survivor.url, me)).structured_content  # the identical call
                history.append(told)
                if told.get("status") != "waiting":
                    break
            time.sleep(0.5)
        assert len(shop.charges("4411")) == 1
        if door_id == "http":
            assert told == [] and _run_status(survivor.data_dir, pause["id"]) == "done", survivor.log()[-2000:]
        else:
            pauses = rows(survivor.data_dir, "SELECT id, status FROM threads_interrupt WHERE thread_id = (SELECT "
                                             "thread_id FROM threads_interrupt WHERE id = ?)", (pause["id"],))
            # the charge's own reply was lost with the worker: the result is the sweep's verification of it
            assert told.get("charge_id") == "ch-4411" or "reconciled" in told, (pause["id"], history, pauses)
            assert pauses == [(pause["id"], "answered")], pauses


def _run_status(data_dir: Any, pause_id: str) -> str:
    found = rows(data_dir, "SELECT status FROM threads_run WHERE id = "
                           "(SELECT run_id FROM threads_interrupt WHERE id = ?)", (pause_id,))
    return str(found[0][0]) if found else ""


async def _call(url: str, me: str) -> Any:
    async with mcp_session(f"{url}/mcp/", name=me) as session:
        return await session.call_tool("charge_card", CHARGE)


def _quietly(call: Any) -> None:
    try:
        call()
    except Exception:  # noqa: BLE001 - the worker died under it: the caller never hears back
        pass


def _until(check: Any, seconds: float, why: str) -> None:
    deadline = time.monotonic() + seconds
    while not check() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert check(), why


# -- issue 32, defects 2, 3 and 6 ---------------------------------------------------------------

def client_process(url: str, me: str) -> subprocess.Popen[str]:
    """``doors/mcp_client.py``: a 2025-11-25 MCP client in a process of its own calling charge_card."""
    return subprocess.Popen([sys.executable, "-m", "tests.conformance.doors.mcp_client", f"{url}/mcp/", me,
                             "charge_card", json.dumps(CHARGE)], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)


def first_line(process: subprocess.Popen[str], prefix: str, seconds: float) -> str:
    """The first line of ``process``'s output starting ``prefix`` (within ``seconds``)."""
    found: list[str] = []

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            if line.startswith(prefix):
                found.append(line[len(prefix):].strip())
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout=seconds)
    assert found, f"no {prefix!r} line within {seconds} s"
    return found[0]


def test_defect2_a_killed_mcp_client_that_calls_again_gets_the_one_charge(fresh: Estate):
    """Issue 32, defect 2: "A 2025-11-25 client SIGKILLed while its write was held: the console approved it, the
    server marked the `McpCall` delivered into the dead stream, and the identical call, repeated as docs/mcp.md
    says, opened a new pause whose approval sent a second receipt (2 of 2 tries, PostgreSQL and SQLite)."

    After the fix: a result counts as delivered only once the client's transport took it, so the identical
    call from a new client process (same name) gets the charge, and no second pause opens."""
    me = unique("client")
    holder = fresh.server("held")  # holds the call for ten seconds
    doomed = client_process(holder.url, me)
    try:
        pause_id = re.search(r"p-[0-9a-f]+", first_line(doomed, "PROGRESS ", 30)).group(0)  # type: ignore[union-attr]
    finally:
        doomed.kill()  # SIGKILL, mid-call
        doomed.wait()
    said = fresh.staff("held").answer(pause_id, "approve")
    assert said.startswith("Answered: Approve."), said
    again = client_process(fresh.server().url, me)  # a new client process, the same name, the identical call
    try:
        result = json.loads(first_line(again, "RESULT ", 60))
    finally:
        again.kill()
        again.wait()
    assert len(shop.charges("4411")) == 1
    pauses = fresh.rows("SELECT id, status FROM threads_interrupt WHERE thread_id = "
                        "(SELECT thread_id FROM threads_interrupt WHERE id = ?) ORDER BY created_at", (pause_id,))
    assert result.get("charge_id") == "ch-4411", (result, pauses)
    assert pauses == [(pause_id, "answered")]


ROUNDS = 5


def test_defect3_two_identical_mcp_calls_at_once_make_one_pause_and_one_charge(fresh: Estate):
    """Issue 32, defect 3: "Two identical MCP calls at the same moment make two pauses and two sends (medium).
    Same key and client name, one call per worker: `call_start` looks for an earlier call, then proposes, with
    no lock; `McpCall` has no unique constraint."

    After the fix: the two calls (one per worker, the same client name) make one pause; its approval charges
    once, and each caller is told the charge (or, at worst, waiting on that one pause). A few rounds."""
    urls = [fresh.server("held").url, fresh.server("held2").url]
    staff = fresh.staff("held")
    for round_ in range(ROUNDS):
        shop.reset()
        ids, pauses, outcomes = identical_calls_at_once(fresh, urls, staff, unique(f"twin{round_}"))
        assert len(ids) == 1 and len(pauses) == 1, f"round {round_}: {pauses}, {outcomes}"
        assert len(shop.charges("4411")) == 1, f"round {round_}"
        assert "ch-4411" in outcomes and set(outcomes) <= {"ch-4411", "waiting"}, f"round {round_}: {outcomes}"


def identical_calls_at_once(estate: Estate, urls: list[str], staff: Staff,
                            me: str) -> tuple[set[str], list[Any], list[Any]]:
    """The identical charge_card call from client ``me`` to each of ``urls`` at the same moment, held; the first
    pause approved in the console: (the pause ids the calls were held on, the thread's pauses, what each was told)."""
    told: list[list[str]] = [[], []]
    results: list[Any] = [None, None]
    barrier = threading.Barrier(2)  # passed once both sessions are initialised: the two calls leave together

    async def call(i: int) -> Any:
        async def noted(done: float, total: float | None, message: str | None) -> None:
            told[i].append(message or "")

        async with mcp_session(f"{urls[i]}/mcp/", name=me) as session:
            await asyncio.to_thread(barrier.wait, 30)
            return await session.call_tool("charge_card", CHARGE, progress_callback=noted)

    def caller(i: int) -> None:
        results[i] = run(call(i))

    threads = [threading.Thread(target=caller, args=(i,), daemon=True) for i in (0, 1)]
    for t in threads:
        t.start()
    _until(lambda: all(told), 15, "a call was never held")
    time.sleep(0.5)  # the other call's pause, if it makes one
    ids = {re.search(r"p-[0-9a-f]+", t[0]).group(0) for t in told}  # type: ignore[union-attr]
    staff.answer(sorted(ids)[0], "approve")
    for t in threads:
        t.join(timeout=60)
    pauses = estate.rows("SELECT id, status FROM threads_interrupt WHERE thread_id IN "
                         "(SELECT thread_id FROM threads_interrupt WHERE id = ?)", (sorted(ids)[0],))
    outcomes = [r.structured_content.get("charge_id") or r.structured_content.get("status") for r in results]
    return ids, pauses, outcomes


def test_defect6_an_agui_resume_whose_worker_died_gets_its_outcome(fresh: Estate, tmp_path, monkeypatch):
    """Issue 32, defect 6: "An AG-UI resume whose worker was killed mid-call answers `idempotency_in_progress`
    ("try again in a moment") forever on the other worker, before and after the sweep."

    After the fix: within a few lease periods (2 s here) the identical resume, sent to the other worker, gets
    the run's outcome (the charge, verified by the sweep), and the shop holds one charge."""
    from tests.agui.test_agui import Client

    driver = fresh.agui_driver()
    with faulty_workers(tmp_path, monkeypatch, HANGING_CHARGE) as (doomed, survivor):
        page = Client(driver, doomed.url)
        interrupt = finished(page.run(SAY))["outcome"]["interrupts"][0]  # type: ignore[index]
        resume = [entry(interrupt, {"decision": "approve"})]
        threading.Thread(target=lambda: _quietly(lambda: page.run(resume=resume, keep=False)), daemon=True).start()
        _until(lambda: len(shop.charges("4411")) == 1, 30, "the charge never showed")
        kill(doomed)
        other = Client(driver, survivor.url, thread=page.thread, session=page.session)
        other.messages, other.pending = list(page.messages), [interrupt]
        deadline, answer = time.monotonic() + 30, None
        while time.monotonic() < deadline:
            answer = as_answer(other.run(resume=resume, keep=False))
            if answer.code != "idempotency_in_progress":
                break
            time.sleep(1)
        assert answer is not None and answer.code != "idempotency_in_progress", "still in progress after 30 s"
        assert answer.taken and answer.outcome == "done", answer.body
        assert len(shop.charges("4411")) == 1
