"""P7, quorum: a policy's quorum cannot be met by one person twice, by the
proposer, or past N by two workers racing (docs/conformance.md,
docs/policies.md).

The shop's servers here serve the shop with a policy of their own (this
module's ``estate``): every ``charge_card`` needs two approvers
(``QUORUM``); the group cases use a second estate whose charges need one
approver of the staff group ``finance`` (``GROUP``); the bridge serves its
graph under the same policies (``make_app(policies=...)``). The other
promises' estate, and so their cases, are untouched.

Each case reads the run store (the pause's ``approvals``, its status and
decision) and the shop's charges, then what the door told its caller, in
its own shape."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from examples.shop import tools as shop

from .doors import IN_PROCESS, Answer, Door, Pause, doors, make_door, unique
from .doors.estate import Estate, Staff
from .doors.races import at_once

pytestmark = pytest.mark.server

QUORUM = [{"name": "two-approvers", "when": {"tool": "charge_card"}, "approvers": {"quorum": 2}}]
GROUP = [{"name": "finance-only", "when": {"tool": "charge_card"}, "approvers": {"quorum": 1, "group": "finance"}}]

CONSOLE_ANSWERED = {"console", "mcp-2025-11-25", "mcp-2026-07-28", "mcp-stdio"}

NO_PROPOSER = "its caller proposes with no name of its own, so no answer of its can be told apart as the proposer's"
NO_PROPOSER_LANGCHAIN = ("the middleware proposes as its agent and answers as the graph's caller: no answer of the "
                         "graph's caller is the proposer's")
ONE_RESUME = ("the graph's caller resumes its own graph thread, which LangGraph runs one resume at a time; the "
              "console's race is the console cell's")
NO_CONSOLE_EDIT = ("the console edits no mirrored call: a graph's call is edited by the graph's caller, whose edit "
                   "starts over with no approvals (tests/langgraph/test_policies.py)")
BY_CONSOLE = "its answers are the console's, whose cell this is (a staff member who edited the call)"

def answer(door: Door, pause: Pause, decision: str, *, worker: int = 0) -> Answer:
    """``door.answer``; an engine error that leaves an in-process door's call as it is (the LangChain
    middleware's, for now) is the answer's refusal with its code."""
    from threads.errors import StalwartError

    try:
        return door.answer(pause, decision, worker=worker)
    except StalwartError as err:
        return Answer(taken=False, code=err.code, body=err.body(), extra={"raised": True})


# -- the estates -----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def estate(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Estate]:
    """The shop's servers with every charge needing two approvers (this module's own data folder)."""
    yield from _estate(tmp_path_factory, "quorum", QUORUM)


@pytest.fixture(scope="module")
def group_estate(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Estate]:
    """The shop's servers with every charge needing one approver of the staff group ``finance``."""
    yield from _estate(tmp_path_factory, "group", GROUP)


def _estate(factory: pytest.TempPathFactory, name: str, policies: list[dict[str, Any]]) -> Iterator[Estate]:
    folder = factory.mktemp(f"conformance-p7-{name}")
    data = folder / "data"
    data.mkdir()
    made = Estate(data, folder, policies=policies)
    try:
        yield made
    finally:
        made.stop()


@pytest.fixture
def group_door(request: pytest.FixtureRequest, group_estate: Estate, monkeypatch: pytest.MonkeyPatch) -> Iterator[Door]:
    monkeypatch.setenv("STALWART_DATA_DIR", str(group_estate.data_dir))
    shop.reset()
    made = make_door(request.param, group_estate)
    try:
        yield made
    finally:
        made.close()


# -- what the run store says -------------------------------------------------------------------------

def approvals(door: Door, pause_id: str) -> dict[str, Any]:
    """The pause's ``approvals`` as the run store keeps them."""
    (found,) = door.rows("SELECT payload FROM threads_interrupt WHERE id = ?", (pause_id,))
    payload = found[0] if isinstance(found[0], dict) else json.loads(found[0])
    return dict(payload.get("approvals") or {})


def given_by(door: Door, pause_id: str) -> list[str]:
    return [g["key"] for g in approvals(door, pause_id).get("given") or []]


def untouched(door: Door, pause_id: str) -> None:
    """Nothing changed: the pause open, no approval counted, nothing charged."""
    assert door.pause_row(pause_id)["status"] == "open"
    assert given_by(door, pause_id) == []
    assert door.effects() == 0


# -- people in the console ---------------------------------------------------------------------------

class People:
    """Staff members of a door's console, each a person of their own: ``answer(i, pause, decision)`` answers
    as the ``i``-th (on worker ``i % 2`` where the door's servers have two; in this process's console for the
    doors that run in it)."""

    def __init__(self, door: Door) -> None:
        self.door = door
        self._made: dict[int, Any] = {}

    def _one(self, i: int) -> Any:
        if i not in self._made:
            if self.door.id in IN_PROCESS:
                from tests.support.staff import make_staff

                self._made[i] = make_staff(unique("ops"))
                self._made[i].raise_request_exception = False  # a console's 500 is its answer, as over HTTP
            else:
                estate: Estate = self.door.estate  # type: ignore[attr-defined]
                server = "bridge" if self.door.id.startswith("langgraph") else ("main", "second")[i % 2]
                self._made[i] = Staff(estate.server(server).url, estate.data_dir)
        return self._made[i]

    def answer(self, i: int, pause: Pause, decision: str) -> Answer:
        """The ``i``-th person's answer on the pause's page; the message after, as an ``Answer``."""
        from .doors.http import console_answer, read_only

        made = self._one(i)
        if isinstance(made, Staff):
            page = made.page(pause.id)
        else:
            page = made.get(f"/admin/threads/interrupt/{pause.id}/change/").content.decode()
        why = read_only(page)
        if why:  # the page offers this person no answer, and says why: the console's refusal
            return Answer(taken=False, code="not_offered", body=why)
        shown = re.search(r'name="token" value="([0-9a-f]+)"', page)
        if isinstance(made, Staff):
            return console_answer(made.answer(pause.id, decision, token=shown.group(1) if shown else ""))
        from tests.support.staff import csrf

        from .doors.estate import messages_of

        response = made.post(f"/admin/threads/interrupt/{pause.id}/answer/", {
            "decision": decision, "token": shown.group(1) if shown else "", "csrfmiddlewaretoken": csrf(made)},
            follow=True)
        return console_answer(messages_of(response.content.decode()))

    def close(self) -> None:
        for made in self._made.values():
            if isinstance(made, Staff):
                made.close()


@pytest.fixture
def people(door: Door) -> Iterator[People]:
    made = People(door)
    try:
        yield made
    finally:
        made.close()


# -- what the door told its caller -------------------------------------------------------------------

def recorded_shape(door: Door, told: Answer, pause: Pause, count: int) -> str:
    """What is missing from the door's answer to an approval short of the quorum ("" when nothing is):
    the pause stays open, and the door says so with the approvals given."""
    if told.extra.get("raised"):
        return "the door's own word for a recorded approval (the engine's ApprovalRecorded left the door's call)"
    body = told.body
    if door.id in ("http", "widget", "langgraph"):
        ok = (told.extra.get("status") == 202 and body.get("status") == "approval_recorded"
              and body.get("interrupt_id") == pause.id and len(body["approvals"]["given"]) == count)
        return "" if ok else f"HTTP 202 approval_recorded with {count} given"
    if door.id == "desk":  # a Reply with .recorded, the pause still waiting
        ok = (body or {}).get("status") == "approval_recorded" and len(body["approvals"]["given"]) == count
        return "" if ok else f"a Reply with .recorded, {count} given"
    if door.id == "console":
        ok = not told.taken and (f"Your approval is recorded: {count} of 2 approvals." in str(told.body)
                                 or f"You approved it; it waits for {2 - count} more." in str(told.body))
        return "" if ok else f"the console's message that the approval was recorded ({told.body!r})"
    if door.id in CONSOLE_ANSWERED:  # the client's identical call: still waiting, with the approvals so far
        said = door.call().structured_content or {}  # type: ignore[attr-defined]
        shown = said.get("pause") or {}
        ok = said.get("status") == "waiting" and shown.get("id") == pause.id and len(
            (shown.get("approvals") or {}).get("given", [])) == count
        return "" if ok else f"the identical call's result: waiting on the pause, its approvals with {count} given"
    if door.id == "agui":
        from .doors.agui import finished

        done = finished(body) if isinstance(body, dict) and "events" in body else None
        interrupts = ((done or {}).get("outcome") or {}).get("interrupts") or []
        ok = [i["id"] for i in interrupts] == [pause.id] and len(
            interrupts[0]["metadata"]["stalwart"].get("approvals", {}).get("given", [])) == count
        return "" if ok else "RUN_FINISHED with the interrupt still pending and metadata.stalwart.approvals"
    if door.id == "langgraph-api":  # the run ended with the graph still interrupted, its approvals so far
        pending = (body or {}).get("__interrupt__") or []
        requests = (pending[0].get("value") or {}).get("action_requests") or [{}] if pending else [{}]
        ok = told.outcome == "waiting" and len((requests[0].get("approvals") or {}).get("given", [])) == count
        return "" if ok else f"the graph still interrupted, its action request's approvals with {count} given"
    if door.id == "langchain":  # the graph interrupted again on the same pause, its approvals so far
        stalwart = _interrupted(told)
        ok = stalwart.get("pause_id") == pause.id and len((stalwart.get("approvals") or {}).get("given", [])) == count
        return "" if ok else f"the graph interrupted again on the pause with stalwart.approvals, {count} given"
    return "the door's word for a recorded approval"


def _interrupted(told: Answer) -> dict[str, Any]:
    """The ``stalwart`` part of the interrupt a LangChain graph's resume ended at (empty when none)."""
    pending = (told.body or {}).get("__interrupt__") if isinstance(told.body, dict) else None
    return dict(pending[0].value.get("stalwart") or {}) if pending else {}


def refused_shape(door: Door, told: Answer, pause: Pause) -> str:
    """What is missing from the door's answer refusing an answer as not an approver's."""
    if told.extra.get("raised"):
        return "the door's own refusal (the engine's NotAnApprover left the door's call)"
    if door.id == "console":
        ok = not told.taken and "Only staff in finance may answer this call." in str(told.body)
        return "" if ok else f"the console's message that this staff member may not answer ({told.body!r})"
    if door.id in CONSOLE_ANSWERED:  # a staff member was refused (the console's cell); the client's call waits
        said = door.call().structured_content or {}  # type: ignore[attr-defined]
        ok = not told.taken and said.get("status") == "waiting" and (said.get("pause") or {}).get("id") == pause.id
        return "" if ok else "the identical call's result: still waiting on the pause"
    if door.id == "langchain":
        ok = not told.taken and _interrupted(told).get("pause_id") == pause.id and bool(
            _interrupted(told).get("not_an_approver"))
        return "" if ok else "the graph interrupted again on the pause with stalwart.not_an_approver"
    ok = not told.taken and told.code == "not_an_approver"
    if door.id in ("http", "widget", "langgraph", "langgraph-api"):
        ok = ok and told.extra.get("status") == 403
    return "" if ok else "the door's not_an_approver"


def door_shapes(door: Door, missing: list[str]) -> None:
    """The door-shape checks of a case, after its run-store checks held."""
    missing = [m for m in missing if m]
    assert not missing, missing


# -- the cases ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("door", doors(), indirect=True)
def test_the_same_person_approving_twice_counts_once_and_nothing_is_sent(door):
    pause = door.propose()
    assert approvals(door, pause.id)["needed"] == 2
    approve = door.decisions["approve"]
    first = answer(door, pause, approve)
    assert len(given_by(door, pause.id)) == 1 and door.effects() == 0, first.body
    second = answer(door, pause, approve)  # the same caller (or the same staff member) again
    assert len(given_by(door, pause.id)) == 1, second.body
    assert door.effects() == 0
    assert door.pause_row(pause.id)["status"] == "open"
    door_shapes(door, [recorded_shape(door, first, pause, 1), recorded_shape(door, second, pause, 1)])


@pytest.mark.parametrize("door", doors({
    "http": NO_PROPOSER, "widget": NO_PROPOSER, "desk": NO_PROPOSER, "agui": NO_PROPOSER,
    "langchain": NO_PROPOSER_LANGCHAIN, "langgraph": NO_CONSOLE_EDIT, "langgraph-api": NO_CONSOLE_EDIT,
}), indirect=True)
def test_a_staff_member_who_edited_the_call_cannot_approve_it(door):
    """The console's proposer: a staff member who edited the call proposed the new one, so they cannot approve
    it (403 not_an_approver, the console's message); another staff member's approval counts."""
    pause = door.propose()
    editor = door.estate.staff()  # type: ignore[attr-defined]
    said = editor.edit(pause.id, {"amount": "30"})
    assert said.startswith("Edited"), said
    (successor,) = [pid for pid, status in door.thread_pauses(pause.id) if status == "open"]
    edited = Pause(id=successor, token="", thread=pause.thread)
    from .doors.http import console_answer, read_only

    why = read_only(editor.page(successor))  # the page offers the editor no answer, and says why
    assert why == "You edited this call, so other people approve it.", why
    refused = console_answer(editor.answer(successor, "approve", token=edited_token(door, successor)))
    untouched(door, successor)
    other = People(door)
    try:
        other.answer(1, edited, "approve")
        assert len(given_by(door, successor)) == 1 and door.effects() == 0
    finally:
        other.close()
    assert refused.body == "You proposed this call, so other people approve it.", refused.body  # the engine's 403
    if door.id != "console":
        door_shapes(door, [refused_shape(door, refused, edited)])


def edited_token(door: Door, pause_id: str) -> str:
    """The token of the edited call, as a page that offers it an answer shows it (another staff member's):
    what the editor would post from a page kept open in another tab."""
    other = door.estate.staff("second")  # type: ignore[attr-defined]
    found = re.search(r'name="token" value="([0-9a-f]+)"', other.page(pause_id))
    assert found, "another staff member's page offers the edited call an answer"
    return found.group(1)


@pytest.mark.parametrize("door_id", ["mcp-2025-11-25", "mcp-2026-07-28"])
def test_an_mcp_client_approving_its_own_call_is_told_it_waits_for_people(door_id, fresh):
    """``mcp: {approver: client}`` (the shop's ``Counter`` agent): the client that proposed the call answers
    its own form with approve; that is no approval: nothing counted, nothing charged, the pause open, and the
    call answered waiting on that pause, no error."""
    import httpx2
    import mcp.types as types
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from tests.e2e.test_mcp_gateway import pause_rows
    from tests.support.mcp import mcp_session

    from .doors.mcp import run

    me, url = unique("client"), f"{fresh.server().url}/mcp/Counter/"

    async def approve(ctx: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"decision": "approve"})

    async def scenario() -> Any:
        if door_id == "mcp-2025-11-25":
            async with mcp_session(url, elicit=approve, name=me) as session:
                return await session.call_tool("charge_card", {"order_id": "4411", "amount": 40})
        async with httpx2.AsyncClient(timeout=httpx2.Timeout(30, read=120)) as http:
            async with Client(streamable_http_client(url, http_client=http), elicitation_callback=approve,
                              client_info=types.Implementation(name=me, version="1")) as client:
                return await client.call_tool("charge_card", {"order_id": "4411", "amount": 40})

    try:
        result: Any = run(scenario())
    except Exception as exc:  # noqa: BLE001 - what the client was told, read below
        result = exc
    door = make_door(door_id, fresh)
    (found,) = pause_rows(fresh.data_dir, me)
    untouched(door, found[0])
    body = getattr(result, "structured_content", None) or {}
    told_waiting = (not getattr(result, "is_error", True) and body.get("status") == "waiting"
                    and (body.get("pause") or {}).get("id") == found[0] and "approvals" in body["pause"])
    door_shapes(door, ["" if told_waiting else f"the held call's answer that it waits for people (waiting on the "
                                               f"pause, its approvals shown), not {str(result)[:200]!r}"])


@pytest.mark.parametrize("door", doors({"langchain": ONE_RESUME}), indirect=True)
def test_two_last_approvals_at_once_run_the_call_once_and_a_third_is_stale(door, people):
    """Quorum 2: a staff member approves first; then the door's caller and another staff member (on the other
    worker where there are two) approve at the same moment. The call runs once, the pause is answered once,
    the loser is told the pause is stale; an approval after that is stale too."""
    pause = door.propose()
    people.answer(0, pause, "approve")
    assert len(given_by(door, pause.id)) == 1 and door.effects() == 0
    approve = door.decisions["approve"]
    at_door, in_console = at_once(lambda: answer(door, pause, approve, worker=0),
                                  lambda: people.answer(1, pause, "approve"),
                                  in_process=door.id in IN_PROCESS)
    assert door.effects() == 1, (at_door, in_console)
    row = door.pause_row(pause.id)
    assert (row["status"], row["decision"]) == ("answered", "approve")
    assert len(given_by(door, pause.id)) == 2
    won = [a for a in (at_door, in_console) if a.taken]
    assert len(won) == 1 and won[0].outcome in ("done", ""), (at_door, in_console)
    lost = next(a for a in (at_door, in_console) if not a.taken)
    assert lost.code == "interrupt_stale", lost.body
    late = people.answer(2, pause, "approve")
    assert not late.taken and late.code == "interrupt_stale", late.body
    assert door.effects() == 1 and len(given_by(door, pause.id)) == 2


@pytest.mark.parametrize("door", doors({"langchain": ONE_RESUME}), indirect=True)
def test_a_skip_and_the_last_approval_at_once_have_one_outcome(door, people):
    """Quorum 2, one approval given: the door's caller skips while another staff member gives the last
    approval. One wins: the skip (nothing charged) or the approval (charged once); the other is stale."""
    pause = door.propose()
    people.answer(0, pause, "approve")
    skip = door.decisions["skip"]
    skipped, approved = at_once(lambda: answer(door, pause, skip, worker=0),
                                lambda: people.answer(1, pause, "approve"),
                                in_process=door.id in IN_PROCESS)
    row = door.pause_row(pause.id)
    assert row["status"] == "answered"
    assert [a.taken for a in (skipped, approved)] in ([True, False], [False, True]), (skipped, approved)
    if skipped.taken:  # recorded in the door's own word where it has one (a mirrored call's "reject")
        assert door.recorded.get(skip, skip) == row["decision"] and door.effects() == 0
        assert approved.code == "interrupt_stale", approved.body
    else:
        assert row["decision"] == "approve" and door.effects() == 1
        assert skipped.code == "interrupt_stale", skipped.body


@pytest.mark.parametrize("group_door", doors(), indirect=True)
def test_an_answer_from_outside_the_group_is_refused_and_changes_nothing(group_door):
    """A policy naming the staff group ``finance``: the door's caller (or a staff member in no group) may not
    approve, nor skip: 403 not_an_approver in the door's shape, and nothing changes."""
    door = group_door
    pause = door.propose()
    assert approvals(door, pause.id)["group"] == "finance"
    told = [answer(door, pause, door.decisions[d]) for d in ("approve", "skip")]
    untouched(door, pause.id)
    assert door.pause_row(pause.id)["decision"] in (None, "")
    door_shapes(door, [refused_shape(door, t, pause) for t in told])
