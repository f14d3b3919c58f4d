"""End to end: a real `stalwart serve` (daphne) process on a free port."""

from __future__ import annotations

import threading
import uuid
from pathlib import Path

import httpx
import pytest

from examples.shop import tools as shop
from tests.e2e.conftest import on_postgres
from tests.support.server import Browser, Server
from threads.texts import TEXTS

pytestmark = pytest.mark.server

ROUNDS = 50
RUN = uuid.uuid4().hex[:8]  # servers on PostgreSQL share a database that outlives a test run


def tid(name: str) -> str:
    return f"{name}-{RUN}"


@pytest.fixture
def server(shared_server: Server) -> Server:
    """One server for the module's tests: each opens threads of its own (named per test, and per run)."""
    return shared_server


def test_the_shop_walkthrough(server):
    browser = Browser(server.url)
    shown = browser.say(tid("w-1"), "show order 4411")
    assert shown.status_code == 200
    body = shown.json()
    assert "visa-0019" in body["reply"]["text"] and "40.00" in body["reply"]["text"]
    assert body["waiting"] == []

    charged = browser.say(tid("w-1"), "charge 40 to order 4411").json()
    assert len(charged["waiting"]) == 1
    pause = charged["waiting"][0]
    assert {k: pause[k] for k in ("kind", "tool", "question", "reasons", "irreversible", "choices", "step")} == {
        "kind": "confirm", "tool": "charge_card", "question": "Charge the card?", "reasons": ["write"],
        "irreversible": False, "choices": ["approve", "skip", "cancel_all"], "step": 1,
    }
    assert pause["arguments"] == [{"name": "amount", "value": 40, "origin": "typed"},
                                  {"name": "order_id", "value": "4411", "origin": "typed"}]
    assert pause["token"]

    listed = browser.request("GET", f"/threads/{tid('w-1')}/interrupts").json()["interrupts"]
    assert [p["id"] for p in listed] == [pause["id"]]

    approved = browser.resume(tid("w-1"), pause, "approve")
    assert approved.status_code == 200
    assert "ch-4411" in approved.json()["reply"]["text"]
    again = browser.resume(tid("w-1"), pause, "approve")
    assert again.status_code == 409 and again.json()["error"] == "interrupt_stale"
    assert "paid" in browser.say(tid("w-1"), "show order 4411").json()["reply"]["text"]
    assert len(shop.charges("4411")) == 1
    browser.close()


def test_a_pause_outlives_a_restart_of_the_server(data_dir):
    first = Server(data_dir).start()
    browser = Browser(first.url)
    pause = browser.say(tid("w-2"), "charge 40 to order 4411").json()["waiting"][0]
    first.stop()

    with Server(data_dir) as second:
        browser.client.base_url = second.url  # type: ignore[assignment]
        listed = browser.request("GET", f"/threads/{tid('w-2')}/interrupts").json()["interrupts"]
        assert [p["id"] for p in listed] == [pause["id"]]
        assert listed[0]["token"] == pause["token"]
        approved = browser.resume(tid("w-2"), listed[0], "approve")
        assert approved.status_code == 200 and "ch-4411" in approved.json()["reply"]["text"]
    assert shop.get_order("4411")["status"] == "paid"
    browser.close()


def race(urls: list[str], session: str, thread: str, pause: dict) -> list[int]:
    """Send the same answer to every url at the same moment."""
    barrier = threading.Barrier(len(urls))
    statuses: list[int] = []
    lock = threading.Lock()

    def answer(url: str) -> None:
        browser = Browser(url)
        browser.session = session
        barrier.wait()
        status = browser.resume(thread, pause, "approve").status_code
        with lock:
            statuses.append(status)
        browser.close()

    workers = [threading.Thread(target=answer, args=(u,)) for u in urls]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return sorted(statuses)


def race_rounds(label: str, urls: list[str]) -> None:
    starter = Browser(urls[0])
    for i in range(ROUNDS):
        shop.reset()
        thread = tid(f"race-{label}-{i}")
        said = starter.say(thread, "charge 40 to order 4411")
        assert said.status_code == 200, said.text
        pause = said.json()["waiting"][0]
        assert race(urls, str(starter.session), thread, pause) == [200, 409], f"round {i}"
        assert len(shop.charges("4411")) == 1, f"round {i}"
    starter.close()


def test_two_answers_at_once_from_two_threads_one_wins(server):
    race_rounds("threads", [server.url, server.url])


@pytest.mark.skipif(not on_postgres(), reason="two workers share a PostgreSQL database")
def test_two_answers_at_once_on_two_server_processes_one_wins(data_dir: Path):
    with Server(data_dir) as a, Server(data_dir) as b:
        race_rounds("processes", [a.url, b.url])


def answer_and_turn_at_once(answer_url: str, turn_url: str, session: str, thread: str,
                            pause: dict) -> tuple[httpx.Response, httpx.Response]:  # type: ignore[type-arg]
    """The pause's answer to one server and a new turn of the same thread to the other, at the same moment."""
    barrier = threading.Barrier(2)
    out: dict[str, httpx.Response] = {}

    def send(name: str, url: str) -> None:
        browser = Browser(url)
        browser.session = session
        barrier.wait()
        out[name] = (browser.resume(thread, pause, "approve") if name == "answer"
                     else browser.say(thread, "show order 5001"))
        browser.close()

    workers = [threading.Thread(target=send, args=args) for args in (("answer", answer_url), ("turn", turn_url))]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return out["answer"], out["turn"]


def answer_turn_rounds(label: str, urls: list[str]) -> dict[str, int]:
    """Each round exactly one outcome: the answer won (charged once, the turn
    superseded nothing) or the turn won (the pause superseded, the answer a
    409 that says so, nothing charged); never a 500, never both, never neither."""
    starter = Browser(urls[0])
    outcomes = {"answer won": 0, "turn won": 0}
    for i in range(ROUNDS):
        shop.reset()
        thread = tid(f"lock-{label}-{i}")
        pause = starter.say(thread, "charge 40 to order 4411").json()["waiting"][0]
        answered, turned = answer_and_turn_at_once(urls[0], urls[1], str(starter.session), thread, pause)
        assert turned.status_code == 200, f"round {i}: {turned.status_code} {turned.text}"
        superseded = turned.json()["reply"]["text"].startswith(TEXTS["en"]["superseded"])
        if answered.status_code == 200:
            assert "ch-4411" in answered.json()["reply"]["text"] and not superseded, f"round {i}"
            assert len(shop.charges("4411")) == 1, f"round {i}"
            outcomes["answer won"] += 1
        else:
            assert answered.status_code == 409, f"round {i}: {answered.status_code} {answered.text}"
            assert answered.json()["interrupt"]["status"] == "superseded" and superseded, f"round {i}"
            assert shop.charges("4411") == [], f"round {i}"
            outcomes["turn won"] += 1
    starter.close()
    return outcomes


def test_an_answer_and_a_new_turn_at_once_from_two_threads_end_one_way(server):
    outcomes = answer_turn_rounds("threads", [server.url, server.url])
    assert sum(outcomes.values()) == ROUNDS


@pytest.mark.skipif(not on_postgres(), reason="two workers share a PostgreSQL database")
def test_an_answer_and_a_new_turn_at_once_on_two_server_processes_end_one_way(data_dir: Path):
    with Server(data_dir) as a, Server(data_dir) as b:
        outcomes = answer_turn_rounds("processes", [a.url, b.url])
    print(f"\nan answer and a new turn at once, {ROUNDS} rounds on two workers: {outcomes}")
    assert sum(outcomes.values()) == ROUNDS


def test_bad_input_over_http_keeps_the_server_serving(server):
    browser = Browser(server.url)
    bad = browser.request("POST", f"/threads/{tid('w-3')}/messages", content=b"{nope",
                          headers={"Content-Type": "application/json"})
    assert bad.status_code == 400 and bad.json()["error"] == "bad_request"
    big = browser.request("POST", f"/threads/{tid('w-3')}/messages", content=b"{" + b" " * (1024 * 1024) + b"}",
                          headers={"Content-Type": "application/json"})
    assert big.status_code == 413 and big.json()["error"] == "too_large"
    missing = browser.request("POST", f"/threads/{tid('w-3')}/messages", json={"txt": "hi"})
    assert missing.status_code == 400
    unknown = browser.request("POST", "/threads/nobody-here/resume",
                              json={"interrupt_id": "p-x", "decision": "approve", "token": "t"})
    assert unknown.status_code == 404 and unknown.json()["error"] == "not_found"
    assert browser.say(tid("w-3"), "show order 4411").status_code == 200
    browser.close()


def test_the_chat_page_and_its_module_are_served(server):
    browser = Browser(server.url)
    page = browser.request("GET", "/")
    assert page.status_code == 200 and "<stalwart-chat" in page.text
    assert "script-src 'self'" in page.headers["Content-Security-Policy"]
    assert "/static/stalwart/index.js" in page.text
    module = browser.request("GET", "/static/stalwart/index.js")
    assert module.status_code == 200 and "customElements.define" in module.text
    browser.close()


def test_a_chunked_body_is_read_and_held_to_the_body_limit(server):
    # Issue 26: a chunked body used to be read as empty (400, "text: This field
    # is required"); it is read now, so the body limit holds for it as for a
    # declared one (tests/e2e/test_hostile_input.py reads a chunked turn).
    browser = Browser(server.url)

    def chunks():  # no Content-Length: 512 KiB sent chunked
        yield b'{"text": "'
        for _ in range(64):
            yield b"x" * 8192
        yield b'"}'

    response = browser.request("POST", f"/threads/{tid('w-4')}/messages", content=chunks(),
                               headers={"Content-Type": "application/json"})
    assert response.status_code == 413 and response.json()["error"] == "too_large"
    assert browser.say(tid("w-4"), "show order 4411").status_code == 200
    browser.close()
