"""Events across ``serve`` processes over Redis, and the check that asks for it."""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path

import pytest

from tests.e2e.conftest import on_postgres
from tests.support.server import Browser, Server
from tests.support.sse import SSEReader
from threads.selectors import SESSION_HEADER


@pytest.mark.server
@pytest.mark.skipif(not on_postgres(), reason="two workers share a PostgreSQL database (set DATABASE_URL)")
@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="events cross workers over Redis (set REDIS_URL)")
def test_a_stream_on_one_worker_sees_a_turn_and_an_answer_taken_on_another_within_a_second(shop_dir: Path):
    env = {"STALWART_WORKERS": "2"}
    with Server(shop_dir, env=env) as a, Server(shop_dir, env=env) as b:
        browser = Browser(b.url)
        thread = f"across-{uuid.uuid4().hex[:8]}"
        browser.say(thread, "show order 4411")
        reader = SSEReader(f"{a.url}/threads/{thread}/stream", headers={SESSION_HEADER: str(browser.session)})
        reader.take_until("reply")  # the replay, from the shared database
        said = browser.say(thread, "charge 40 to order 4411").json()
        sent = time.monotonic()
        live = reader.take_until("reply", timeout=1.0)
        assert [e["event"] for e in live] == ["turn", "waiting", "reply"]
        assert time.monotonic() - sent < 1.0
        answered = browser.resume(thread, said["waiting"][0], "approve").json()
        sent = time.monotonic()
        after = reader.take_until("reply", timeout=1.0)
        assert after[0]["event"] == "answered" and after[-1]["data"]["message"] == answered["reply"]["id"]
        assert time.monotonic() - sent < 1.0
        reader.close()
        browser.close()


@pytest.mark.server
def test_several_workers_without_redis_are_refused_at_start(shop_dir: Path):
    server = Server(shop_dir, env={"STALWART_WORKERS": "2", "REDIS_URL": "", "DEBUG": "False"})
    with pytest.raises(RuntimeError) as refused:
        server.start()
    assert "stalwart.E001" in str(refused.value)


def test_the_in_memory_layer_is_a_warning_unless_one_worker_is_said(settings):
    from stalwart_site.checks import channel_layer_check

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    settings.STALWART_WORKERS = 0  # not said
    assert [m.id for m in channel_layer_check()] == ["stalwart.W001"]
    settings.STALWART_WORKERS = 1
    assert channel_layer_check() == []
    settings.STALWART_WORKERS = 3
    settings.DEBUG = False
    assert [m.id for m in channel_layer_check()] == ["stalwart.E001"]
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels_redis.core.RedisChannelLayer",
                                           "CONFIG": {"hosts": ["redis://127.0.0.1:6379/0"]}}}
    assert channel_layer_check() == []
