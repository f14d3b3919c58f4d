"""The ``on_interrupt`` listeners of this process, each under a key that names
it the same way in every process: ``webhook:<url>`` for a ``Webhook``, else
the callable's ``key`` attribute or its dotted name. The outbox stores the key
with each delivery; a worker delivers only to listeners it has itself."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Listener = Callable[..., Any]

_listeners: dict[str, Listener] = {}


def listener_key(listener: Listener) -> str:
    key = getattr(listener, "key", None)
    if isinstance(key, str) and key:
        return key
    url = getattr(listener, "url", None)
    if isinstance(url, str) and url:
        return "webhook:" + url
    name = getattr(listener, "__qualname__", None) or type(listener).__qualname__
    return f"callable:{getattr(listener, '__module__', '?')}.{name}"


def set_listeners(listeners: list[Listener]) -> None:
    _listeners.clear()
    for listener in listeners:
        _listeners[listener_key(listener)] = listener


def listeners() -> dict[str, Listener]:
    return dict(_listeners)
