"""Threads no one can squat or probe (issue 26), against a real `stalwart
serve`: the same id from a second session is that session's own thread;
whoever has no session (the operator's rollback, a signed channel) names a
thread by its key."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import httpx
import pytest

from examples.shop import tools as shop
from tests.e2e.conftest import fresh_shop
from tests.support.server import Browser, Server

pytestmark = pytest.mark.server

TOKEN = "op-" + uuid.uuid4().hex


@pytest.fixture(scope="module")
def operated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with Server(tmp_path_factory.mktemp("squat"), args=["--operator-token", TOKEN]) as started:
        yield started


@pytest.fixture
def server(operated: Server, monkeypatch: pytest.MonkeyPatch) -> Server:
    return fresh_shop(operated, monkeypatch)


def test_a_second_session_cannot_take_or_probe_an_id_the_first_uses(server: Server):
    thread = f"u-{uuid.uuid4().hex[:8]}"
    owner, squatter = Browser(server.url), Browser(server.url)
    pause = owner.say(thread, "charge 40 to order 4411").json()["waiting"][0]
    # The same id from another session: its own thread, answered as a fresh id is (no probe).
    taken = squatter.say(thread, "show order 4411")
    fresh = squatter.say(f"fresh-{uuid.uuid4().hex[:8]}", "show order 4411")
    assert taken.status_code == fresh.status_code == 200
    assert taken.json()["thread"] == thread and taken.json()["waiting"] == fresh.json()["waiting"] == []
    # It sees none of the owner's pauses and cannot answer them, with the token or without.
    assert squatter.request("GET", f"/threads/{thread}/interrupts").json()["interrupts"] == []
    stolen = squatter.resume(thread, pause, "approve")
    assert stolen.status_code == 404 and stolen.json()["error"] == "not_found"
    by_key = squatter.request("GET", f"/threads/{owner.key(thread)}/interrupts")
    assert by_key.status_code == 404 and shop.charges() == []
    # The owner, who came first, is not locked out: it answers its own pause.
    done = owner.resume(thread, pause, "approve")
    assert done.status_code == 200 and done.json()["thread"] == thread and len(shop.charges("4411")) == 1
    owner.close()
    squatter.close()


def test_the_operator_rolls_back_one_sessions_thread_by_its_key(server: Server):
    thread = f"u-{uuid.uuid4().hex[:8]}"
    first, second = Browser(server.url), Browser(server.url)
    for browser, text in ((first, "charge 40 to order 4411"), (second, "charge 99.90 to order 5001")):
        pause = browser.say(thread, text).json()["waiting"][0]
        assert browser.resume(thread, pause, "approve").status_code == 200
    assert [c["kind"] for c in shop.charges()] == ["charge", "charge"]
    bearer = {"Authorization": f"Bearer {TOKEN}"}
    by_id = httpx.post(f"{server.url}/threads/{thread}~xyz/rollback", headers=bearer)
    assert by_id.status_code == 400 and by_id.json()["error"] == "bad_request" and "key" in by_id.json()["detail"]
    nobody = httpx.post(f"{server.url}/threads/{thread}~{'0' * 16}/rollback", headers=bearer)
    assert nobody.status_code == 404
    done = httpx.post(f"{server.url}/threads/{first.key(thread)}/rollback", headers=bearer)
    assert done.status_code == 200 and done.json()["thread"] == first.key(thread)
    assert [c["kind"] for c in shop.charges("4411")] == ["charge", "refund"]
    assert [c["kind"] for c in shop.charges("5001")] == ["charge"]  # the other session's thread of that id stays
    first.close()
    second.close()
