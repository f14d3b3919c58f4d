"""Who is told that a pause opened, without the engine importing them.

The answering side registers its listener from below-up
(``approvals.apps.ApprovalsConfig.ready`` calls ``pause_listener_add``);
the engine calls ``pause_opened`` after the pause commits. A listener returns
the deliveries that failed; they are kept for this thread of the process
until ``take_failures`` hands them to the answer (``not_notified``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from threads.models import Interrupt

PauseListener = Callable[[Interrupt], list[dict[str, Any]]]

_listeners: list[PauseListener] = []
_failed = threading.local()


def pause_listener_add(listener: PauseListener) -> None:
    if listener not in _listeners:
        _listeners.append(listener)


def pause_opened(pause: Interrupt) -> None:
    for listener in _listeners:
        failures = listener(pause)
        if failures:
            _failed.items = [*getattr(_failed, "items", []), *failures]


def take_failures() -> list[dict[str, Any]]:
    failures = list(getattr(_failed, "items", []))
    _failed.items = []
    return failures
