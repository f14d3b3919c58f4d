"""A thread's events to its followers (docs/http-api.md): server-sent events at
``GET /threads/{id}/stream`` and a WebSocket at ``/ws/threads/{id}/``,
both Channels consumers under ``stalwart_site.asgi``'s ``ProtocolTypeRouter``
with Channels' session and auth middleware (the admin's cookie).

Both send the same events with the same replay-then-live rule
(``threads.streams.ThreadFeed``): the consumer joins the thread's group
first, then replays what is stored after ``Last-Event-ID``, then forwards
live events, dropping those already sent and reading a gap back from the
database. A consumer handles one message at a time, so live events that
arrive during the replay wait their turn and are then dropped if already
sent.

Who may follow: the thread's session (``Stalwart-Session``, or ``?session=``
since EventSource and browser WebSockets cannot set headers), and active
staff by the admin's session cookie, which counts only from this site's own
pages (``threads.origins.same_site``). Everyone else: 404 on the stream, a
refused handshake on the socket. The stream is one implementation for every
origin: a page that embeds the widget (``STALWART_EMBED_ORIGINS``) gets its
CORS grant from the same consumer, preflight included.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs

from channels.consumer import get_handler_name
from channels.exceptions import StopConsumer
from channels.generic.http import AsyncHttpConsumer
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.utils.translation import gettext_lazy as _

from threads.engine.events import thread_group
from threads.errors import NotFound, StalwartError
from threads.origins import embedding_allowed, host_allowed, same_site
from threads.selectors import THREAD_KEY_RE, session_valid, thread_access_or_staff
from threads.streams import (
    CATCH_UP_EVERY,
    HEARTBEAT,
    RETRY_MS,
    ThreadFeed,
    db_call,
    parse_last_event_id,
    sse_block,
    stream_headers,
)

log = logging.getLogger("stalwart.streams")

CLOSE_REFUSED = 4404
CATCH_UP = "stream.catch_up"
DETAIL_GET_ONLY = _("This route takes GET.")
DETAIL_HOST = _("This server does not answer for that host.")


def scope_headers(scope: dict[str, Any]) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}


def scope_query(scope: dict[str, Any], name: str) -> str:
    return (parse_qs(scope.get("query_string", b"").decode("latin-1")).get(name) or [""])[0]


def scope_staff(scope: dict[str, Any], origin: str | None) -> bool:
    user = scope.get("user")
    return bool(user is not None and getattr(user, "is_active", False) and getattr(user, "is_staff", False)
                and same_site(origin))


class Follower:
    """What both consumers share. Their channel-layer receive survives a failing layer
    (Redis away for a moment): a failed receive becomes, after a second, a
    ``stream.catch_up`` message that reads the database, instead of ending
    every open stream at once. Channels' ``AsyncConsumer.__call__`` assigns
    ``channel_receive`` and then dispatches from it: the property below wraps
    what it assigns."""

    _layer_receive: Callable[[], Any]

    @property
    def channel_receive(self) -> Callable[[], Any]:
        return self._receive_or_catch_up

    @channel_receive.setter
    def channel_receive(self, receive: Callable[[], Any]) -> None:
        self._layer_receive = receive

    async def dispatch(self, message: dict[str, Any]) -> None:
        # Channels' own closes old database connections before every message, a hop
        # to the thread-sensitive executor that all open streams would queue on for
        # each live event; these consumers reach the database only through
        # ``db_call``, which closes its connection itself.
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def _receive_or_catch_up(self) -> dict[str, Any]:
        try:
            return dict(await self._layer_receive())
        except asyncio.CancelledError:
            raise
        except Exception:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # the stream is ending: a cancel the layer's client turned into its own error
            log.warning("a thread's follower: the channel layer failed; catching up from the database", exc_info=True)
            await asyncio.sleep(1.0)
            return {"type": CATCH_UP}


class ThreadStreamConsumer(Follower, AsyncHttpConsumer):  # type: ignore[misc]
    """``GET /threads/{id}/stream``: the thread's events as server-sent events."""

    feed: ThreadFeed | None = None
    group: str | None = None
    beating: asyncio.Task[None] | None = None

    async def http_request(self, message: dict[str, Any]) -> None:
        # AsyncHttpConsumer ends the response when ``handle`` returns; a stream
        # lives on, answering its group's messages, until the client leaves.
        self.body.append(message.get("body", b""))
        if message.get("more_body"):
            return
        if not await self.stream_open():
            raise StopConsumer()

    async def stream_open(self) -> bool:
        """Check the request and start the stream; False once an error was answered."""
        headers = scope_headers(self.scope)
        origin = headers.get("origin")
        grant = [(b"access-control-allow-origin", origin.encode("latin-1")), (b"vary", b"Origin")] \
            if embedding_allowed(origin) and origin else []
        if not host_allowed(headers.get("host", "")):
            await self._json(400, {"error": "bad_request", "detail": str(DETAIL_HOST)}, grant)
            return False
        if settings.SECURE_SSL_REDIRECT and self.scope.get("scheme") != "https" \
                and headers.get("x-forwarded-proto") != "https":
            location = f"https://{headers.get('host', '')}{self.scope.get('path', '')}"
            await self.send_response(301, b"", headers=[(b"location", location.encode("latin-1"))])
            return False
        method = self.scope.get("method")
        if method == "OPTIONS" and grant:
            await self.send_response(200, b"", headers=[*grant, *self._preflight()])
            return False
        if method != "GET":
            await self._json(405, {"error": "bad_request", "detail": str(DETAIL_GET_ONLY)}, grant)
            return False
        thread_id = str(self.scope["url_route"]["kwargs"].get("thread_id", ""))
        try:
            if not THREAD_KEY_RE.match(thread_id):
                raise NotFound()
            last = parse_last_event_id(headers.get("last-event-id") or scope_query(self.scope, "last_event_id"))
            session = headers.get("stalwart-session") or scope_query(self.scope, "session")
            thread = await db_call(thread_access_or_staff)(
                thread_id=thread_id, session=session if session_valid(session) else "",
                staff=scope_staff(self.scope, origin))
        except StalwartError as err:
            await self._json(err.http_status, err.body(), grant)
            return False
        thread_id = thread.id  # the session's name found as its key (staff give the key)
        self.lock = asyncio.Lock()
        self.group = thread_group(thread_id)
        # Join the group before reading the database: an event committed in
        # between arrives live and is dropped as a duplicate, never lost.
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.send_headers(status=200, headers=[*stream_headers(), *grant])
        await self.send_body(f"retry: {RETRY_MS}\n\n".encode(), more_body=True)
        self.feed = ThreadFeed(thread_id, last)
        await self.catch_up()
        self.beating = asyncio.ensure_future(self.beat())
        return True

    @staticmethod
    def _preflight() -> list[tuple[bytes, bytes]]:
        return [(b"access-control-allow-methods", b"GET, OPTIONS"),
                (b"access-control-allow-headers", ", ".join(settings.CORS_ALLOW_HEADERS).encode()),
                (b"access-control-max-age", str(settings.CORS_PREFLIGHT_MAX_AGE).encode())]

    async def _json(self, status: int, body: dict[str, Any], grant: list[tuple[bytes, bytes]]) -> None:
        await self.send_response(status, json.dumps(body).encode(), headers=[
            (b"content-type", b"application/json"), (b"cache-control", b"no-store"), *grant])

    async def send_events(self, events: list[dict[str, Any]]) -> None:
        if events:
            await self.send_body("".join(sse_block(e) for e in events).encode(), more_body=True)

    async def catch_up(self) -> None:
        """What is stored after the last event sent (the replay, and every catch-up)."""
        assert self.feed is not None
        async with self.lock:
            await self.send_events(await self.feed.replay())

    async def beat(self) -> None:
        """A comment every ``HEARTBEAT`` seconds so proxies keep the stream open;
        every few, a read of the database, so a live message lost on the way still arrives."""
        beats = 0
        while True:
            await asyncio.sleep(HEARTBEAT)
            beats += 1
            async with self.lock:
                await self.send_body(b": heartbeat\n\n", more_body=True)
            if beats % CATCH_UP_EVERY == 0:
                await self.catch_up()

    async def thread_event(self, message: dict[str, Any]) -> None:
        if self.feed is None:
            return
        async with self.lock:
            await self.send_events(await self.feed.accept(message))

    async def stream_catch_up(self, message: dict[str, Any]) -> None:
        if self.feed is not None:
            await self.catch_up()

    async def disconnect(self) -> None:
        if self.beating is not None:
            self.beating.cancel()
        if self.group is not None:
            try:
                await self.channel_layer.group_discard(self.group, self.channel_name)
            except Exception:  # the client is gone either way; a layer that is down must not raise here
                log.warning("could not leave group %s", self.group, exc_info=True)


class ThreadEventsConsumer(Follower, AsyncJsonWebsocketConsumer):  # type: ignore[misc]
    """``/ws/threads/{id}/``: each message ``{"id", "event", "data"}``, the stream's events."""

    feed: ThreadFeed | None = None
    group: str | None = None

    async def connect(self) -> None:
        thread_id = str(self.scope["url_route"]["kwargs"].get("thread_id", ""))
        headers = scope_headers(self.scope)
        session = headers.get("stalwart-session") or scope_query(self.scope, "session")
        try:
            if not THREAD_KEY_RE.match(thread_id):
                raise StalwartError()
            last = parse_last_event_id(headers.get("last-event-id") or scope_query(self.scope, "last_event_id"))
            thread = await db_call(thread_access_or_staff)(
                thread_id=thread_id, session=session if session_valid(session) else "",
                staff=scope_staff(self.scope, headers.get("origin")))
        except StalwartError:
            await self.close(code=CLOSE_REFUSED)
            return
        thread_id = thread.id
        self.group = thread_group(thread_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        self.feed = ThreadFeed(thread_id, last)
        for event in await self.feed.replay():
            await self.send_json(event)

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None, **kwargs: Any) -> None:
        """The stream is one way: what a client sends (JSON or not) is ignored."""

    async def thread_event(self, message: dict[str, Any]) -> None:
        if self.feed is None:
            return
        for event in await self.feed.accept(message):
            await self.send_json(event)

    async def stream_catch_up(self, message: dict[str, Any]) -> None:
        if self.feed is not None:
            for event in await self.feed.replay():
                await self.send_json(event)
