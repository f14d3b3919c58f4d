"""Telling the outside world of a new pause (SPEC §11's ``on_interrupt``).

``stalwart_site.serve.make_app(on_interrupt=[...])`` registers callables
here; each is told ``(thread, interrupt)`` after the pause commits. A
callable that fails never fails the turn: the failure is remembered and the
answer lists it under ``not_notified``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

log = logging.getLogger("stalwart")

_listeners: list[Callable[[str, dict[str, Any]], Any]] = []
_failed = threading.local()


def set_listeners(listeners: list[Callable[[str, dict[str, Any]], Any]]) -> None:
    _listeners[:] = list(listeners)


def take_failures() -> list[dict[str, Any]]:
    failures = list(getattr(_failed, "items", []))
    _failed.items = []
    return failures


def notify_pause(pause: Any) -> None:
    if not _listeners:
        return
    from threads.pauses import present

    shown = present(pause)
    for listener in _listeners:
        try:
            listener(pause.thread_id, shown)
        except Exception as exc:
            log.warning("could not notify %r of pause %s: %s", listener, pause.id, exc)
            items = getattr(_failed, "items", [])
            items.append({"interrupt": pause.id, "to": getattr(listener, "url", repr(listener)), "error": str(exc)})
            _failed.items = items
