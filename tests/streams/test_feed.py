"""Replay-then-live in process: heartbeats, duplicates dropped, gaps read back."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from django.db import transaction

from threads.engine import EventType, event_append
from threads.models import Thread
from threads.streams import RETRY_MS, ThreadFeed, sse_block, sse_events

pytestmark = pytest.mark.django_db(transaction=True)


def make_thread(thread_id: str = "feed-1", events: int = 0) -> Thread:
    thread = Thread.objects.create(id=thread_id, session_hash="x" * 64, agent="Shop")
    for i in range(events):
        with transaction.atomic():
            event_append(thread_id, EventType.STEP, {"step": i + 1})
    return thread


def live(seq: int) -> dict[str, Any]:
    return {"type": "thread.event", "seq": seq, "event": "step", "data": {"step": seq}}


def test_a_quiet_stream_advises_a_retry_then_sends_heartbeat_comments():
    make_thread()

    async def first_three() -> list[str]:
        stream = sse_events("feed-1", 0, heartbeat=0.05)
        out = [await anext(stream) for _ in range(3)]
        await stream.aclose()
        return out

    assert asyncio.run(first_three()) == [f"retry: {RETRY_MS}\n\n", ": heartbeat\n\n", ": heartbeat\n\n"]


def test_live_events_already_replayed_are_dropped_and_a_gap_is_read_back_from_the_database():
    make_thread(events=5)

    async def run() -> tuple[list[int], list[int], list[int], list[int]]:
        feed = ThreadFeed("feed-1", 2)
        replayed = [e["id"] for e in await feed.replay()]
        duplicate = [e["id"] for e in await feed.accept(live(5))]
        await asyncio.to_thread(lambda: [_append() for _ in range(2)])  # seq 6 and 7 stored
        gap = [e["id"] for e in await feed.accept(live(7))]  # 6 was never heard live
        late = [e["id"] for e in await feed.accept(live(6))]
        return replayed, duplicate, gap, late

    assert asyncio.run(run()) == ([3, 4, 5], [], [6, 7], [])


def test_one_transactions_events_arrive_as_one_message_and_play_in_order():
    from threads.engine.events import events_batched

    make_thread(events=1)
    with transaction.atomic(), events_batched():
        for step in (2, 3, 4):
            event_append("feed-1", EventType.STEP, {"step": step})
    batch = {"type": "thread.event", "events": [
        {"seq": seq, "event": "step", "data": {"step": seq}} for seq in (2, 3, 4)]}

    async def run() -> tuple[list[int], list[int], list[int]]:
        feed = ThreadFeed("feed-1", 1)
        first = [e["id"] for e in await feed.accept(batch)]
        again = [e["id"] for e in await feed.accept(batch)]  # a duplicate publish: nothing twice
        behind = ThreadFeed("feed-1", 0)  # missed seq 1: read back before the batch
        caught = [e["id"] for e in await behind.accept(batch)]
        return first, again, caught

    assert asyncio.run(run()) == ([2, 3, 4], [], [1, 2, 3, 4])
    assert list(Thread.objects.get(pk="feed-1").events.order_by("seq").values_list("seq", "data__step")) == [
        (1, 1), (2, 2), (3, 3), (4, 4)]


def test_a_batch_that_raises_writes_no_event():
    from threads.engine.events import events_batched

    make_thread(events=1)
    with pytest.raises(RuntimeError), transaction.atomic(), events_batched():
        event_append("feed-1", EventType.STEP, {"step": 2})
        raise RuntimeError("the change failed")
    thread = Thread.objects.get(pk="feed-1")
    assert (thread.event_seq, thread.events.count()) == (1, 1)


def _append() -> None:
    with transaction.atomic():
        event_append("feed-1", EventType.STEP, {"step": 0})


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
    monkeypatch.setattr("threads.streams.get_channel_layer", FlakyLayer)

    async def run() -> list[str]:
        stream = sse_events("feed-1", 1, heartbeat=30)
        out = [await anext(stream)]  # retry advice; the replay is empty
        await asyncio.to_thread(_append)  # committed while the layer was failing: never heard live
        FlakyLayer.fail_now = True
        out.append(await asyncio.wait_for(anext(stream), timeout=5))
        await stream.aclose()
        return out

    retry, caught_up = asyncio.run(run())
    assert retry.startswith("retry:") and caught_up.startswith("id: 2\nevent: step\n")
