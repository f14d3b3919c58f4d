"""WebSocket routes, and a router that closes an unknown one cleanly.

Channels' ``URLRouter`` raises ``ValueError("No route found ...")`` for a path
it does not know, which daphne turns into an HTTP 500 at the handshake;
``CleanRouter`` refuses the handshake instead (a close before accept).
"""

from __future__ import annotations

import logging
from typing import Any

from channels.routing import URLRouter
from django.urls import re_path

from threads.consumers import ThreadEventsConsumer

log = logging.getLogger("stalwart")

websocket_urlpatterns: list[Any] = [
    re_path(r"^ws/threads/(?P<thread_id>[^/]+)/?$", ThreadEventsConsumer.as_asgi()),
]


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
