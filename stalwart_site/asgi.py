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

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from stalwart_site.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter({"http": django_app, "websocket": URLRouter(websocket_urlpatterns)})
