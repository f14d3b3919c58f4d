"""The ASGI application ``stalwart serve`` runs (HTTP and WebSocket, Channels)."""

from __future__ import annotations

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "stalwart_site.settings")

from django.core.asgi import get_asgi_application  # noqa: E402

from stalwart_site.embed import EmbeddableStaticFilesHandler  # noqa: E402

# The widget's few static files are served by the app itself: `stalwart serve`
# needs no separate web server or collectstatic step. They carry the same CORS
# grant as the API, for the pages STALWART_EMBED_ORIGINS names.
django_app = EmbeddableStaticFilesHandler(get_asgi_application())

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter  # noqa: E402

from stalwart_site.routing import CleanRouter, websocket_urlpatterns  # noqa: E402
from stalwart_site.streaming import StreamRouter  # noqa: E402

# The thread stream is answered before Django's handler, so an open stream
# holds no thread (stalwart_site.streaming); AuthMiddlewareStack reads the
# admin's session cookie, so staff may follow any thread over WebSocket too.
application = ProtocolTypeRouter({
    "http": StreamRouter(django_app),
    "websocket": AuthMiddlewareStack(CleanRouter(websocket_urlpatterns)),
})
