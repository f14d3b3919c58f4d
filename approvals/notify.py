"""Telling the outside world of a pause (``on_interrupt``: docs/getting-started.md, "Mounting: make_app").

``stalwart_site.serve.make_app(on_interrupt=[...])`` (and ``stalwart serve
--webhook``) registers listeners (``approvals.listeners``). The engine tells
of a pause through the notifier settings name (``STALWART_NOTIFIER``:
``OutboxNotifier``, the engine's ``Notifier`` protocol): inside the pause's
transaction it stores one ``Delivery`` per listener (``approvals.outbox``),
sent after commit, off the request's path. A listener that fails never fails
the turn: what could not be delivered at once is listed under
``not_notified`` (``OutboxNotifier.undelivered``).
"""

from __future__ import annotations

from typing import Any

from approvals.listeners import listener_key, listeners, set_listeners
from approvals.outbox import deliveries_enqueue, deliveries_undelivered
from threads.models import Interrupt

__all__ = ["OutboxNotifier", "listener_key", "listeners", "set_listeners"]


class OutboxNotifier:
    """The engine's notifier: a durable outbox row per listener, first tried after commit."""

    def store(self, pause: Interrupt, notice: str) -> list[Any]:
        targets = list(listeners())
        return deliveries_enqueue(pause=pause, type_=notice, targets=targets) if targets else []

    def undelivered(self, handles: list[Any]) -> list[dict[str, Any]]:
        return deliveries_undelivered([int(h) for h in handles])
