"""Who is told that a pause opened, without the engine importing them.

The answering side registers its listener from below-up
(``approvals.apps.ApprovalsConfig.ready`` calls ``pause_listener_add``);
the engine calls ``pause_opened`` after the pause commits. A listener returns
the deliveries that failed; they are kept for this thread of the process
until ``take_failures`` hands them to the answer (``not_notified``).

Notices about a pause that already waits (SPEC §7.6) go the same way through
``notice_listener_add`` / ``pause_notice(pause, notice)``, ``notice`` being
the notice's ``type``: ``"expired"`` (closed past its deadline) or
``"escalation"`` (told again while it still waits). Issue 10's durable
outbox can register here too: a notice carries its ``type``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from threads.models import Interrupt

PauseListener = Callable[[Interrupt], list[dict[str, Any]]]
NoticeListener = Callable[[Interrupt, str], list[dict[str, Any]]]
NOTICE_EXPIRED = "expired"
NOTICE_ESCALATION = "escalation"

_listeners: list[PauseListener] = []
_notice_listeners: list[NoticeListener] = []
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


def notice_listener_add(listener: NoticeListener) -> None:
    if listener not in _notice_listeners:
        _notice_listeners.append(listener)


def pause_notice(pause: Interrupt, notice: str) -> list[dict[str, Any]]:
    """Tell the notice listeners; returns what failed (nobody's answer waits for it)."""
    failures: list[dict[str, Any]] = []
    for listener in _notice_listeners:
        failures += listener(pause, notice) or []
    return failures
