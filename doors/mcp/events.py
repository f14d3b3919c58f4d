"""Resumable streams for 2025-11-25 clients (docs/mcp.md, "On the wire").

The MCP SDK's streamable HTTP transport resumes a stream through an
``EventStore``: with one, each POST's SSE stream begins with a priming event
(an ``id``, empty data, and ``retry``), every message sent on a stream is
stored with an id before it is written, and a ``GET`` with ``Last-Event-ID``
replays what came after that id, then carries the rest of the stream. A held
call whose connection dropped gets its result that way.

``Events`` is that store, in this process's memory: a session's streams live
on the worker that serves the session (as the session itself does). A
stream's id is its request's id, which is only unique within a session, so
each session has its own view (``Events.of``): a ``Last-Event-ID`` finds
nothing of another session's. Memory is bounded: at most ``PER_STREAM``
events a stream (the oldest dropped first; a stream's result is its last),
at most ``STREAMS`` streams in all (the least recently written dropped
first), and a stream nothing was written to for ``KEEP`` seconds is dropped.

``Manager`` is the SDK's session manager, giving each new session's
transport its view. The SDK passes one store to every session's transport,
so this overrides its ``_admit_session`` (private) and sets the transport's
``_event_store``; ``tests/e2e/test_mcp_wire.py`` resumes a stream, and tries
another session's event id, so a change there fails a test.
"""

from __future__ import annotations

import itertools
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Any

from mcp.server.streamable_http import EventCallback, EventMessage, EventStore
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

PER_STREAM = 100  # events kept a stream: a held call's progress every few seconds, then its result
STREAMS = 2000  # streams kept in all, on this worker
KEEP = 600.0  # seconds a stream is kept after its last event (the default replay window of a call's result)
RETRY_MS = 2000  # the SSE retry a client waits before it reconnects a dropped stream


@dataclass
class _Stream:
    stream_id: str
    serial: int
    events: deque[tuple[int, Any]] = field(default_factory=lambda: deque(maxlen=PER_STREAM))
    written: float = 0.0


class Events:
    """This process's stored stream events, by session and stream (see the module's docstring)."""

    def __init__(self, *, per_stream: int = PER_STREAM, streams: int = STREAMS, keep: float = KEEP) -> None:
        self.per_stream, self.streams, self.keep = per_stream, streams, keep
        self._streams: OrderedDict[tuple[str, str], _Stream] = OrderedDict()
        self._by_serial: dict[int, tuple[str, str]] = {}
        self._serials = itertools.count(1)
        self._seqs = itertools.count(1)

    def of(self, session: str) -> SessionEvents:
        return SessionEvents(self, session)

    def store(self, session: str, stream_id: str, message: Any) -> str:
        now = time.monotonic()
        self._expire(now)
        key = (session, stream_id)
        stream = self._streams.get(key)
        if stream is None:
            stream = _Stream(stream_id, next(self._serials), deque(maxlen=self.per_stream))
            self._streams[key] = stream
            self._by_serial[stream.serial] = key
            while len(self._streams) > self.streams:
                self._drop(next(iter(self._streams)))
        self._streams.move_to_end(key)
        stream.written = now
        seq = next(self._seqs)
        stream.events.append((seq, message))
        return f"{stream.serial}-{seq}"

    def after(self, session: str, event_id: str) -> tuple[str, list[tuple[str, Any]]] | None:
        """The stream of ``event_id`` (of this session only) and its messages stored after it."""
        self._expire(time.monotonic())
        serial, _, seq = event_id.partition("-")
        try:
            key = self._by_serial.get(int(serial))
            last = int(seq)
        except ValueError:
            return None
        if key is None or key[0] != session:
            return None
        stream = self._streams[key]
        return stream.stream_id, [(f"{stream.serial}-{n}", m) for n, m in stream.events if n > last and m is not None]

    def _expire(self, now: float) -> None:
        while self._streams:
            key, stream = next(iter(self._streams.items()))
            if now - stream.written < self.keep:
                return
            self._drop(key)

    def _drop(self, key: tuple[str, str]) -> None:
        stream = self._streams.pop(key)
        self._by_serial.pop(stream.serial, None)


class SessionEvents(EventStore):
    """One session's view of ``Events``: the SDK's ``EventStore``."""

    def __init__(self, events: Events, session: str) -> None:
        self.events, self.session = events, session

    async def store_event(self, stream_id: str, message: Any) -> str:
        return self.events.store(self.session, str(stream_id), message)

    async def replay_events_after(self, last_event_id: str, send_callback: EventCallback) -> str | None:
        found = self.events.after(self.session, last_event_id)
        if found is None:
            return None
        stream_id, messages = found
        for event_id, message in messages:
            await send_callback(EventMessage(message, event_id))
        return stream_id


class Manager(StreamableHTTPSessionManager):
    """The SDK's session manager, each session's transport with its own view of ``events``."""

    def __init__(self, *, events: Events, **kwargs: Any) -> None:
        super().__init__(event_store=None, retry_interval=RETRY_MS, **kwargs)
        self.events = events

    def _admit_session(self, requestor: Any) -> Any:
        transport = super()._admit_session(requestor)
        if transport is not None and transport.mcp_session_id:
            transport._event_store = self.events.of(transport.mcp_session_id)
        return transport
