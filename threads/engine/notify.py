"""Who is told of a pause, without the engine importing them.

The engine tells of a new pause (``NOTICE_WAITING``), of one that expired
(``NOTICE_EXPIRED``) and of one that escalates (``NOTICE_ESCALATION``) through
a **notifier**: a small protocol that the answering side implements and
settings name by dotted path (``STALWART_NOTIFIER``, as Django names its
``SESSION_ENGINE``). Nothing is registered at run time and nothing calls
upward: the engine loads the class the settings name.

Every pause that closes (answered by a person through any door, timed out,
superseded, cancelled, edited) is also told, once its transaction has
committed, as a ``PauseClosed`` notice to the listeners settings name by
dotted path (``STALWART_PAUSE_LISTENERS``): a door that must act on an
answer wherever it was given (a LangGraph graph carried on) listens there
instead of being called by whoever answered. A listener that fails is
logged and changes nothing of what committed.

``store`` runs inside the pause's transaction (``unit.Unit.notify``), so a
durable notice exists exactly when the pause does; it must not call out from
there: delivery happens after commit. ``undelivered`` runs after commit, with
the handles ``store`` gave back, and says which notices could not be
delivered at once: the answer lists them under ``not_notified``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any, Protocol

from django.conf import settings
from django.utils.module_loading import import_string

from threads.models import Interrupt

log = logging.getLogger("stalwart.engine")

NOTICE_WAITING = "waiting"
NOTICE_EXPIRED = "expired"
NOTICE_ESCALATION = "escalation"
NOTICE_REMINDER = "reminder"  # a policy's reminder before its deadline (docs/policies.md)


class Notifier(Protocol):
    def store(self, pause: Interrupt, notice: str) -> list[Any]:
        """Inside the pause's transaction: keep what must be delivered; handles to it."""

    def undelivered(self, handles: list[Any]) -> list[dict[str, Any]]:
        """After commit: what of ``handles`` was not delivered at once (the answer's ``not_notified``)."""


@cache
def _load(path: str) -> Notifier:
    notifier_class = import_string(path)
    return notifier_class()  # type: ignore[no-any-return]


def notifier() -> Notifier | None:
    """The notifier settings name (``STALWART_NOTIFIER``), or None: nobody is told."""
    path = getattr(settings, "STALWART_NOTIFIER", "")
    return _load(path) if path else None


def not_notified(handles: list[Any]) -> list[dict[str, Any]]:
    """After the last commit of a call into the engine: its notices not delivered at once."""
    told = notifier()
    return told.undelivered(handles) if told is not None and handles else []


@dataclass(frozen=True)
class PauseClosed:
    """A pause that closed, told after its transaction committed."""

    pause: str
    thread: str
    run: str
    kind: str
    status: str  # answered, timed_out, superseded, cancelled, edited
    decision: str
    by: str
    via: str
    mirrored: bool  # another system's question (a LangGraph interrupt)


@cache
def _listener(path: str) -> Callable[[PauseClosed], Any]:
    return import_string(path)  # type: ignore[no-any-return]


def pauses_closed_tell(notices: list[PauseClosed]) -> None:
    """After commit: each listener of ``STALWART_PAUSE_LISTENERS`` is told of each notice."""
    for path in getattr(settings, "STALWART_PAUSE_LISTENERS", ()):
        for notice in notices:
            try:
                _listener(path)(notice)
            except Exception:  # what committed stands; the listener's own retries are its business
                log.exception("%s failed on pause %s (%s)", path, notice.pause, notice.status)
