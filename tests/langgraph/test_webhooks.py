"""The bridge tells a webhook of each new mirrored pause: a receiver down at first is
listed in not_notified and never fails the run or the resume; once back it gets the
delivery, which verifies with the standardwebhooks package."""

from __future__ import annotations

import uuid
from pathlib import Path

import httpx
import pytest
import standardwebhooks

from approvals.webhooks import HEADER, verify
from tests.langgraph.graphs import say
from tests.support.receiver import Receiver
from tests.support.server import Server, free_port

pytestmark = pytest.mark.server
SECRET = "hook-s3cret-long-enough-for-a-signing-key"


def test_a_mirrored_pause_is_delivered_signed_and_a_failed_delivery_never_fails_the_resume(tmp_path: Path):
    port = free_port()
    url = f"http://127.0.0.1:{port}/hook"
    server = Server(tmp_path, module="tests.langgraph.graphs:mail_agent",
                    env={"STALWART_WEBHOOK_URL": url, "STALWART_WEBHOOK_SECRET": SECRET}).start(timeout=180)
    try:
        thread = f"w-{uuid.uuid4().hex[:8]}"
        started = httpx.post(f"{server.url}/threads/{thread}/runs", timeout=60.0,
                             json={"if_not_exists": "create", "input": say(("send_email", {"to": "ana@example.com", "body": "hi"}))})
        assert started.status_code == 200, started.text
        pause = httpx.get(f"{server.url}/threads/{thread}/interrupts", timeout=60.0).json()["waiting"][0]
        receiver = Receiver(port)  # back up
        try:
            headers, posted = receiver.wait(1, timeout=30)[0]
        finally:
            receiver.close()
        assert verify(headers[HEADER.lower()], posted, SECRET)
        sent = standardwebhooks.Webhook(SECRET.encode()).verify(posted, headers)
        assert sent["type"] == "waiting" and sent["interrupt"] == pause
        done = httpx.post(f"{server.url}/threads/{thread}/resume", timeout=60.0,
                          json={"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]})
        assert done.status_code == 200 and done.json()["resumed"] is True
    finally:
        server.stop()
