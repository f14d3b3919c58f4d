"""The Agent Server API served by a real server (daphne, ``make_app`` over
examples/langgraph/inbox.py's graph), called with LangGraph's own Python client
(``langgraph-sdk``) the way Agent Inbox calls it: its interrupted threads listed,
a thread's state and interrupts read, each HumanResponse sent with
``command.resume``; a resume runs the reply once, a second is 409, and of two at
once one wins. On SQLite, and on PostgreSQL with DATABASE_URL set."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.support.server import Server

langgraph_sdk = pytest.importorskip("langgraph_sdk")

EMAIL = {"from_email": "ana@example.com", "subject": "Late order", "body": "Where is it?"}
ACCEPT = [{"type": "accept", "args": None}]


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    server = Server(tmp_path_factory.mktemp("inbox"), module="examples.langgraph.inbox:build").start(timeout=180)
    try:
        yield langgraph_sdk.get_sync_client(url=server.url, api_key=None)
    finally:
        server.stop()


def interrupted(client: Any, inbox: str) -> str:
    """A thread of ``inbox`` stopped at its HumanInterrupt."""
    thread = client.threads.create(metadata={"inbox": inbox})["thread_id"]
    values = client.runs.wait(thread, "inbox", input={"email": EMAIL})
    assert values["__interrupt__"][0]["value"][0]["action_request"]["action"] == "send_email"
    return str(thread)


def status_of(call: Any, *args: Any, **kwargs: Any) -> int:
    """The HTTP status the client raised for (200: it did not); ``runs.wait`` raises httpx's error,
    the other calls the SDK's own."""
    try:
        call(*args, **kwargs)
    except (httpx.HTTPStatusError, langgraph_sdk.errors.APIStatusError) as exc:
        return int(exc.response.status_code)
    return 200


def said(client: Any, thread: str) -> list[str]:
    return [m["content"] for m in client.threads.get(thread)["values"]["messages"]]


def test_agent_inbox_lists_interrupted_threads_and_reads_their_interrupts(client):
    inbox = uuid.uuid4().hex[:8]
    thread = interrupted(client, inbox)
    [assistant] = client.assistants.search(graph_id="inbox")
    assert client.assistants.get(assistant["assistant_id"])["graph_id"] == "inbox"
    listed = client.threads.search(status="interrupted", metadata={"inbox": inbox}, limit=10, offset=0)
    assert [t["thread_id"] for t in listed] == [thread]
    [asked] = [i for found in listed[0]["interrupts"].values() for i in found]
    assert asked["value"][0]["config"] == {"allow_accept": True, "allow_edit": True, "allow_respond": True,
                                           "allow_ignore": True}
    state = client.threads.get_state(thread)
    assert state["next"] == ["review"]
    assert state["tasks"][0]["interrupts"][0]["value"][0]["description"] == "Send this reply to ana@example.com?"
    assert client.threads.get(thread)["status"] == "interrupted"


def test_each_human_response_does_what_it_says_once(client):
    accepted, edited, responded, ignored = (interrupted(client, "each") for _ in range(4))
    run = client.runs.create(accepted, "inbox", command={"resume": ACCEPT})
    assert run["status"] == "success" and client.runs.get(accepted, run["run_id"])["run_id"] == run["run_id"]
    assert client.runs.join(accepted, run["run_id"])["messages"][-1]["content"] == "Sent the reply to ana@example.com."
    assert status_of(client.runs.create, accepted, "inbox", command={"resume": ACCEPT}) == 409
    assert said(client, accepted).count("Sent the reply to ana@example.com.") == 1

    client.runs.create(edited, "inbox", command={"resume": [{"type": "edit", "args": {"action": "send_email", "args": {
        "to": "bia@example.com", "subject": "Re: Late order", "body": "It ships today."}}}]})
    assert client.threads.get(edited)["status"] == "interrupted"  # the edit waits for its own approval
    client.runs.wait(edited, "inbox", command={"resume": ACCEPT})
    assert said(client, edited)[-1] == "Sent the edited reply to bia@example.com."

    client.runs.wait(responded, "inbox", command={"resume": [{"type": "response", "args": "Ask for the number."}]})
    assert said(client, responded)[-2:] == ["Ask for the number.", "Noted: the reply was not sent."]
    client.runs.wait(ignored, "inbox", command={"resume": [{"type": "ignore", "args": None}]})
    assert said(client, ignored)[-1] == "Left without a reply."
    assert [client.threads.get(t)["status"] for t in (accepted, edited, responded, ignored)] == ["idle"] * 4


def test_a_resume_streamed_as_agent_inbox_streams_it_says_which_node_ran(client):
    thread = interrupted(client, "stream")
    parts = list(client.runs.stream(thread, "inbox", command={"resume": ACCEPT}, stream_mode="events"))
    assert parts[0].event == "metadata"
    nodes = [p.data["metadata"]["langgraph_node"] for p in parts if p.event == "events"
             and p.data["event"] == "on_chain_start"]
    assert nodes == ["review"]
    assert said(client, thread)[-1] == "Sent the reply to ana@example.com."


def test_two_resumes_at_once_one_wins_and_the_reply_is_sent_once(client):
    thread = interrupted(client, "race")
    outcomes: list[str] = []
    start = threading.Barrier(2)

    def answer() -> None:
        start.wait()
        outcomes.append(str(status_of(client.runs.wait, thread, "inbox", command={"resume": ACCEPT})))

    workers = [threading.Thread(target=answer) for _ in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=120)
    assert sorted(outcomes) == ["200", "409"]
    assert said(client, thread).count("Sent the reply to ana@example.com.") == 1


def test_a_write_cannot_be_sent_without_an_answer(client):
    thread = interrupted(client, "sneak")
    for body in ({"command": {"goto": "review", "resume": ACCEPT}},
                 {"command": {"update": {"draft": {"to": "eve@example.com"}}, "resume": ACCEPT}},
                 {"input": None, "config": {"configurable": {"__pregel_resume_map": {"x": ACCEPT}}}}):
        assert status_of(client.runs.wait, thread, "inbox", **body) == 400
    assert client.threads.get(thread)["status"] == "interrupted"
    assert all(not line.startswith("Sent") for line in said(client, thread))


def test_a_thread_never_made_is_not_found(client: Any):
    assert status_of(client.threads.get, "no-such-thread") == 404
    assert status_of(client.runs.wait, "no-such-thread", "inbox", command={"resume": ACCEPT}) == 404


def test_the_readmes_langgraph_snippet_works_as_written(client):
    """README.md's five minutes with LangGraph, against the served example (its URL, nothing else changed):
    the run stops at the question, and the accept sends the reply."""
    from tests.e2e.test_commands import readme_block

    snippet = readme_block("python", "**LangGraph**").replace("http://127.0.0.1:8000", str(client.http.client.base_url))
    lines = snippet.strip().splitlines()
    lines[-2] = "asked = " + lines[-2].split("  #")[0]
    lines[-1] = "done = " + lines[-1]
    scope: dict[str, Any] = {}
    exec("\n".join(lines), scope)  # noqa: S102 - the README's own code, as a reader runs it
    assert scope["asked"][0]["value"][0]["action_request"]["args"]["to"] == "ana@example.com"
    assert scope["done"]["messages"][-1]["content"] == "Sent the reply to ana@example.com."


def test_a_key_made_with_the_command_is_what_the_sdk_sends(tmp_path):
    """``stalwart langgraph-key`` beside a served graph (its own SQLite data folder: a key in force would
    refuse every loopback call of a shared database): no key is then 401, a key that may only answer cannot
    start a run, and the answer it gives is recorded under its name."""
    from tests.e2e.test_commands import stalwart

    sqlite = {"DATABASE_URL": ""}
    with Server(tmp_path, module="examples.langgraph.inbox:build", env=sqlite).start(timeout=180) as server:
        runner = stalwart("langgraph-key", "backend", "--may", "run", data_dir=tmp_path, env=sqlite)
        inbox = stalwart("langgraph-key", "agent-inbox", "--may", "answer", data_dir=tmp_path, env=sqlite)
        assert runner.returncode == 0 and "Shown this once" in inbox.stdout, inbox.stderr
        keys = {name: out.stdout.split("Shown this once: ")[1].split()[0] for name, out in
                (("backend", runner), ("agent-inbox", inbox))}
        anonymous = langgraph_sdk.get_sync_client(url=server.url, api_key=None)
        assert status_of(anonymous.threads.search) == 401
        backend = langgraph_sdk.get_sync_client(url=server.url, api_key=keys["backend"])
        answerer = langgraph_sdk.get_sync_client(url=server.url, api_key=keys["agent-inbox"])
        thread = backend.threads.create()["thread_id"]
        assert status_of(answerer.runs.wait, thread, "inbox", input={"email": EMAIL}) == 403
        backend.runs.wait(thread, "inbox", input={"email": EMAIL})
        assert status_of(backend.runs.wait, thread, "inbox", command={"resume": ACCEPT}) == 403
        done = answerer.runs.wait(thread, "inbox", command={"resume": ACCEPT})
        assert done["messages"][-1]["content"] == "Sent the reply to ana@example.com."
        revoked = stalwart("langgraph-key", "agent-inbox", "--revoke", data_dir=tmp_path, env=sqlite)
        assert revoked.returncode == 0 and status_of(answerer.threads.get, thread) == 401
        import sqlite3

        with sqlite3.connect(tmp_path / "runs.db") as db:
            [(by, via)] = db.execute("SELECT answered_by, answered_via FROM threads_interrupt "
                                     "WHERE decision = 'approve'").fetchall()
        assert (by, via) == ("LangGraph key agent-inbox", "langgraph")
