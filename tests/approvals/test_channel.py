"""Approval from another channel: webhook deliveries and signed resumes."""

from __future__ import annotations

import json
import uuid

import httpx
import pytest

from approvals.notify import set_listeners
from approvals.webhooks import HEADER, Webhook, sign, verify
from tests.support.receiver import Receiver
from tests.support.server import Browser, Server, free_port, session_key


@pytest.mark.django_db(transaction=True)
def test_a_webhook_posts_each_new_pause_signed_and_a_failed_one_is_not_notified(shop_dir, monkeypatch):
    from django.test import Client

    from approvals import outbox

    monkeypatch.setattr(outbox, "FIRST_WAIT", 10.0)  # a loaded machine may take more than 0.3 s to deliver
    receiver = Receiver()
    dead = Webhook(f"http://127.0.0.1:{free_port()}/nobody", "s3cret-long-enough-for-a-signing-key", timeout=1.0)
    set_listeners([Webhook(receiver.url, "s3cret-long-enough-for-a-signing-key"), dead])
    try:
        response = Client().post("/threads/hook-1/messages", data=json.dumps({"text": "charge 40 to order 4411"}),
                                 content_type="application/json")
    finally:
        set_listeners([])
        receiver.close()
    assert response.status_code == 200
    body = response.json()
    assert [p["tool"] for p in body["waiting"]] == ["charge_card"]  # the turn did not fail
    headers, posted = receiver.posts[0]
    assert verify(headers[HEADER.lower()], posted, "s3cret-long-enough-for-a-signing-key")
    sent = json.loads(posted)
    # A webhook names the thread by its key, which a signed resume takes.
    assert sent["thread"] == session_key("hook-1", response.headers["Stalwart-Session"])
    assert sent["interrupt"]["id"] == body["waiting"][0]["id"]
    assert [n["interrupt"] for n in body["not_notified"]] == [body["waiting"][0]["id"]]
    assert body["not_notified"][0]["to"] == dead.url


@pytest.mark.server
def test_with_a_secret_only_a_signed_resume_is_taken(shop_dir):
    from examples.shop import tools as shop

    with Server(shop_dir, env={"STALWART_RESUME_SECRET": "s3cret-long-enough-for-a-signing-key"}) as server:
        browser = Browser(server.url)
        thread = f"signed-{uuid.uuid4().hex[:8]}"
        pause = browser.say(thread, "charge 40 to order 4411").json()["waiting"][0]
        unsigned = browser.resume(thread, pause, "approve")
        assert unsigned.status_code == 401 and unsigned.json()["error"] == "signature_invalid"
        body = json.dumps({"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]}).encode()
        wrong = httpx.post(f"{server.url}/threads/{thread}/resume", content=body,
                           headers={"Content-Type": "application/json", HEADER: sign(body, "not-it")})
        assert wrong.status_code == 401
        assert shop.charges() == []
        # The channel holds the secret but not the browser's session: it may answer any thread,
        # named by its key (the id alone names every session's thread of that id: 404).
        signed_headers = {"Content-Type": "application/json", HEADER: sign(body, "s3cret-long-enough-for-a-signing-key")}
        by_id = httpx.post(f"{server.url}/threads/{thread}/resume", content=body, headers=signed_headers)
        assert by_id.status_code == 404 and shop.charges() == []
        signed = httpx.post(f"{server.url}/threads/{browser.key(thread)}/resume", content=body, headers=signed_headers)
        assert signed.status_code == 200 and "ch-4411" in signed.json()["reply"]["text"]
        browser.close()
    assert len(shop.charges("4411")) == 1
