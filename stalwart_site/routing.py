"""The routes Channels answers before (or instead of) Django, and a router
that closes an unknown WebSocket route cleanly.

HTTP: ``GET /threads/{id}/stream`` is a Channels consumer (an open stream is
a coroutine and a channel-layer subscription, no thread), with Channels'
cookie, session and auth middleware for the admin's cookie, and so is the
console's staff stream ``GET /admin/threads/interrupt/stream``; ``/mcp/`` and
``/mcp/<agent>/`` are the MCP gateway (``doors.mcp.http``); every
other path goes to Django. The scope of every HTTP request says the stream is
served (``stalwart_streams``), so ``/config.json`` tells the widget to follow
it. WebSocket: ``/ws/threads/{id}/``.

Channels' ``URLRouter`` raises ``ValueError("No route found ...")`` for a
path it does not know, which daphne turns into an HTTP 500 at the
handshake; ``CleanRouter`` refuses the handshake instead (a close before
accept).
"""

from __future__ import annotations

import logging
from typing import Any

from channels.auth import AuthMiddlewareStack
from channels.routing import URLRouter
from django.urls import re_path

from threads.consumers import ThreadEventsConsumer, ThreadStreamConsumer

log = logging.getLogger("stalwart")

websocket_urlpatterns: list[Any] = [
    re_path(r"^ws/threads/(?P<thread_id>[^/]+)/?$", ThreadEventsConsumer.as_asgi()),
]


class StreamsServed:
    """Marks each HTTP request as served by an application that streams threads."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        await self.app({**scope, "stalwart_streams": True}, receive, send)


def http_router(django_app: Any) -> Any:
    from approvals.streams import StaffPausesConsumer
    from doors.mcp.http import mcp_app

    return StreamsServed(URLRouter([
        re_path(r"^threads/(?P<thread_id>[^/]+)/stream$", AuthMiddlewareStack(ThreadStreamConsumer.as_asgi())),
        # The console's staff stream: pauses opened and closed across threads (approvals.streams).
        re_path(r"^admin/threads/interrupt/stream$", AuthMiddlewareStack(StaffPausesConsumer.as_asgi())),
        re_path(r"^mcp/?$", mcp_app),
        re_path(r"^mcp/(?P<agent>[^/]+)/?$", mcp_app),
        re_path(r"", django_app),
    ]))


class CleanRouter:
    """``URLRouter`` whose unknown routes close the socket instead of raising."""

    def __init__(self, routes: list[Any]) -> None:
        self.router = URLRouter(routes)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        try:
            await self.router(scope, receive, send)
        except ValueError as exc:
            if "No route found" not in str(exc):
                raise
            if scope.get("type") == "websocket":
                message = await receive()  # websocket.connect
                if message.get("type") == "websocket.connect":
                    await send({"type": "websocket.close", "code": 4404})
