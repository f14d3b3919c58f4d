"""``GET /threads/{id}/stream`` answered before Django's ASGI handler.

Django's ASGI handler runs each request inside its own ``ThreadSensitiveContext``
and its middleware (sessions, auth, messages) makes thread-sensitive calls,
so every request gets an OS thread of its own that lives until the response
ends: for a stream that is open for hours, a thread per open stream (measured:
202 threads with 200 streams). ``stalwart serve``'s application therefore
answers this one route with the small ASGI app below, which runs the same
code as the Django view (``threads.streams``: access, ``Last-Event-ID``,
replay then live) with no per-request context: an open stream is a coroutine
and a channel-layer subscription, nothing more. The Django view stays the
route for a team mounting ``stalwart_site.urls`` in its own project, for the
test client, and for cross-origin requests (an embedding page), which need
Django's middleware (CORS).
"""

from __future__ import annotations

import asyncio
import json
import re
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs, urlparse

from django.conf import settings
from django.http.request import split_domain_port, validate_host

from threads.errors import NotFound, StalwartError
from threads.selectors import THREAD_ID_RE, session_valid, thread_access_or_staff
from threads.streams import db_call, parse_last_event_id, sse_events, stream_headers

STREAM_PATH = re.compile(r"^/threads/(?P<thread_id>[^/]+)/stream$")


def staff_of(session_key: str) -> bool:
    """Whether the admin session behind this cookie is an active staff user (Django's own checks)."""
    from importlib import import_module

    from django.contrib.auth import get_user
    from django.http import HttpRequest

    request = HttpRequest()
    request.session = import_module(settings.SESSION_ENGINE).SessionStore(session_key)
    user = get_user(request)
    return bool(user.is_active and user.is_staff)


async def _json(send: Any, status: int, body: dict[str, Any]) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"cache-control", b"no-store")]})
    await send({"type": "http.response.body", "body": json.dumps(body).encode()})


async def stream_app(scope: dict[str, Any], receive: Any, send: Any, thread_id: str) -> None:
    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    try:
        if scope.get("method") != "GET":
            await _json(send, 405, {"error": "bad_request", "detail": "This route takes GET."})
            return
        if not THREAD_ID_RE.match(thread_id):
            raise NotFound()
        last = parse_last_event_id(headers.get("last-event-id") or (query.get("last_event_id") or [""])[0])
        session = headers.get("stalwart-session") or (query.get("session") or [""])[0]
        staff = False
        cookie = SimpleCookie(headers.get("cookie", "")).get(settings.SESSION_COOKIE_NAME)
        if cookie is not None and cookie.value:
            staff = await db_call(staff_of)(cookie.value)
        await db_call(thread_access_or_staff)(
            thread_id=thread_id, session=session if session_valid(session) else "", staff=staff)
    except StalwartError as err:
        await _json(send, err.http_status, err.body())
        return
    await send({"type": "http.response.start", "status": 200, "headers": stream_headers()})
    events = sse_events(thread_id, last)

    async def pump() -> None:
        async for chunk in events:
            await send({"type": "http.response.body", "body": chunk.encode(), "more_body": True})

    async def gone() -> None:
        while (await receive())["type"] != "http.disconnect":
            pass

    tasks = [asyncio.ensure_future(pump()), asyncio.ensure_future(gone())]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await events.aclose()


class StreamRouter:
    """Sends ``GET /threads/{id}/stream`` to ``stream_app`` and the rest to Django."""

    def __init__(self, django_app: Any) -> None:
        self.django_app = django_app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope.get("method") == "GET":
            match = STREAM_PATH.match(scope.get("path", ""))
            if match and same_origin(scope) and host_and_scheme_fine(scope):
                await stream_app(scope, receive, send, match["thread_id"])
                return
        await self.django_app(scope, receive, send)


def host_and_scheme_fine(scope: dict[str, Any]) -> bool:
    """What Django's middleware would not refuse or redirect (ALLOWED_HOSTS, SECURE_SSL_REDIRECT);
    anything else goes to Django, which answers it as for every other route."""
    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
    domain, _port = split_domain_port(headers.get("host", ""))
    if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        return False
    if settings.SECURE_SSL_REDIRECT:
        return scope.get("scheme") == "https" or headers.get("x-forwarded-proto") == "https"
    return True


def same_origin(scope: dict[str, Any]) -> bool:
    """A request from this site's own pages, or from no page at all.

    A cross-origin request (an embedding page) goes to the Django view, whose
    middleware answers CORS; it then costs a thread while it is open.
    """
    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
    origin = headers.get("origin")
    return not origin or urlparse(origin).netloc == headers.get("host", "")
