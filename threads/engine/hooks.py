"""Who is told that a pause opened, without the engine importing them.

The answering side registers its listener from below-up
(``approvals.apps.ApprovalsConfig.ready`` calls ``pause_listener_add``).
The engine calls ``pause_opened`` *inside* the transaction that opens the
pause, so a listener can store what it must deliver in that same transaction
(the durable outbox): a notice is kept exactly when the pause is. The
listener must not call out from there: sending happens after commit.

``type_`` says what happened to the pause: ``"waiting"`` when it opens; other
kinds (an expiry, an escalation) ride the same hook with their own type.

A listener may also give a ``reporter``: ``take_failures`` asks each for what
could not be delivered at once for this thread of the process, and the
answer lists it under ``not_notified``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from threads.models import Interrupt

PauseListener = Callable[[Interrupt, str], Any]
NOTICE_WAITING = "waiting"
NOTICE_EXPIRED = "expired"
NOTICE_ESCALATION = "escalation"
FailureReporter = Callable[[], list[dict[str, Any]]]

_listeners: list[PauseListener] = []
_reporters: list[FailureReporter] = []


def pause_listener_add(listener: PauseListener, reporter: FailureReporter | None = None) -> None:
    if listener not in _listeners:
        _listeners.append(listener)
    if reporter is not None and reporter not in _reporters:
        _reporters.append(reporter)


def pause_opened(pause: Interrupt, type_: str = NOTICE_WAITING) -> None:
    """Tell the listeners; call inside the transaction that changed the pause."""
    for listener in _listeners:
        listener(pause, type_)


pause_notify = pause_opened


def take_failures() -> list[dict[str, Any]]:
    failures: list[dict[str, Any]] = []
    for reporter in _reporters:
        failures.extend(reporter())
    return failures
