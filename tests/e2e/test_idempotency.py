"""``Idempotency-Key`` on ``POST /threads/{id}/messages`` against a real
`stalwart serve`: a retried turn answers the first response again and starts
nothing new (issue 14)."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from doors.http.idempotency import DETAIL_BAD_KEY, answered, replay_key
from tests.support.server import Browser, Server
from threads.errors import IdempotencyInProgress, IdempotencyMismatch
from threads.models import Replay, Run

RUN = uuid.uuid4().hex[:8]


@pytest.fixture
def server(shared_server: Server) -> Server:
    """One server for the module's tests: each opens threads of its own (named per test, and per run)."""
    return shared_server


def say(browser: Browser, thread: str, text: str, key: str | None):
    headers = {"Idempotency-Key": key} if key is not None else {}
    return browser.request("POST", f"/threads/{thread}/messages", json={"text": text}, headers=headers)


@pytest.mark.server
def test_a_retried_message_answers_the_same_run_and_pause_and_the_pause_stays_open(server):
    browser = Browser(server.url)
    thread, key = f"i-1-{RUN}", str(uuid.uuid4())
    first = say(browser, thread, "charge 40 to order 4411", key)
    assert first.status_code == 200
    body = first.json()
    pause = body["waiting"][0]

    again = say(browser, thread, "charge 40 to order 4411", key)
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json()["run"] == body["run"]
    assert [p["id"] for p in again.json()["waiting"]] == [pause["id"]]
    assert again.json() == body
    # Nothing new started: the first pause was not superseded, and it still answers.
    listed = browser.request("GET", f"/threads/{thread}/interrupts").json()["interrupts"]
    assert [p["id"] for p in listed] == [pause["id"]]
    assert browser.resume(thread, pause, "approve").status_code == 200

    # The same key with another body is refused and starts nothing either.
    other = say(browser, thread, "charge 41 to order 4411", key)
    assert other.status_code == 422 and other.json()["error"] == "idempotency_mismatch"
    assert other.json()["detail"] == IdempotencyMismatch.detail
    # The structured-field form of the same key is the same key.
    assert say(browser, thread, "charge 40 to order 4411", f'"{key}"').json()["run"] == body["run"]
    browser.close()


@pytest.mark.server
def test_without_a_key_or_with_another_key_a_turn_is_a_new_run(server):
    browser = Browser(server.url)
    thread = f"i-2-{RUN}"
    first = say(browser, thread, "show order 4411", "k-1").json()
    assert say(browser, thread, "show order 4411", "k-2").json()["run"] != first["run"]
    assert say(browser, thread, "show order 4411", None).json()["run"] != first["run"]
    # Keys are per session: another browser's same key is its own.
    stranger = Browser(server.url)
    assert say(stranger, f"i-3-{RUN}", "show order 4411", "k-1").status_code == 200
    browser.close()
    stranger.close()


@pytest.mark.server
@pytest.mark.parametrize("key", ["", "k" * 256, "clé"])
def test_a_malformed_key_is_400(server, key):
    browser = Browser(server.url)
    response = browser.request("POST", f"/threads/i-4-{RUN}/messages", json={"text": "show order 4411"},
                               headers={"Idempotency-Key": key.encode()})
    assert response.status_code == 400 and response.json()["detail"] == DETAIL_BAD_KEY
    assert browser.request("GET", f"/threads/i-4-{RUN}/interrupts").status_code == 404
    browser.close()


def turn_with(key: str, text: str = "charge 40 to order 4411", thread: str = "t-1"):  # type: ignore[no-untyped-def]
    from threads.engine import turn_submit
    from threads.keys import thread_key

    body = {"text": text}
    asked = replay_key(session_hash="s" * 64, key=key, thread_id=thread, body=body)
    return asked, turn_submit(thread_id=thread_key(thread, "s" * 64), session_hash="s" * 64, text=text,
                              replay=asked)


@pytest.mark.django_db(transaction=True)
def test_a_retry_while_the_first_is_still_answering_is_409_then_replays_once_kept(shop_dir):
    asked, first = turn_with("k-409")  # its answer not kept yet: still being answered, on a live worker
    with pytest.raises(IdempotencyInProgress):
        answered(turn_with("k-409")[1], asked)
    assert answered(first, asked)[0] == 200  # kept now
    status, body, headers = answered(turn_with("k-409")[1], asked)
    assert (status, body["run"], headers) == (200, first.run, {"Idempotent-Replayed": "true"})
    assert Run.objects.count() == 1
    with pytest.raises(IdempotencyMismatch):
        other, again = turn_with("k-409", text="charge 10 to order 4411")
        answered(again, other)


@pytest.mark.django_db(transaction=True)
def test_a_first_answer_whose_worker_died_is_given_as_its_run_stands_never_409_for_ever(shop_dir):
    asked, first = turn_with("k-dead")
    Replay.objects.filter(pk=first.replay_id).update(lease_owner="a-worker-that-died",
                                                     lease_at=timezone.now() - timedelta(minutes=5))
    status, body, headers = answered(turn_with("k-dead")[1], asked)
    assert (status, body["run"], headers) == (200, first.run, {"Idempotent-Replayed": "true"})
    assert [p["tool"] for p in body["waiting"]] == ["charge_card"] and Run.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_key_older_than_a_day_is_forgotten(shop_dir):
    asked, first = turn_with("k-old", text="show order 4411")
    answered(first, asked)
    Replay.objects.filter(pk=first.replay_id).update(created_at=timezone.now() - timedelta(hours=24, seconds=1))
    _, later = turn_with("k-old", text="show order 4411")
    assert later.replayed is None and later.run != first.run


@pytest.mark.django_db(transaction=True)
def test_a_500_before_the_turn_was_stored_keeps_nothing_so_the_retry_runs(shop_dir, monkeypatch):
    import json

    from django.test import Client

    import doors.http.api as api

    client = Client(raise_request_exception=False)
    body = json.dumps({"text": "show order 4411"})
    headers = {"HTTP_IDEMPOTENCY_KEY": "k-500", "HTTP_STALWART_SESSION": "s" * 24}
    real = api.turn_submit
    monkeypatch.setattr(api, "turn_submit", lambda **kw: 1 / 0)
    failed = client.post("/threads/i-5/messages", body, content_type="application/json", **headers)
    assert failed.status_code == 500 and failed.json()["error"] == "internal"
    monkeypatch.setattr(api, "turn_submit", real)
    retried = client.post("/threads/i-5/messages", body, content_type="application/json", **headers)
    assert retried.status_code == 200 and "Idempotent-Replayed" not in retried.headers
    again = client.post("/threads/i-5/messages", body, content_type="application/json", **headers)
    assert again.json()["run"] == retried.json()["run"] and again.headers["Idempotent-Replayed"] == "true"


@pytest.mark.django_db(transaction=True)
def test_a_500_after_the_turn_was_stored_gives_the_retry_that_turn_never_a_second(shop_dir, monkeypatch):
    import json

    from django.test import Client

    from threads.engine import turns

    client = Client(raise_request_exception=False)
    body = json.dumps({"text": "show order 4411"})
    headers = {"HTTP_IDEMPOTENCY_KEY": "k-500-late", "HTTP_STALWART_SESSION": "s" * 24}
    real = turns.run_advance
    monkeypatch.setattr(turns, "run_advance", lambda *a, **kw: 1 / 0)  # stored, then the read's send fails
    failed = client.post("/threads/i-6/messages", body, content_type="application/json", **headers)
    assert failed.status_code == 500 and Run.objects.count() == 1
    monkeypatch.setattr(turns, "run_advance", real)
    retried = client.post("/threads/i-6/messages", body, content_type="application/json", **headers)
    assert retried.status_code == 200 and retried.headers["Idempotent-Replayed"] == "true"
    assert retried.json()["run"] == Run.objects.get().id and Run.objects.count() == 1
