"""Telling the outside world of a new pause (SPEC §11's ``on_interrupt``).

``stalwart_site.serve.make_app(on_interrupt=[...])`` registers callables
here; each is told ``(thread, interrupt)`` after the pause commits.
``ApprovalsConfig.ready`` hooks ``notify_pause`` into the engine. A callable
that fails never fails the turn: its failure is returned to the engine, and
the answer lists it under ``not_notified``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from threads.engine import present
from threads.models import Interrupt

log = logging.getLogger("stalwart")

_listeners: list[Callable[[str, dict[str, Any]], Any]] = []


def set_listeners(listeners: list[Callable[[str, dict[str, Any]], Any]]) -> None:
    _listeners[:] = list(listeners)


def notify_pause(pause: Interrupt) -> list[dict[str, Any]]:
    """Tell each listener; returns the deliveries that failed."""
    if not _listeners:
        return []
    shown = present(pause)
    failures = []
    for listener in _listeners:
        try:
            listener(pause.thread_id, shown)
        except Exception as exc:  # a team's own callable: whatever it raises, the turn goes on
            log.warning("could not notify %r of pause %s: %s", listener, pause.id, exc)
            failures.append({"interrupt": pause.id, "to": getattr(listener, "url", repr(listener)), "error": str(exc)})
    return failures


def notify_notice(pause: Interrupt, notice: str) -> list[dict[str, Any]]:
    """Tell each listener of a pause that expired or is escalated (SPEC §7.6):
    the pause as shown, plus ``type`` (``expired`` | ``escalation``),
    ``escalation`` (true for an escalation) and ``status``. An expired pause
    carries no token: it can no longer be answered."""
    if not _listeners:
        return []
    shown = {**present(pause), "type": notice, "escalation": notice == "escalation", "status": pause.status}
    if pause.status != Interrupt.Status.OPEN:
        shown.pop("token", None)
    failures = []
    for listener in _listeners:
        try:
            listener(pause.thread_id, shown)
        except Exception as exc:  # a team's own callable: whatever it raises, the sweep goes on
            log.warning("could not tell %r of %s of pause %s: %s", listener, notice, pause.id, exc)
            failures.append({"interrupt": pause.id, "type": notice, "to": getattr(listener, "url", repr(listener)),
                             "error": str(exc)})
    return failures
