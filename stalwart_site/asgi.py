"""The ASGI application ``stalwart serve`` runs (HTTP and WebSocket, Channels)."""

from __future__ import annotations

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "stalwart_site.settings")

from typing import Any  # noqa: E402

import django  # noqa: E402
from asgiref.sync import sync_to_async  # noqa: E402
from django.core.handlers.asgi import ASGIHandler  # noqa: E402
from django.http import HttpRequest, HttpResponseBase  # noqa: E402

from stalwart_site.embed import EmbeddableStaticFilesHandler  # noqa: E402


class OneHopHandler(ASGIHandler):
    """Django's ASGI handler with each request's middleware and view run in
    one hop to the request's thread, as under WSGI.

    Django's own builds its middleware chain for async, so every sync-only
    middleware and every hook of Django's ``MiddlewareMixin`` ones crosses
    between the event loop and the request's thread: 18 crossings for one
    ``POST /threads/{id}/messages`` here, about 3 ms of a 15 ms request under
    daphne on a slow machine. The views here are sync (the ORM is); the thread
    stream never reaches Django (a Channels consumer: ``stalwart_site.routing``).
    ``tests/test_asgi.py`` pins, per supported Django version, the two methods
    this overrides."""

    def load_middleware(self, is_async: bool = False) -> None:
        super().load_middleware(is_async=False)

    async def get_response_async(self, request: HttpRequest) -> HttpResponseBase:
        response: Any = await sync_to_async(self.get_response, thread_sensitive=True)(request)
        return response


django.setup(set_prefix=False)
# The widget's few static files are served by the app itself: `stalwart serve`
# needs no separate web server or collectstatic step. They carry the same CORS
# grant as the API, for the pages STALWART_EMBED_ORIGINS names.
django_app = EmbeddableStaticFilesHandler(OneHopHandler())

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter  # noqa: E402

from stalwart_site.routing import CleanRouter, http_router, websocket_urlpatterns  # noqa: E402

# A thread's stream is a Channels consumer before Django's handler, so an open
# stream holds no thread; AuthMiddlewareStack reads the admin's session cookie,
# so staff may follow any thread over SSE and WebSocket.
application = ProtocolTypeRouter({
    "http": http_router(django_app),
    "websocket": AuthMiddlewareStack(CleanRouter(websocket_urlpatterns)),
})
