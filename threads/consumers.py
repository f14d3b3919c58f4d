"""The thread's events to WebSocket clients at ``/ws/threads/{id}/`` (SPEC §10).

Each message is ``{"id": <seq>, "event": <type>, "data": {...}}``, the same
events the SSE stream sends, with the same replay-then-live rule
(``threads.streams.ThreadFeed``): the group is joined before the replay, and
the consumer handles one message at a time, so live events that arrive while
the replay is read wait their turn and are then dropped if already sent.

The session comes from the ``Stalwart-Session`` header or the ``session``
query parameter (browsers cannot set headers on a WebSocket);
``last_event_id`` resumes. A session that does not own the thread is refused
at the handshake (close before accept: the client sees a rejected upgrade).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlparse

from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.http.request import split_domain_port, validate_host

from threads.engine.events import thread_group
from threads.errors import StalwartError
from threads.selectors import THREAD_ID_RE, session_valid, thread_access_or_staff
from threads.streams import ThreadFeed, db_call, parse_last_event_id

CLOSE_REFUSED = 4404


def same_site(origin: str | None) -> bool:
    if not origin:
        return True  # not a browser page (browsers always send Origin on a WebSocket)
    domain, _port = split_domain_port(urlparse(origin).netloc)
    return bool(domain) and validate_host(domain, settings.ALLOWED_HOSTS)


class ThreadEventsConsumer(AsyncJsonWebsocketConsumer):  # type: ignore[misc]
    feed: ThreadFeed | None = None
    group: str | None = None

    async def connect(self) -> None:
        thread_id = str(self.scope["url_route"]["kwargs"].get("thread_id", ""))
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in self.scope.get("headers", [])}
        session = headers.get("stalwart-session") or (query.get("session") or [""])[0]
        user = self.scope.get("user")
        # The admin's cookie counts only from a page of this site: a WebSocket has no
        # CORS, so another site's page could otherwise read threads with a staff cookie.
        staff = bool(user is not None and getattr(user, "is_active", False) and getattr(user, "is_staff", False)
                     and same_site(headers.get("origin")))
        try:
            if not THREAD_ID_RE.match(thread_id):
                raise StalwartError()
            last = parse_last_event_id(headers.get("last-event-id") or (query.get("last_event_id") or [""])[0])
            await db_call(thread_access_or_staff)(
                thread_id=thread_id, session=session if session_valid(session) else "", staff=staff)
        except StalwartError:
            await self.close(code=CLOSE_REFUSED)
            return
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
