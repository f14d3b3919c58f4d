"""The LangGraph door's Agent Server API served for real (daphne, ``make_app`` over
examples/langgraph/inbox.py), driven by the LangGraph SDK's own JS client
(``@langchain/langgraph-sdk`` under Node, ``tests/langgraph/js/drive.mjs``) making the calls
Agent Inbox makes: its inbox (``threads.search`` by status and ``graph_id``), a thread's page
(``threads.get``, ``threads.getState``), and its answers, a ``HumanResponse`` list given as
``command.resume`` (``runs.stream`` in ``events`` mode when a person submits, ``runs.create`` when
they ignore). Each answer is checked by what a person reading the inbox would see: the thread's
messages after it, the reply sent once, and the same answer sent again refused (``409``)."""

from __future__ import annotations

import json
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.support.server import Server

pytestmark = pytest.mark.server

JS = Path(__file__).resolve().parent / "js"
NODE = shutil.which("node")
GRAPH = "inbox"  # the graph's name: what Agent Inbox's "Add Inbox" is given as the assistant/graph id
ALLOWED = {"allow_accept": True, "allow_edit": True, "allow_respond": True, "allow_ignore": True}


class Refused(Exception):
    """A call the SDK threw on: its HTTPError's status and the server's JSON body."""

    def __init__(self, status: int | None, text: str | None) -> None:
        super().__init__(f"HTTP {status}: {text}")
        self.status = status
        self.body: Any = json.loads(text) if text and text.startswith("{") else text


class Inbox:
    """One page of Agent Inbox pointed at the server: one SDK client, its calls made in order."""

    def __init__(self, url: str) -> None:
        self.url = url

    def calls(self, *calls: list[Any]) -> list[dict[str, Any]]:
        """Each call's ``{"value"}``, or ``{"error": {"status", "text"}}`` where the SDK threw."""
        done = subprocess.run([NODE or "node", str(JS / "drive.mjs")],
                              input=json.dumps({"url": self.url, "calls": list(calls)}),
                              capture_output=True, text=True, timeout=120, cwd=JS)
        assert done.returncode == 0, done.stderr
        results: list[dict[str, Any]] = json.loads(done.stdout)["results"]
        return results

    def call(self, method: str, *args: Any) -> Any:
        """One call's value, or ``Refused`` where the SDK threw."""
        (result,) = self.calls([method, *args])
        if "error" in result:
            raise Refused(result["error"]["status"], result["error"]["text"])
        return result["value"]

    # -- what Agent Inbox does --------------------------------------------------------------
    def inbox(self, status: str = "interrupted") -> list[dict[str, Any]]:
        """fetchThreads: the first page of an inbox tab, filtered by the inbox's graph."""
        threads: list[dict[str, Any]] = self.call("threads.search", {"offset": 0, "limit": 10, "status": status,
                                                                      "metadata": {"graph_id": GRAPH}})
        return threads

    def answer(self, thread_id: str, response: dict[str, Any], *, stream: bool) -> Any:
        """sendHumanResponse: ``[response]`` as ``command.resume``, streamed as a submit streams it."""
        if stream:
            return self.call("runs.stream", thread_id, GRAPH, {"command": {"resume": [response]},
                                                               "streamMode": "events"})
        return self.call("runs.create", thread_id, GRAPH, {"command": {"resume": [response]}})


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """examples/langgraph/inbox.py served by daphne for the module: each test opens threads of its own."""
    if NODE is None or not (JS / "node_modules" / "@langchain" / "langgraph-sdk").exists():
        pytest.skip("needs node and tests/langgraph/js's node packages (./scripts/test installs them with npm ci)")
    server = Server(tmp_path_factory.mktemp("langgraph-js"), module="examples.langgraph.inbox:build")
    server.start(timeout=180)  # langgraph's imports
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture
def page(served: str) -> Inbox:
    return Inbox(served)


def an_email(page: Inbox) -> tuple[str, str, dict[str, Any]]:
    """A customer's email come in, as the team's own code starts one: a thread made for the inbox's
    graph (``graphId``: the ``graph_id`` metadata Agent Inbox filters by), and a run of it, waited
    for. The thread's id, the sender, and what ``runs.wait`` answered."""
    sender = f"ana-{uuid.uuid4().hex[:6]}@example.com"
    thread_id = str(uuid.uuid4())
    made, waited = page.calls(["threads.create", {"graphId": GRAPH, "threadId": thread_id}],
                              ["runs.wait", thread_id, GRAPH, {"input": {"email": {
                                  "from_email": sender, "subject": "Late order", "body": "Where is my order?"}}}])
    assert made["value"]["thread_id"] == thread_id and made["value"]["status"] == "idle", made
    assert "value" in waited, waited
    return thread_id, sender, waited["value"]


def said(thread: dict[str, Any]) -> list[str]:
    """The thread's messages as the inbox shows them: what was said, in order."""
    return [m["content"] for m in thread["values"]["messages"]]


def human_interrupt(sender: str) -> list[dict[str, Any]]:
    """The question the inbox graph asks about a reply to ``sender``: Agent Inbox's ``HumanInterrupt`` list."""
    return [{"action_request": {"action": "send_email", "args": {
                "to": sender, "subject": "Re: Late order",
                "body": "Thank you for writing about \u201cLate order\u201d: we are on it."}},
             "config": ALLOWED, "description": f"Send this reply to {sender}?"}]


def test_a_new_email_waits_in_the_interrupted_inbox_with_its_human_interrupt(page):
    thread_id, sender, waited = an_email(page)
    assert [i["value"] for i in waited["__interrupt__"]] == [human_interrupt(sender)]

    listed = {t["thread_id"]: t for t in page.inbox("interrupted")}
    assert thread_id in listed  # the newest thread of the inbox: on its first page
    thread = listed[thread_id]
    assert thread["status"] == "interrupted" and thread["metadata"]["graph_id"] == GRAPH
    # What Agent Inbox reads the question from (getInterruptFromThread): the thread's interrupts, by task,
    # each an interrupt whose value is the HumanInterrupt list.
    (task_interrupts,) = thread["interrupts"].values()
    (interrupt,) = task_interrupts
    assert interrupt["value"] == human_interrupt(sender)
    assert interrupt["value"][0]["action_request"]["action"] == "send_email"
    assert said(thread) == ["A reply is drafted."]
    assert thread_id not in {t["thread_id"] for t in page.inbox("idle")}

    # The thread's page (fetchSingleThread), and its state as the SDK reads it (getState).
    assert page.call("threads.get", thread_id)["interrupts"] == thread["interrupts"]
    state = page.call("threads.getState", thread_id)
    assert state["next"] == ["review"] and state["tasks"][0]["name"] == "review"
    assert state["tasks"][0]["interrupts"][0]["value"] == human_interrupt(sender)
    assert state["values"]["draft"]["to"] == sender


# What each button of Agent Inbox sends (use-interrupted-actions.tsx), for an email from `sender`.
def accept(sender: str) -> dict[str, Any]:
    return {"type": "accept", "args": human_interrupt(sender)[0]["action_request"]}


def edit(sender: str) -> dict[str, Any]:
    request = human_interrupt(sender)[0]["action_request"]
    return {"type": "edit", "args": {"action": request["action"], "args": {**request["args"],
                                                                           "to": "billing@example.com"}}}


def respond(sender: str) -> dict[str, Any]:
    return {"type": "response", "args": "Please call her instead: she asked by phone."}


def ignore(sender: str) -> dict[str, Any]:
    return {"type": "ignore", "args": None}


def answered(page: Inbox, thread_id: str, response: dict[str, Any], *, stream: bool, resumes: bool = True) -> None:
    """One answer as Agent Inbox gives it, and what its SDK call came back with (``resumes``: the
    graph goes on with it, rather than waiting on another answer)."""
    got = page.answer(thread_id, response, stream=stream)
    if stream:  # what the page shows while it streams: the node that runs, and no error event
        assert got[0]["event"] == "metadata" and got[0]["data"]["run_id"]
        assert all(e["event"] != "error" for e in got)
        nodes = [e["data"]["metadata"]["langgraph_node"] for e in got
                 if e["event"] == "events" and e["data"].get("event") == "on_chain_start"]
        assert nodes == (["review"] if resumes else [])
    else:  # the run, kept: read back by its id, and joined for the thread's values
        assert got["thread_id"] == thread_id and got["status"] == "success"
        assert page.call("runs.get", thread_id, got["run_id"])["run_id"] == got["run_id"]
        joined, thread = page.call("runs.join", thread_id, got["run_id"]), page.call("threads.get", thread_id)
        waits = joined.pop("__interrupt__", None)  # the interrupt still waiting, as runs.wait shows it
        assert joined == thread["values"]
        assert waits == [i for task in thread["interrupts"].values() for i in task] or (waits is None
                                                                                         and not thread["interrupts"])


@pytest.mark.parametrize("stream", [True, False], ids=["runs.stream", "runs.create"])
@pytest.mark.parametrize(("response", "after"), [
    (accept, "Sent the reply to {sender}."),
    (respond, "Noted: the reply was not sent."),
    (ignore, "Left without a reply."),
], ids=["accept", "response", "ignore"])
def test_each_answer_does_what_it_says_once_and_the_same_answer_again_is_409(page, response, after, stream):
    thread_id, sender, _ = an_email(page)
    answered(page, thread_id, response(sender), stream=stream)
    thread = page.call("threads.get", thread_id)
    assert thread["status"] == "idle" and thread["interrupts"] == {}
    expected = ["A reply is drafted.", after.format(sender=sender)]
    if response is respond:  # the note is in the thread, as the person wrote it
        expected.insert(1, respond(sender)["args"])
    assert said(thread) == expected
    assert thread_id not in {t["thread_id"] for t in page.inbox("interrupted")}
    assert thread_id in {t["thread_id"] for t in page.inbox("idle")}

    with pytest.raises(Refused) as again:  # a retry after a lost reply, or a second tab: nothing waits now
        page.answer(thread_id, response(sender), stream=stream)
    assert again.value.status == 409 and again.value.body["error"] == "interrupt_stale"
    assert again.value.body["detail"]  # what the SDK's error shows
    assert said(page.call("threads.get", thread_id)) == expected  # nothing sent, nothing said, a second time


@pytest.mark.parametrize("stream", [True, False], ids=["runs.stream", "runs.create"])
def test_an_edited_reply_waits_for_its_own_approval_then_sends_the_edited_reply_once(page, stream):
    """The door's rule for every edit: the edited call runs only after its own approval. The edit
    answers, the thread still waits and nothing is sent, and the page now shows the edited reply; an
    acceptance of the first draft (a second tab that read it before) is 409; the acceptance of what
    is shown sends the edited reply, once."""
    thread_id, sender, _ = an_email(page)
    answered(page, thread_id, edit(sender), stream=stream, resumes=False)
    waiting = page.call("threads.get", thread_id)
    assert waiting["status"] == "interrupted" and said(waiting) == ["A reply is drafted."]
    assert thread_id in {t["thread_id"] for t in page.inbox("interrupted")}
    [[shown]] = waiting["interrupts"].values()
    assert shown["value"][0]["action_request"] == edit(sender)["args"]  # what the page shows now

    with pytest.raises(Refused) as first_draft:
        page.answer(thread_id, accept(sender), stream=stream)
    assert first_draft.value.status == 409 and said(page.call("threads.get", thread_id)) == ["A reply is drafted."]
    answered(page, thread_id, {"type": "accept", "args": shown["value"][0]["action_request"]}, stream=stream)
    thread = page.call("threads.get", thread_id)
    assert thread["status"] == "idle"
    assert said(thread) == ["A reply is drafted.", "Sent the edited reply to billing@example.com."]
    assert thread["values"]["draft"] == {**human_interrupt(sender)[0]["action_request"]["args"],
                                         "to": "billing@example.com"}
    for again in (accept(sender), edit(sender)):
        with pytest.raises(Refused) as refused:
            page.answer(thread_id, again, stream=stream)
        assert refused.value.status == 409 and refused.value.body["error"] == "interrupt_stale"
    assert [m for m in said(page.call("threads.get", thread_id)) if m.startswith("Sent")] == [
        "Sent the edited reply to billing@example.com."]


def test_two_pages_accepting_at_once_send_the_reply_once(page, served):
    """Two people (two tabs, two SDK clients) accept the same email at the same moment: one run
    answers, the other is 409, and the reply is sent once."""
    thread_id, sender, _ = an_email(page)
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda p: p.calls(["runs.create", thread_id, GRAPH,
                                                   {"command": {"resume": [accept(sender)]}}])[0],
                                [Inbox(served), Inbox(served)]))
    statuses = sorted(r["error"]["status"] if "error" in r else 200 for r in results)
    assert statuses == [200, 409]
    assert said(page.call("threads.get", thread_id)) == ["A reply is drafted.", f"Sent the reply to {sender}."]


def test_an_answer_that_is_not_a_human_response_is_refused_and_the_email_still_waits(page):
    thread_id, sender, _ = an_email(page)
    for wrong in ({"type": "approve"}, {"type": "response", "args": None},
                  {"type": "edit", "args": {"action": "delete_email", "args": {}}}):
        with pytest.raises(Refused) as refused:
            page.answer(thread_id, wrong, stream=False)
        assert refused.value.status == 422 and refused.value.body["error"] == "invalid_answer"
    thread = page.call("threads.get", thread_id)
    assert thread["status"] == "interrupted" and said(thread) == ["A reply is drafted."]
    answered(page, thread_id, accept(sender), stream=False)  # and the right answer still goes through
    assert said(page.call("threads.get", thread_id))[-1] == f"Sent the reply to {sender}."
