"""``Idempotency-Key`` on ``POST /threads/{id}/messages`` against a real
`stalwart serve`: a retried turn answers the first response again and starts
nothing new (issue 14)."""

from __future__ import annotations

import uuid

import pytest

from tests.support.server import Browser, Server
from threads.errors import IdempotencyInProgress, IdempotencyMismatch
from doors.http.idempotency import DETAIL_BAD_KEY, fingerprint, idempotency_begin, idempotency_finish

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


@pytest.mark.django_db
def test_a_retry_while_the_first_is_still_running_is_409_then_replays_once_done():
    held = {"session_hash": "s" * 64, "key": "k-409"}
    mark = fingerprint("t-1", {"text": "charge 40 to order 4411"})
    assert idempotency_begin(**held, fingerprint=mark) is None
    with pytest.raises(IdempotencyInProgress):
        idempotency_begin(**held, fingerprint=mark)
    idempotency_finish(**held, status=200, body={"run": "r-1"})
    replay = idempotency_begin(**held, fingerprint=mark)
    assert replay is not None and replay.status == 200 and replay.body == {"run": "r-1"}


@pytest.mark.django_db
def test_a_key_older_than_a_day_is_forgotten():
    from datetime import timedelta

    from threads.models import IdempotencyKey

    held = {"session_hash": "s" * 64, "key": "k-old"}
    mark = fingerprint("t-1", {"text": "x"})
    idempotency_begin(**held, fingerprint=mark)
    idempotency_finish(**held, status=200, body={"run": "r-1"})
    row = IdempotencyKey.objects.get(key="k-old")
    IdempotencyKey.objects.filter(pk=row.pk).update(created_at=row.created_at - timedelta(hours=24, seconds=1))
    assert idempotency_begin(**held, fingerprint=mark) is None


@pytest.mark.django_db(transaction=True)
def test_a_500_keeps_nothing_so_the_retry_runs(shop_dir, monkeypatch):
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
