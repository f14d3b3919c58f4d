"""``stalwart serve --webhook``: deliveries off the request path, against real processes."""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import standardwebhooks

from approvals.webhooks import HEADER, verify
from tests.support.receiver import Receiver
from tests.support.server import ROOT, SHOP, Browser, Server, free_port

pytestmark = pytest.mark.server
SECRET = "hook-s3cret-long-enough-for-a-signing-key"


def test_a_receiver_that_hangs_30_s_does_not_slow_a_turn(shop_dir: Path):
    receiver = Receiver()
    receiver.answers = [(204, {}, 30.0)]
    with Server(shop_dir, args=["--webhook", receiver.url], env={"STALWART_WEBHOOK_SECRET": SECRET}) as server:
        browser = Browser(server.url)
        thread = f"hang-{uuid.uuid4().hex[:8]}"
        started = time.monotonic()
        said = browser.say(thread, "charge 40 to order 4411")
        took = time.monotonic() - started
        assert said.status_code == 200 and said.json()["waiting"][0]["tool"] == "charge_card"
        assert took < 3.0, f"the turn took {took:.1f}s"
        late = said.json()["not_notified"]
        assert [(n["to"], n["retrying"]) for n in late] == [(receiver.url, True)]
        # The next turn is not held by the hanging delivery either.
        started = time.monotonic()
        assert browser.say(thread, "show order 4411").status_code == 200
        assert time.monotonic() - started < 3.0
        browser.close()
    receiver.close()


def test_a_receiver_down_at_first_gets_the_delivery_once_it_is_back_signed(shop_dir: Path):
    port = free_port()
    url = f"http://127.0.0.1:{port}/hook"
    with Server(shop_dir, env={"STALWART_WEBHOOK_URL": url, "STALWART_WEBHOOK_SECRET": SECRET}) as server:
        browser = Browser(server.url)
        thread = f"down-{uuid.uuid4().hex[:8]}"
        body = browser.say(thread, "charge 40 to order 4411").json()
        pause = body["waiting"][0]
        assert [n["interrupt"] for n in body["not_notified"]] == [pause["id"]]
        assert body["not_notified"][0]["to"] == url and body["not_notified"][0]["retrying"] is True
        receiver = Receiver(port)  # back up
        try:
            headers, posted = receiver.wait(1, timeout=15)[0]
        finally:
            receiver.close()
        assert verify(headers[HEADER.lower()], posted, SECRET)
        sent = standardwebhooks.Webhook(SECRET.encode()).verify(posted, headers)
        assert sent == {"type": "waiting", "thread": browser.key(thread), "interrupt": pause}  # by its key
        browser.close()


@pytest.mark.parametrize("secret", ["", "   "])
def test_a_webhook_without_a_secret_is_refused_at_start(shop_dir: Path, secret: str):
    import os

    env = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "DJANGO_SETTINGS_MODULE")}
    env.update({"STALWART_DATA_DIR": str(shop_dir), "STALWART_WEBHOOK_SECRET": secret})
    done = subprocess.run([sys.executable, "-m", "stalwart_site.cli", "serve", str(SHOP), "--port", str(free_port()),
                           "--webhook", "http://127.0.0.1:9/hook"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode != 0
    assert "STALWART_WEBHOOK_SECRET is set but blank" in done.stderr
    assert "Traceback" not in done.stderr
