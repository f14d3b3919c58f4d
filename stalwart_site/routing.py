"""WebSocket routes (the thread streams arrive with the streams issue)."""

from __future__ import annotations

from typing import Any

websocket_urlpatterns: list[Any] = []
