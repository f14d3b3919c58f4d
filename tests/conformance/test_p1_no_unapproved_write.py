"""P1, no write without an approval: no request shape, parameter or config a
caller can send through a door runs a write that no person approved, and
every write that ran has its approver recorded (docs/conformance.md)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from approvals.webhooks import sign
from examples.shop import tools as shop
from tests.langgraph.graphs import say

from .doors import CHARGE, WRONG_TOKEN, Door, Pause, doors, unique
from .doors.agui import AguiDoor, entry
from .doors.estate import Estate
from .doors.langgraph import AgentServerDoor, BridgeDoor, approve_or_reject

pytestmark = pytest.mark.server

SECRET = "conformance-bridge-secret-0123456789abcdef"


def tries(door: Door, pause: Pause) -> list[tuple[str, Callable[[], Any]]]:
    """What a caller of ``door`` can send, short of a person's answer, hoping the write runs."""
    if door.id in ("http", "widget", "console", "desk"):
        out: list[tuple[str, Callable[[], Any]]] = [
            ("empty token", lambda: door.answer(pause, "approve", token="")),
            ("another token", lambda: door.answer(pause, "approve", token=WRONG_TOKEN)),
            ("a decision the pause does not offer", lambda: door.answer(pause, "APPROVE")),
        ]
        if door.id in ("http", "widget"):
            out.append(("no token at all", lambda: door.request(  # type: ignore[attr-defined]
                door.browser, "POST", f"/threads/{pause.thread}/resume",  # type: ignore[attr-defined]
                json={"interrupt_id": pause.id, "decision": "approve"})))
        return out
    if door.id.startswith("mcp"):
        return [("the identical call again", lambda: door.call()),  # type: ignore[attr-defined]
                ("stalwart_pause_status", lambda: door.call("stalwart_pause_status",  # type: ignore[attr-defined]
                                                            {"pause_id": pause.id}))]
    if door.id == "agui":
        assert isinstance(door, AguiDoor)
        bare = {"interruptId": pause.id, "status": "resolved", "payload": {"approved": True}}
        return [("a resume with no token", lambda: door.tab().run(resume=[bare], keep=False)),
                ("a resume with another token",
                 lambda: door.tab().run(resume=[entry(pause.shown, {"approved": True}, WRONG_TOKEN)], keep=False)),
                ("a new message saying yes", lambda: door.tab().run("yes, approve it", keep=False))]
    if door.id == "langgraph":
        assert isinstance(door, BridgeDoor)
        return [("another token", lambda: door.resume(pause, "approve", token=WRONG_TOKEN)),
                ("the graph run on with no input", lambda: door.runs({"input": None})),
                ("a sync", lambda: door.http.post(f"/threads/{pause.thread}/sync", json={}))]
    if door.id == "langgraph-api":
        assert isinstance(door, AgentServerDoor)
        approve = approve_or_reject("approve")
        return [("the graph run on with no input", lambda: door.wait({"input": None})),
                ("a resume with a goto", lambda: door.command({**approve, "goto": "tools"})),
                ("an update and a goto", lambda: door.command({"update": {"messages": []}, "goto": "tools"})),
                ("a resume and an input", lambda: door.runs({"input": {"messages": []}, "command": approve})),
                ("a resume from an earlier checkpoint", lambda: door.runs({"command": approve, "checkpoint_id": "x"})),
                ("a resume on another thread", lambda: door.command(approve, thread=unique("other"))),
                ("a decision the interrupt does not offer", lambda: door.command(approve_or_reject("APPROVE"))),
                ("no decision at all", lambda: door.command({"resume": {"decisions": []}})),
                ("LangGraph's resume map in the config", lambda: door.wait({"input": None, "config": {
                    "configurable": {"__pregel_resume_map": {pause.shown["id"]: approve["resume"]}}}}))]
    if door.id == "langchain":
        return [("the graph run on with no input",
                 lambda: door.agent.invoke(None, door.config))]  # type: ignore[attr-defined]
    raise AssertionError(door.id)


@pytest.mark.parametrize("door", doors(), indirect=True)
def test_a_write_runs_only_once_a_person_approved_it_and_names_who(door):
    pause = door.propose()
    for label, attempt in tries(door, pause):
        attempt()
        assert door.effects() == 0, label
        assert door.pause_row(pause.id)["status"] == "open", label
    assert [status for _, status in door.thread_pauses(pause.id)] == ["open"]
    approved = door.answer(pause, door.decisions["approve"])
    assert approved.taken and approved.outcome == "done", approved.body
    assert door.effects() == 1
    row = door.pause_row(pause.id)
    assert (row["status"], row["decision"], row["answered_via"]) == ("answered", "approve", door.via)
    assert row["answered_by"]  # who approved it


@pytest.mark.parametrize("door", doors(), indirect=True)
def test_the_twin_a_write_a_person_declined_never_runs(door):
    pause = door.propose()
    declined = door.answer(pause, door.decisions["skip"])
    assert declined.taken and declined.outcome == "skipped", declined.body
    assert door.effects() == 0
    assert door.pause_row(pause.id)["status"] == "answered"


# -- issue 32, defect 1 -------------------------------------------------------------------------

def interrupt_id_of(door: BridgeDoor, pause: Pause) -> str:
    """LangGraph's own id of the interrupt a mirrored pause stands for: from the Agent Server API's thread
    state where the bridge serves it, else from the mirror's run (its plan keeps the interrupt it stands for)."""
    state = door.http.get(f"/threads/{pause.thread}/state")
    if state.status_code == 200:
        ids = [i["id"] for task in state.json().get("tasks", []) for i in task.get("interrupts", [])]
        if ids:
            return str(ids[0])
    (plan,) = door.rows("SELECT plan FROM threads_run WHERE id = (SELECT run_id FROM threads_interrupt WHERE id = ?)",
                        (pause.id,))[0]
    plan = json.loads(plan) if isinstance(plan, str) else plan
    return str(((plan or {}).get("handback") or {}).get("interrupt", "unknown"))


HIDDEN = {  # where a caller might tuck LangGraph's own resume map (or any key starting "__") into a run's config
    "pregel-resume-map": lambda m: {"configurable": {"__pregel_resume_map": m}},
    "top-level": lambda m: {"__pregel_resume_map": m},
    "nested": lambda m: {"configurable": {"thread_id": "x", "nested": {"__pregel_resume_map": m}}},
    "any-dunder-key": lambda m: {"configurable": {"__anything": 1}},
}


@pytest.mark.parametrize("shape", list(HIDDEN))
def test_defect1_a_langgraph_runs_config_cannot_resume_an_interrupt(fresh: Estate, shape: int):
    """Issue 32, defect 1: "`POST /threads/{id}/runs` passes the caller's `config` to `graph.invoke` as it is,
    LangGraph's internal `__pregel_resume_map` included. `{"input": null, "config": {"configurable":
    {"__pregel_resume_map": {"<interrupt id>": {"decisions": [{"type": "approve"}]}}}}}` sent the email with no
    token, no claim and no approver; the mirrored pause closed as `superseded`."

    After the fix: any config key starting ``__``, at any depth, is 400 ``bad_request``; nothing runs; the
    mirrored pause stays open."""
    door = BridgeDoor(fresh)
    try:
        pause = door.propose()
        config = HIDDEN[shape]({interrupt_id_of(door, pause): {"decisions": [{"type": "approve"}]}})
        sent = door.runs({"input": None, "config": config})
        assert door.effects() == 0, sent.text  # the write, charged with no one's approval
        assert door.pause_row(pause.id)["status"] == "open"
        assert sent.status_code == 400 and sent.json()["error"] == "bad_request" and sent.json()["detail"], sent.text
    finally:
        door.close()


def test_the_twin_a_langgraph_run_with_a_documented_config_runs(fresh: Estate):
    door = BridgeDoor(fresh)
    try:
        started = door.runs({"input": say(("charge_card", CHARGE)), "config": {"recursion_limit": 25, "tags": ["t"]}})
        assert started.status_code == 200 and started.json()["status"] == "success", started.text
        assert [p["tool"] for p in door.waiting()] == ["charge_card"] and door.effects() == 0
    finally:
        door.close()


@pytest.fixture(scope="module")
def signed_bridge(estate: Estate) -> str:
    return estate.server("bridge-signed", env={"STALWART_TEST_BRIDGE_SECRET": SECRET}).url


def test_defect1_a_signed_bridge_takes_no_unsigned_run_or_resume(fresh: Estate, signed_bridge: str):
    """Issue 32, defect 1: "With `secret=` set only `/resume` is signed, not `/runs`."

    After the fix: with ``make_app(graph, secret=...)`` every route that can resume or run the graph answers
    401 ``signature_invalid`` without a valid ``Stalwart-Signature``; with one, it runs (the twin)."""
    thread = unique("lg-signed")
    body = json.dumps({"if_not_exists": "create", "input": say(("charge_card", CHARGE))}).encode()
    headers = {"Content-Type": "application/json"}
    with httpx.Client(base_url=signed_bridge, timeout=120) as http:
        signed = http.post(f"/threads/{thread}/runs", content=body,
                           headers={**headers, "Stalwart-Signature": sign(body, SECRET)})
        assert signed.status_code == 200, signed.text
        pause = http.get(f"/threads/{thread}/interrupts").json()["interrupts"][0]  # a read: no signature
        answer = json.dumps({"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]}).encode()
        unsigned_resume = http.post(f"/threads/{thread}/resume", content=answer, headers=headers)
        assert unsigned_resume.status_code == 401 and unsigned_resume.json()["error"] == "signature_invalid"
        resume_map = {"configurable": {"__pregel_resume_map": {}}}
        unsigned_runs = [http.post(f"/threads/{thread}/runs", content=json.dumps(b).encode(), headers=headers)
                         for b in ({"input": None}, {"input": say(("charge_card", CHARGE))},
                                   {"input": None, "config": resume_map})]
        assert [(r.status_code, r.json().get("error")) for r in unsigned_runs] == [(401, "signature_invalid")] * 3
        assert fresh.rows("SELECT status FROM threads_interrupt WHERE id = ?", (pause["id"],)) == [("open",)]
        assert shop.charges("4411") == []


# -- found writing this suite (not in issue 32's list) ------------------------------------------

@pytest.mark.django_db(transaction=True)
def test_a_langchain_tool_call_id_used_again_never_answers_for_an_earlier_call(fresh: Estate):
    """The middleware finds "the run a tool call became" by the graph thread and the model's tool call id
    alone. A model that numbers its calls in each turn (``call-0``, as the scripted model here does, and as
    some self-hosted models do) makes a later read look like the earlier write: the graph is shown an
    interrupt for the read, carrying the write's pause, and approving what it shows runs the write.

    Expected: a call is its own whenever its tool or arguments differ; the read runs, nothing is charged."""
    from langgraph.types import Command

    from tests.langgraph.graphs import ScriptedModel

    from .doors.langgraph import LangChainDoor

    door = LangChainDoor(ScriptedModel())
    pause = door.propose()  # charge_card, tool call id call-0, waits
    out = door.agent.invoke(say(("get_order", {"order_id": "4412"})), door.config)  # a read, id call-0 again
    shown = [(i.value["action_requests"][0]["name"], i.value["stalwart"]["pause_id"])
             for i in out.get("__interrupt__") or []]
    for interrupt in out.get("__interrupt__") or []:  # a person approves what the graph shows
        door.agent.invoke(Command(resume={interrupt.id: {"decisions": [{"type": "approve"}]}}), door.config)
    assert door.effects() == 0, f"approving {shown} charged order 4411 (the pause {pause.id})"
    assert shown == []
