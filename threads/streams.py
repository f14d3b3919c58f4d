"""A thread's events as they happen (SPEC §10): server-sent events at
``GET /threads/{id}/stream``; ``threads.consumers`` serves the same to
WebSocket clients.

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

The view is async and the stream is an async iterator, so under daphne an
open stream holds no thread; the ORM is reached only through
``sync_to_async``.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.db import connections
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse

from threads.engine.events import EventType, thread_group
from threads.engine.pauses import shown_with_token
from threads.errors import BadRequest, NotFound, StalwartError
from threads.models import Event
from threads.selectors import SESSION_HEADER, THREAD_ID_RE, session_valid, thread_access_or_staff

log = logging.getLogger("stalwart.streams")

HEARTBEAT = 15.0
RETRY_MS = 3000
REPLAY_LIMIT = 1000
CATCH_UP = "stream.catch_up"
CATCH_UP_EVERY = 4  # heartbeats: a quiet stream reads the database once a minute
T = TypeVar("T")
DETAIL_LAST_EVENT_ID = "Last-Event-ID is the number of the last event received (0 or more)."


def db_call(fn: Callable[..., T]) -> Callable[..., Awaitable[T]]:
    """``fn`` on the shared worker pool, its connection closed after.

    Not thread-sensitive: under Django's ASGI handler a thread-sensitive call
    would tie the request to a thread of its own for as long as the stream is
    open; outside it, every stream would queue on one thread.
    """
    def closing(*args: Any, **kwargs: Any) -> T:
        try:
            return fn(*args, **kwargs)
        finally:
            connections.close_all()

    return sync_to_async(closing, thread_sensitive=False)


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


def parse_last_event_id(value: str | None) -> int:
    if value is None or value.strip() == "":
        return 0
    value = value.strip()
    if not value.isdigit() or len(value) > 18:
        raise BadRequest(DETAIL_LAST_EVENT_ID)
    return int(value)


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


async def sse_events(thread_id: str, last: int, *, heartbeat: float = HEARTBEAT) -> AsyncIterator[str]:
    layer = get_channel_layer()
    feed = ThreadFeed(thread_id, last)
    queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    channel = group = None
    reader: asyncio.Task[None] | None = None
    try:
        if layer is not None:
            # Join the group before reading the database: an event committed
            # in between arrives live and is dropped as a duplicate, never lost.
            channel = await layer.new_channel()
            group = thread_group(thread_id)
            await layer.group_add(group, channel)

            async def read() -> None:
                while True:
                    try:
                        queue.put_nowait(await layer.receive(channel))
                    except asyncio.CancelledError:
                        raise
                    except Exception:  # Redis away for a moment: read again, and catch up from the database
                        log.warning("stream of thread %s: channel layer failed", thread_id, exc_info=True)
                        queue.put_nowait({"type": CATCH_UP})
                        await asyncio.sleep(1.0)

            reader = asyncio.ensure_future(read())
        yield f"retry: {RETRY_MS}\n\n"
        for event in await feed.replay():
            yield sse_block(event)
        quiet = 0
        while True:
            try:
                message = await asyncio.wait_for(queue.get(), timeout=heartbeat)
            except TimeoutError:
                yield ": heartbeat\n\n"
                quiet += 1
                if quiet % CATCH_UP_EVERY == 0:
                    message = {"type": CATCH_UP}  # a live message lost on the way still arrives
                else:
                    continue
            if message.get("type") == CATCH_UP:
                for event in await feed.replay():
                    yield sse_block(event)
                continue
            if message.get("type") != "thread.event":
                continue
            for event in await feed.accept(message):
                yield sse_block(event)
    finally:
        if reader is not None:
            reader.cancel()
        if layer is not None and channel is not None and group is not None:
            try:
                await layer.group_discard(group, channel)
            except Exception:  # the client is gone either way; a layer that is down must not raise here
                log.warning("could not leave group %s", group, exc_info=True)


def stream_session(request: HttpRequest) -> str:
    """The session from the header, or ``?session=`` (EventSource cannot set headers)."""
    given = request.headers.get(SESSION_HEADER) or request.GET.get("session") or ""
    return given if session_valid(given) else ""


async def thread_stream_view(request: HttpRequest, thread_id: str) -> HttpResponse:
    """``GET /threads/{id}/stream``: the thread's session or staff; everyone else 404."""
    try:
        if request.method != "GET":
            return JsonResponse({"error": "bad_request", "detail": "This route takes GET."}, status=405)
        if not THREAD_ID_RE.match(thread_id):
            raise NotFound()
        last = parse_last_event_id(request.headers.get("Last-Event-ID") or request.GET.get("last_event_id"))
        user = await request.auser() if hasattr(request, "auser") else None
        staff = bool(user is not None and user.is_active and user.is_staff)
        await db_call(thread_access_or_staff)(thread_id=thread_id, session=stream_session(request),
                                                     staff=staff)
    except StalwartError as err:
        return JsonResponse(err.body(), status=err.http_status)
    response = StreamingHttpResponse(sse_events(thread_id, last), content_type="text/event-stream; charset=utf-8")
    for name, value in stream_headers()[1:]:
        response[name.decode()] = value.decode()
    return response
