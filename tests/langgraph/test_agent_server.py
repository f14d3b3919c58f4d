"""The Agent Server API through Django (doors.langgraph.api, in the URLconf make_app serves),
over examples/langgraph/inbox.py's graph, which asks with Agent Inbox's HumanInterrupt: each
HumanResponse type does what it says once, a second answer is 409 and changes nothing, the
console's answer reaches the graph as a HumanResponse, the allow_* flags are the pause's choices,
keys say who may call, and hostile bodies are refused in the error shape before anything runs."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from doors.keys import key_create, key_revoke
from doors.langgraph.models import GraphRun, GraphThread, LangGraphKey
from examples.langgraph import inbox
from tests.approvals.test_console import answer, pause_page
from tests.langgraph.lg import handed, served
from tests.support.staff import make_staff
from threads.models import Interrupt

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.urls("stalwart_site.urls_langgraph")]

EMAIL = {"from_email": "ana@example.com", "subject": "Late order", "body": "Where is it?"}
REPLY = {"to": "ana@example.com", "subject": "Re: Late order",
         "body": "Thank you for writing about \u201cLate order\u201d: we are on it."}


@pytest.fixture(autouse=True)
def bridge(bridges_forgotten):  # type: ignore[no-untyped-def]
    inbox.SENT.clear()
    return served(inbox.build())


def post(path: str, body: Any = None, *, raw: bytes | None = None, **headers: str) -> Any:
    content = raw if raw is not None else json.dumps(body if body is not None else {}).encode()
    return Client().post(path, data=content, content_type="application/json", headers=headers)


def get(path: str, **headers: str) -> Any:
    return Client().get(path, headers=headers)


def waiting_thread(metadata: dict[str, Any] | None = None, **headers: str) -> str:
    """A thread made, run on one email, stopped at its HumanInterrupt."""
    made = post("/threads", {"metadata": metadata or {}}, **headers)
    assert made.status_code == 200, made.content
    thread = made.json()["thread_id"]
    ran = post(f"/threads/{thread}/runs/wait", {"assistant_id": "inbox", "input": {"email": EMAIL}}, **headers)
    assert ran.status_code == 200, ran.content
    return str(thread)


def resume(thread: str, response: Any, **headers: str) -> Any:
    return post(f"/threads/{thread}/runs", {"assistant_id": "inbox", "command": {"resume": response}}, **headers)


def said(thread: str) -> list[str]:
    """What the graph's messages say, in order."""
    return [m["content"] for m in get(f"/threads/{thread}").json()["values"]["messages"]]


def pauses(thread: str) -> list[dict[str, Any]]:
    return list(get(f"/threads/{thread}/interrupts").json()["waiting"])


def test_a_run_stops_at_the_human_interrupt_and_every_read_shows_it_in_the_apis_shapes():
    thread = waiting_thread({"inbox": "support"})
    values = post(f"/threads/{thread}/runs/wait", {"input": None}).json()  # a run with no input: nothing new
    [asked] = values["__interrupt__"]
    assert asked["value"][0]["action_request"] == {"action": "send_email", "args": REPLY}
    listed = post("/threads/search", {"status": "interrupted", "metadata": {"inbox": "support"}}).json()
    assert [t["thread_id"] for t in listed] == [thread] and listed[0]["status"] == "interrupted"
    by_graph = post("/threads/search", {"status": "interrupted", "metadata": {"graph_id": "inbox"}}).json()
    assert [t["thread_id"] for t in by_graph] == [thread]  # as LangGraph's server tags a thread a graph ran
    [(task, interrupts)] = listed[0]["interrupts"].items()
    assert interrupts[0]["value"][0]["config"]["allow_edit"] is True
    state = get(f"/threads/{thread}/state").json()
    assert state["next"] == ["review"] and state["tasks"][0]["id"] == task
    assert state["tasks"][0]["interrupts"][0]["value"][0]["description"] == "Send this reply to ana@example.com?"
    assert post("/threads/search", {"status": "idle", "metadata": {"inbox": "support"}}).json() == []
    assert post("/threads/search", {"metadata": {"inbox": "sales"}}).json() == []
    history = post(f"/threads/{thread}/history", {"limit": 2}).json()
    assert len(history) == 2 and history[0]["next"] == ["review"]
    [pause] = pauses(thread)  # mirrored as a pause in the run store, its choices the allow_* flags
    assert (pause["kind"], pause["tool"], pause["choices"]) == ("confirm", "send_email",
                                                                ["approve", "edit", "respond", "skip"])
    assert pause["question"] == "Send this reply to ana@example.com?"
    [assistant] = post("/assistants/search", {}).json()
    assert assistant["graph_id"] == "inbox" and get(f"/assistants/{assistant['assistant_id']}").status_code == 200


def test_accept_sends_the_reply_once_and_a_second_accept_is_409_and_changes_nothing():
    thread = waiting_thread()
    [pause] = pauses(thread)
    run = resume(thread, [{"type": "accept", "args": None}])
    assert run.status_code == 200 and run.json()["status"] == "success", run.content
    assert inbox.SENT == [REPLY] and said(thread)[-1] == "Sent the reply to ana@example.com."
    assert get(f"/threads/{thread}").json()["status"] == "idle"
    again = resume(thread, [{"type": "accept", "args": None}])
    assert (again.status_code, again.json()["error"]) == (409, "interrupt_stale")
    assert inbox.SENT == [REPLY] and said(thread).count("Sent the reply to ana@example.com.") == 1
    stored = Interrupt.objects.get(pk=pause["id"])
    assert (stored.decision, stored.answered_via, stored.answered_by) == ("approve", "langgraph", "langgraph bridge")
    joined = get(f"/threads/{thread}/runs/{run.json()['run_id']}/join").json()
    assert joined["messages"][-1]["content"] == "Sent the reply to ana@example.com." and "__interrupt__" not in joined
    assert get(f"/threads/{thread}/runs/{run.json()['run_id']}").json()["status"] == "success"
    assert GraphRun.objects.filter(thread_id=thread).count() == 2  # the run that stopped, the one that resumed


def test_an_edit_is_a_new_proposal_that_waits_for_its_own_approval_then_the_edited_reply_is_sent():
    thread = waiting_thread()
    edited = {**REPLY, "to": "bia@example.com"}
    run = resume(thread, [{"type": "edit", "args": {"action": "send_email", "args": edited}}])
    assert run.status_code == 200, run.content
    assert inbox.SENT == [] and get(f"/threads/{thread}").json()["status"] == "interrupted"
    [pause] = pauses(thread)
    assert {a["name"]: a["value"] for a in pause["arguments"]}["to"] == "bia@example.com"
    # What every reader is shown is the call that waits now, not the graph's first draft.
    [interrupts] = get(f"/threads/{thread}").json()["interrupts"].values()
    assert interrupts[0]["value"][0]["action_request"]["args"] == edited
    assert get(f"/threads/{thread}/state").json()["interrupts"][0]["value"][0]["action_request"]["args"] == edited
    # An accept of what was shown before the edit approves nothing.
    stale = resume(thread, [{"type": "accept", "args": {"action": "send_email", "args": REPLY}}])
    assert (stale.status_code, stale.json()["error"]) == (409, "interrupt_stale") and inbox.SENT == []
    done = resume(thread, [{"type": "accept", "args": {"action": "send_email", "args": edited}}])
    assert done.status_code == 200, done.content
    assert inbox.SENT == [edited] and said(thread)[-1] == "Sent the edited reply to bia@example.com."


def test_an_edit_naming_another_tool_is_refused_and_nothing_changes():
    thread = waiting_thread()
    [pause] = pauses(thread)
    refused = resume(thread, [{"type": "edit", "args": {"action": "delete_mailbox", "args": {}}}])
    assert (refused.status_code, refused.json()["error"]) == (422, "invalid_answer")
    assert pauses(thread) == [pause] and inbox.SENT == []


def test_a_response_carries_its_text_and_ignore_leaves_it_neither_sends():
    noted, left = waiting_thread(), waiting_thread()
    assert resume(noted, [{"type": "response", "args": "Ask them for the order number."}]).status_code == 200
    assert said(noted)[-2:] == ["Ask them for the order number.", "Noted: the reply was not sent."]
    assert resume(left, [{"type": "ignore", "args": None}]).status_code == 200
    assert said(left)[-1] == "Left without a reply." and inbox.SENT == []
    assert Interrupt.objects.filter(decision="skip").count() == 1


def test_an_answer_in_the_console_reaches_the_graph_as_a_human_response(bridge):
    thread = waiting_thread()
    given = handed(bridge)
    [pause] = pauses(thread)
    staff = make_staff()
    page = pause_page(staff, pause["id"])
    done = answer(staff, pause["id"], page, "approve")
    assert done.status_code == 200
    assert [list(g.values()) for g in given] == [[[{"type": "accept", "args": None}]]]
    assert inbox.SENT == [REPLY] and get(f"/threads/{thread}").json()["status"] == "idle"
    late = resume(thread, [{"type": "accept", "args": None}])
    assert (late.status_code, late.json()["error"]) == (409, "interrupt_stale") and inbox.SENT == [REPLY]


def test_the_allow_flags_are_the_choices_and_a_decision_not_offered_is_refused(bridge):
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import END, START, StateGraph
    from langgraph.types import interrupt
    from typing_extensions import TypedDict

    class S(TypedDict, total=False):
        got: Any

    def ask(state: S) -> S:
        return {"got": interrupt({"action_request": {"action": "refund", "args": {"amount": 5}},
                                  "config": {"allow_accept": True, "allow_edit": False, "allow_respond": False,
                                             "allow_ignore": True}, "description": "Refund 5?"})}

    g = StateGraph(S)
    g.add_node("ask", ask)
    g.add_edge(START, "ask")
    g.add_edge("ask", END)
    served(g.compile(checkpointer=InMemorySaver(), name="refunds"))
    post("/threads", {"thread_id": "r-1"})
    post("/threads/r-1/runs/wait", {"input": {}})
    [pause] = pauses("r-1")
    assert pause["choices"] == ["approve", "skip"]
    refused = post("/threads/r-1/runs", {"assistant_id": "refunds", "command": {"resume": {"type": "response",
                                                                                         "args": "no"}}})
    assert (refused.status_code, refused.json()["error"]) == (422, "invalid_decision")
    assert post("/threads/r-1/runs", {"command": {"resume": {"type": "accept", "args": None}}}).status_code == 200
    assert get("/threads/r-1").json()["values"]["got"] == {"type": "accept", "args": None}  # one, not a list


def test_keys_say_who_may_call_and_what_and_who_answered_is_recorded():
    thread = waiting_thread()
    [pause] = pauses(thread)
    reader, read_key = key_create(LangGraphKey, name="reader", privileges=[])
    _inbox, inbox_key = key_create(LangGraphKey, name="agent-inbox", privileges=["answer"])
    assert get(f"/threads/{thread}").status_code == 401  # a key is in force: none is refused, loopback too
    assert get(f"/threads/{thread}", **{"x-api-key": "stw_" + "x" * 43}).status_code == 401
    assert get(f"/threads/{thread}", **{"x-api-key": read_key}).status_code == 200
    refused = resume(thread, [{"type": "accept", "args": None}], **{"x-api-key": read_key})
    assert (refused.status_code, refused.json()["error"]) == (403, "forbidden") and inbox.SENT == []
    cannot_run = post(f"/threads/{thread}/runs", {"input": {"email": EMAIL}}, **{"x-api-key": inbox_key})
    assert cannot_run.status_code == 403
    assert resume(thread, [{"type": "accept", "args": None}], **{"x-api-key": inbox_key}).status_code == 200
    stored = Interrupt.objects.get(pk=pause["id"])
    assert (stored.answered_via, stored.answered_by) == ("langgraph", "LangGraph key agent-inbox")
    key_revoke(reader)
    assert get(f"/threads/{thread}", **{"x-api-key": read_key}).status_code == 401


def test_with_no_key_only_this_machine_may_call():
    away = Client(REMOTE_ADDR="10.0.0.5").get("/threads/search")
    assert (away.status_code, away.json()["error"]) == (401, "unauthorized")
    assert "loopback" in away.json()["detail"]


@pytest.mark.parametrize(("label", "path", "body"), [
    ("a command that moves the graph", "/threads/{t}/runs", {"command": {"resume": 1, "goto": "review"}}),
    ("a command that writes its state", "/threads/{t}/runs/wait", {"command": {"update": {"draft": {}}}}),
    ("a resume from an earlier checkpoint", "/threads/{t}/runs", {"input": None, "checkpoint_id": "1ef"}),
    ("a webhook to call out", "/threads/{t}/runs", {"input": None, "webhook": "http://10.0.0.1/"}),
    ("LangGraph's own resume map", "/threads/{t}/runs", {"input": None, "config": {"configurable": {
        "__pregel_resume_map": {"x": [{"type": "accept", "args": None}]}}}}),
    ("input and command at once", "/threads/{t}/runs", {"input": {}, "command": {"resume": 1}}),
    ("a NUL in metadata", "/threads/{t}/runs", {"input": None, "metadata": {"a": "x\u0000"}}),
    ("a stream mode not served", "/threads/{t}/runs/stream", {"input": None, "stream_mode": "messages"}),
    ("an unknown assistant", "/threads/{t}/runs", {"assistant_id": "other", "input": None}),  # 404: see below
    ("a status that is none", "/threads/search", {"status": "sleeping"}),
    ("a limit of nothing", "/threads/search", {"limit": 0}),
    ("a sort by a field not kept", "/threads/search", {"sort_by": "values"}),
    ("a thread id with a NUL", "/threads", {"thread_id": "a\u0000b"}),
    ("metadata that is not an object", "/threads", {"metadata": ["x"]}),
])
def test_hostile_bodies_are_refused_in_the_error_shape_and_nothing_runs_or_is_answered(label, path, body):
    thread = waiting_thread()
    [pause] = pauses(thread)
    runs = GraphRun.objects.count()
    refused = post(path.format(t=thread), body)
    expected = (404, "not_found") if label == "an unknown assistant" else (400, "bad_request")
    assert (refused.status_code, refused.json()["error"]) == expected, (label, refused.content)
    assert refused.json()["detail"], label
    assert pauses(thread) == [pause] and inbox.SENT == [] and GraphRun.objects.count() == runs, label
    assert Interrupt.objects.get(pk=pause["id"]).status == Interrupt.Status.OPEN


def test_a_thread_never_made_is_404_and_a_resume_makes_none():
    assert get("/threads/nope").status_code == 404 and get("/threads/nope/state").status_code == 404
    assert resume("nope", [{"type": "accept", "args": None}]).status_code == 404
    assert post("/threads/nope/runs", {"input": {"email": EMAIL}}).status_code == 404
    assert not GraphThread.objects.filter(thread_id="nope").exists()
    made = post("/threads/nope/runs/wait", {"input": {"email": EMAIL}, "if_not_exists": "create"})
    assert made.status_code == 200 and get("/threads/nope").json()["status"] == "interrupted"
    twice = post("/threads", {"thread_id": "nope"})
    assert (twice.status_code, twice.json()["error"]) == (409, "conflict")
    assert post("/threads", {"thread_id": "nope", "if_exists": "do_nothing"}).status_code == 200


def test_a_stream_sends_metadata_then_the_values_and_updates_asked_for():
    post("/threads", {"thread_id": "s-1"})
    streamed = post("/threads/s-1/runs/stream", {"input": {"email": EMAIL}, "stream_mode": ["updates", "events"]},
                    Accept="text/event-stream")
    assert streamed.status_code == 200 and streamed["Content-Type"].startswith("text/event-stream")
    text = b"".join(streamed.streaming_content).decode()
    events = [block.split("\n", 1)[0].removeprefix("event: ") for block in text.strip().split("\n\n")]
    assert events[0] == "metadata" and "values" not in events
    assert events.count("updates") == 2 and "events" in events
    assert '"__interrupt__"' in text and '"langgraph_node": "draft"' in text


def test_the_console_offers_skip_where_the_interrupt_allows_ignore_and_the_graph_gets_ignore(bridge):
    thread = waiting_thread()
    given = handed(bridge)
    [pause] = pauses(thread)
    staff = make_staff()
    page = pause_page(staff, pause["id"])
    assert 'value="approve"' in page and 'value="skip"' in page and 'value="reject"' not in page
    assert answer(staff, pause["id"], page, "skip").status_code == 200
    assert [list(g.values()) for g in given] == [[[{"type": "ignore", "args": None}]]]
    assert said(thread)[-1] == "Left without a reply." and inbox.SENT == []


def test_info_says_what_the_server_is_and_what_it_does_not_serve():
    info = get("/info").json()
    assert info["version"].startswith("stalwart ") and info["flags"] == {"assistants": True, "crons": False,
                                                                         "langsmith": False}
