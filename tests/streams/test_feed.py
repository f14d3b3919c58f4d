"""Replay-then-live in process: the stream's consumer, heartbeats,
duplicates dropped, gaps read back, a failing channel layer caught up."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from channels.testing import ApplicationCommunicator
from django.contrib.auth.models import AnonymousUser

from threads.consumers import ThreadStreamConsumer
from threads.engine.events import EventType
from threads.engine.unit import unit
from threads.keys import thread_key
from threads.models import Thread
from threads.selectors import session_hash
from threads.streams import RETRY_MS, ThreadFeed, sse_block

pytestmark = pytest.mark.django_db(transaction=True)

SESSION = "feed-session-0123456789"
FEED_1 = thread_key("feed-1", session_hash(SESSION))  # the session's thread "feed-1", by its key


def make_thread(thread_id: str = "feed-1", events: int = 0) -> Thread:
    key = thread_key(thread_id, session_hash(SESSION))
    thread = Thread.objects.create(id=key, name=thread_id, session_hash=session_hash(SESSION), agent="Shop")
    for i in range(events):
        with unit(key) as u:
            u.event(EventType.STEP, {"step": i + 1})
    return thread


def stream_of(thread_id: str, last: int = 0) -> ApplicationCommunicator:
    """The stream's consumer as daphne would call it, for one GET."""
    return ApplicationCommunicator(ThreadStreamConsumer.as_asgi(), {
        "type": "http", "method": "GET", "path": f"/threads/{thread_id}/stream", "query_string": b"",
        "headers": [(b"host", b"testserver"), (b"stalwart-session", SESSION.encode()),
                    (b"last-event-id", str(last).encode())],
        "url_route": {"args": (), "kwargs": {"thread_id": thread_id}}, "user": AnonymousUser(),
    })


async def opened(stream: ApplicationCommunicator) -> dict[str, Any]:
    await stream.send_input({"type": "http.request", "body": b"", "more_body": False})
    return await stream.receive_output(timeout=5)


async def chunk(stream: ApplicationCommunicator, timeout: float = 5) -> str:
    message = await stream.receive_output(timeout=timeout)
    assert message["type"] == "http.response.body" and message.get("more_body") is True
    return bytes(message["body"]).decode()


def live(seq: int) -> dict[str, Any]:
    return {"type": "thread.event", "seq": seq, "event": "step", "data": {"step": seq}}


def test_a_quiet_stream_advises_a_retry_then_sends_heartbeat_comments(monkeypatch):
    make_thread()
    monkeypatch.setattr("threads.consumers.HEARTBEAT", 0.05)

    async def first_three() -> tuple[dict[str, Any], list[str]]:
        stream = stream_of("feed-1")
        start = await opened(stream)
        out = [await chunk(stream) for _ in range(3)]
        await stream.send_input({"type": "http.disconnect"})
        await stream.wait(timeout=5)
        return start, out

    start, out = asyncio.run(first_three())
    assert start["status"] == 200 and (b"content-type", b"text/event-stream; charset=utf-8") in start["headers"]
    assert out == [f"retry: {RETRY_MS}\n\n", ": heartbeat\n\n", ": heartbeat\n\n"]


def test_another_session_gets_the_404_of_a_thread_that_does_not_exist():
    theirs = thread_key("feed-2", session_hash("another-session-0123456"))
    Thread.objects.create(id=theirs, name="feed-2", session_hash=session_hash("another-session-0123456"), agent="Shop")

    async def answers() -> list[tuple[int, Any]]:
        out = []
        for thread_id in ("feed-2", theirs, "feed-none"):
            stream = stream_of(thread_id)
            start = await opened(stream)
            body = await stream.receive_output(timeout=5)
            await stream.wait(timeout=5)  # the consumer ends with its answer, as daphne waits for it to
            out.append((start["status"], json.loads(body["body"])))
        return out

    # One event loop for the three, as in a server: the channel layer's Redis connections belong to a loop.
    assert asyncio.run(answers()) == [(404, {"error": "not_found", "detail": "There is nothing here."})] * 3


def test_live_events_already_replayed_are_dropped_and_a_gap_is_read_back_from_the_database():
    make_thread(events=5)

    async def run() -> tuple[list[int], list[int], list[int], list[int]]:
        feed = ThreadFeed(FEED_1, 2)
        replayed = [e["id"] for e in await feed.replay()]
        duplicate = [e["id"] for e in await feed.accept(live(5))]
        await asyncio.to_thread(lambda: [_append() for _ in range(2)])  # seq 6 and 7 stored
        gap = [e["id"] for e in await feed.accept(live(7))]  # 6 was never heard live
        late = [e["id"] for e in await feed.accept(live(6))]
        return replayed, duplicate, gap, late

    assert asyncio.run(run()) == ([3, 4, 5], [], [6, 7], [])


def test_one_transactions_events_arrive_as_one_message_and_play_in_order():
    make_thread(events=1)
    with unit(FEED_1) as u:
        for step in (2, 3, 4):
            u.event(EventType.STEP, {"step": step})
    batch = {"type": "thread.event", "events": [
        {"seq": seq, "event": "step", "data": {"step": seq}} for seq in (2, 3, 4)]}

    async def run() -> tuple[list[int], list[int], list[int]]:
        feed = ThreadFeed(FEED_1, 1)
        first = [e["id"] for e in await feed.accept(batch)]
        again = [e["id"] for e in await feed.accept(batch)]  # a duplicate publish: nothing twice
        behind = ThreadFeed(FEED_1, 0)  # missed seq 1: read back before the batch
        caught = [e["id"] for e in await behind.accept(batch)]
        return first, again, caught

    assert asyncio.run(run()) == ([2, 3, 4], [], [1, 2, 3, 4])
    assert list(Thread.objects.get(pk=FEED_1).events.order_by("seq").values_list("seq", "data__step")) == [
        (1, 1), (2, 2), (3, 3), (4, 4)]


def test_a_unit_that_raises_writes_no_event():
    make_thread(events=1)
    with pytest.raises(RuntimeError), unit(FEED_1) as u:
        u.event(EventType.STEP, {"step": 2})
        raise RuntimeError("the change failed")
    thread = Thread.objects.get(pk=FEED_1)
    assert (thread.event_seq, thread.events.count()) == (1, 1)


def _append() -> None:
    with unit(FEED_1) as u:
        u.event(EventType.STEP, {"step": 0})


def test_an_sse_block_is_id_event_and_one_line_of_json():
    block = sse_block({"id": 7, "event": "reply", "data": {"text": "two\nlines", "é": 1}})
    assert block.endswith("\n\n") and block.count("\n") == 4
    lines = block.splitlines()
    assert lines[:2] == ["id: 7", "event: reply"]
    assert json.loads(lines[2].removeprefix("data: ")) == {"text": "two\nlines", "é": 1}


class FlakyLayer:
    """A channel layer whose first receive fails (Redis away for a moment), then hears nothing."""

    fail_now = False

    def __init__(self) -> None:
        self.calls = 0

    async def new_channel(self) -> str:
        return "specific.test!1"

    async def group_add(self, group: str, channel: str) -> None:
        pass

    async def group_discard(self, group: str, channel: str) -> None:
        pass

    async def receive(self, channel: str) -> dict[str, Any]:
        self.calls += 1
        if self.calls == 1:
            while not FlakyLayer.fail_now:
                await asyncio.sleep(0.02)
            raise ConnectionError("redis went away")
        await asyncio.sleep(3600)
        raise AssertionError("unreachable")


def test_after_a_channel_layer_failure_the_stream_catches_up_from_the_database(monkeypatch):
    make_thread(events=1)
    monkeypatch.setattr(FlakyLayer, "fail_now", False)
    monkeypatch.setattr("channels.consumer.get_channel_layer", lambda alias=None: FlakyLayer())

    async def run() -> list[str]:
        stream = stream_of("feed-1", last=1)
        await opened(stream)
        out = [await chunk(stream)]  # retry advice; the replay is empty
        await asyncio.to_thread(_append)  # committed while the layer was failing: never heard live
        FlakyLayer.fail_now = True
        out.append(await chunk(stream))
        await stream.send_input({"type": "http.disconnect"})
        await stream.wait(timeout=5)
        return out

    retry, caught_up = asyncio.run(run())
    assert retry.startswith("retry:") and caught_up.startswith("id: 2\nevent: step\n")
