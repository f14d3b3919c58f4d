"""Two bridge processes over one PostgresSaver and one run store: the same ids from
both, and two resumes of one pause at the same moment end one way."""

from __future__ import annotations

import threading
import uuid
from pathlib import Path

import httpx
import pytest

from examples.shop import tools as shop
from tests.e2e.conftest import on_postgres
from tests.langgraph.graphs import pg_mail_agent, say
from tests.support.server import Server

pytestmark = [pytest.mark.server, pytest.mark.postgres,
              pytest.mark.skipif(not on_postgres(), reason="two processes share a PostgreSQL database")]

ROUNDS = 3


def at_once(urls: list[str], thread: str, body: dict) -> list[httpx.Response]:  # type: ignore[type-arg]
    barrier = threading.Barrier(len(urls))
    out: list[httpx.Response] = [None] * len(urls)  # type: ignore[list-item]

    def send(i: int, url: str) -> None:
        with httpx.Client(base_url=url, timeout=60.0) as client:
            barrier.wait()
            out[i] = client.post(f"/threads/{thread}/resume", json=body)

    workers = [threading.Thread(target=send, args=(i, u)) for i, u in enumerate(urls)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return out


def test_two_resumes_at_once_on_two_processes_one_wins_and_the_write_runs_once(shop_dir: Path):
    a = Server(shop_dir, module="tests.langgraph.graphs:pg_mail_agent").start(timeout=180)  # langchain's imports
    b = Server(shop_dir, module="tests.langgraph.graphs:pg_mail_agent")
    try:
        b.start(timeout=180)
        graph = pg_mail_agent()
        for i in range(ROUNDS):
            shop.reset()
            thread = f"pg-{uuid.uuid4().hex[:12]}-{i}"
            started = httpx.post(f"{a.url}/threads/{thread}/runs", timeout=60.0,
                                 json={"if_not_exists": "create", "input": say(("charge_card", {"order_id": "4411", "amount": 40}))})
            assert started.status_code == 200, started.text
            seen = [httpx.get(f"{url}/threads/{thread}/interrupts", timeout=60.0).json()["interrupts"]
                    for url in (a.url, b.url)]
            assert [(p["id"], p["token"]) for p in seen[0]] == [(p["id"], p["token"]) for p in seen[1]]
            pause = seen[0][0]
            answers = at_once([a.url, b.url], thread, {"interrupt_id": pause["id"], "decision": "approve",
                                                       "token": pause["token"]})
            assert sorted(r.status_code for r in answers) == [200, 409], [r.text for r in answers]
            lost = next(r for r in answers if r.status_code == 409).json()
            assert lost["error"] == "interrupt_stale" and lost["interrupt"]["decision"] == "approve"
            assert len(shop.charges("4411")) == 1, f"round {i}"
            messages = graph.get_state({"configurable": {"thread_id": thread}}).values["messages"]
            assert [m.type for m in messages] == ["human", "ai", "tool", "ai"], f"round {i}"
    finally:
        a.stop()
        b.stop()
