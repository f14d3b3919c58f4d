"""The gateway's store of 2025-11-25 stream events (``doors.mcp.events``):
what a ``Last-Event-ID`` replays, to whom, and how much it keeps."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from doors.mcp.events import Events


def replayed(events: Events, session: str, event_id: str) -> tuple[str | None, list[Any]]:
    sent: list[Any] = []

    async def send(message: Any) -> None:
        sent.append(message.message)

    stream = asyncio.run(events.of(session).replay_events_after(event_id, send))
    return stream, sent


def stored(events: Events, session: str, stream: str, message: Any) -> str:
    return asyncio.run(events.of(session).store_event(stream, message))


def test_a_last_event_id_replays_what_came_after_it_on_its_stream_only():
    events = Events()
    primed = stored(events, "s1", "2", None)
    stored(events, "s1", "3", "another request's")
    stored(events, "s1", "2", "progress")
    stored(events, "s1", "2", "result")
    assert replayed(events, "s1", primed) == ("2", ["progress", "result"])


def test_a_session_never_replays_anothers_stream_though_their_request_ids_are_the_same():
    events = Events()
    mine = stored(events, "s1", "2", None)
    stored(events, "s1", "2", "my result")
    theirs = stored(events, "s2", "2", None)
    assert replayed(events, "s2", mine) == (None, [])
    assert replayed(events, "s2", theirs) == ("2", [])
    assert replayed(events, "s1", mine) == ("2", ["my result"])


@pytest.mark.parametrize("event_id", ["", "x", "1", "1-", "-1", "99-1", "1-x"])
def test_an_event_id_it_never_gave_replays_nothing(event_id):
    events = Events()
    stored(events, "s1", "2", None)
    assert replayed(events, "s1", event_id) == (None, [])


def test_memory_is_bounded_per_stream_in_streams_and_in_time(monkeypatch):
    events = Events(per_stream=3, streams=2, keep=10)
    first = stored(events, "s1", "1", None)
    for n in range(5):
        stored(events, "s1", "1", f"m{n}")
    assert replayed(events, "s1", first) == ("1", ["m2", "m3", "m4"])  # the last three; the result is the last
    second = stored(events, "s1", "2", None)
    stored(events, "s1", "3", None)  # a third stream: the least recently written one goes
    assert replayed(events, "s1", first) == (None, [])
    assert replayed(events, "s1", second)[0] == "2"
    import doors.mcp.events as module

    now = module.time.monotonic()
    monkeypatch.setattr(module.time, "monotonic", lambda: now + 11)
    assert replayed(events, "s1", second) == (None, [])  # nothing written to it for longer than kept
