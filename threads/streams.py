"""A thread's events as they happen (docs/http-api.md): what the SSE stream at
``GET /threads/{id}/stream`` and the WebSocket at ``/ws/threads/{id}/`` send
(their consumers: ``threads.consumers``).

Wire format, one block per stored event::

    id: <the thread's sequence number>
    event: <type>
    data: <JSON object on one line>

with a ``retry:`` advice first and a comment line (``: heartbeat``) every
``HEARTBEAT`` seconds so proxies keep the connection open.

Replay then live, with no gap and no duplicate: the listener joins the
thread's channel-layer group *first*, then reads the stored events after
``Last-Event-ID`` from the database, then forwards live ones, dropping any
whose ``seq`` it has already sent; a quiet stream also reads the database
once a minute, and after a channel-layer failure, so a live message lost on
the way still arrives. Sequence numbers are taken under the
thread row's lock and committed in order, so a live event whose ``seq`` is
more than one past the last sent means something was missed (another worker's
publish arrived later, or a layer dropped one): the gap is read back from the
database before going on.

The consumers are async, so under daphne an open stream holds no thread; the
ORM is reached only through ``db_call``.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from channels.db import database_sync_to_async

from threads.engine.events import EventType
from threads.engine.pauses import shown_with_token
from threads.models import Event

log = logging.getLogger("stalwart.streams")

HEARTBEAT = 15.0
RETRY_MS = 3000
REPLAY_LIMIT = 1000
CATCH_UP_EVERY = 4  # heartbeats: a quiet stream reads the database once a minute
T = TypeVar("T")
LAST_EVENT_ID_RE = re.compile(r"[0-9]{1,18}")


def db_call(fn: Callable[..., T]) -> Callable[..., Awaitable[T]]:
    """``fn`` as Channels runs the ORM from async code (``database_sync_to_async``:
    its connection closed after, back to the pool), on the shared worker pool.

    Not thread-sensitive: under Django's ASGI handler a thread-sensitive call
    would tie the request to a thread of its own for as long as the stream is
    open; outside it, every stream would queue on one thread.
    """
    return database_sync_to_async(fn, thread_sensitive=False)  # type: ignore[no-any-return]


def event_dict(seq: int, type_: str, data: Any) -> dict[str, Any]:
    if type_ == EventType.WAITING and isinstance(data, dict):
        data = shown_with_token(data)
    return {"id": seq, "event": type_, "data": data}


def events_after(thread_id: str, after: int, upto: int | None = None) -> list[dict[str, Any]]:
    """Stored events with ``after < seq [<= upto]``, in order."""
    rows = Event.objects.filter(thread_id=thread_id, seq__gt=after)
    if upto is not None:
        rows = rows.filter(seq__lte=upto)
    return [event_dict(e.seq, e.type, e.data) for e in rows.order_by("seq")[:REPLAY_LIMIT]]


def last_event_id_given(value: str | None) -> int | None:
    """The number a ``Last-Event-ID`` gives (ASCII digits, at most 18), or None when
    there is none or it is not one: a browser's stream then starts afresh."""
    value = (value or "").strip()
    if not LAST_EVENT_ID_RE.fullmatch(value):
        return None
    return int(value)


def parse_last_event_id(value: str | None) -> int:
    """Where a thread's stream resumes: after the event given, or from the start."""
    return last_event_id_given(value) or 0


class ThreadFeed:
    """Replay-then-live for one listener: ``accept`` takes a live message and
    returns the events to send (none for a duplicate; the gap read back
    first when one was skipped)."""

    def __init__(self, thread_id: str, last: int) -> None:
        self.thread_id = thread_id
        self.last = last

    async def replay(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        while True:  # REPLAY_LIMIT a page, until caught up
            page = await db_call(events_after)(self.thread_id, self.last)
            out.extend(page)
            if page:
                self.last = page[-1]["id"]
            if len(page) < REPLAY_LIMIT:
                return out

    async def accept(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        """A live message holds one transaction's events (``events``), or one event."""
        out: list[dict[str, Any]] = []
        for one in message.get("events") or [message]:
            out.extend(await self._accept_one(one))
        return out

    async def _accept_one(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        seq = int(message["seq"])
        if seq <= self.last:
            return []  # already sent by the replay (or a duplicate publish)
        if seq > self.last + 1:
            missed = await db_call(events_after)(self.thread_id, self.last, seq)
            if missed and missed[-1]["id"] == seq:
                self.last = seq
                return missed
            out = missed
        else:
            out = []
        out.append(event_dict(seq, message["event"], message["data"]))
        self.last = seq
        return out


def stream_headers() -> list[tuple[bytes, bytes]]:
    return [(b"content-type", b"text/event-stream; charset=utf-8"), (b"cache-control", b"no-store"),
            # a proxy in front must not hold the events back
            (b"x-accel-buffering", b"no"), (b"x-content-type-options", b"nosniff")]


def sse_block(event: dict[str, Any]) -> str:
    data = json.dumps(event["data"], separators=(",", ":"), ensure_ascii=False)
    return f"id: {event['id']}\nevent: {event['event']}\ndata: {data}\n\n"
