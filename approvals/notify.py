"""Telling the outside world of a new pause (SPEC §11's ``on_interrupt``).

``stalwart_site.serve.make_app(on_interrupt=[...])`` (and ``stalwart serve
--webhook``) registers listeners (``approvals.listeners``).
``ApprovalsConfig.ready`` hooks ``notify_pause`` into the engine: inside the
pause's transaction it stores one ``Delivery`` per listener
(``approvals.outbox``), sent after commit, off the request's path. A listener
that fails never fails the turn: what could not be delivered at once is
listed under ``not_notified`` (``approvals.outbox.not_notified_take``).
"""

from __future__ import annotations

from approvals.listeners import listener_key, listeners, set_listeners
from approvals.outbox import deliveries_enqueue
from threads.models import Interrupt

__all__ = ["listener_key", "listeners", "notify_pause", "set_listeners"]


def notify_pause(pause: Interrupt, type_: str = "waiting") -> None:
    """Store a delivery per listener, in the pause's transaction."""
    targets = list(listeners())
    if targets:
        deliveries_enqueue(pause=pause, type_=type_, targets=targets)
