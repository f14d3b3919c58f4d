"""The thread's trace: events numbered per thread, published after commit.

An event is written in the same transaction as the state it describes and
published to the channel layer with ``transaction.on_commit``, so a stream
never shows a step that rolled back. Event ids are the thread's own sequence
(an UPDATE ... + 1 on the thread row takes its lock), gap-free and ordered
even across workers.
"""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import models, transaction
from django.db.models import F

from threads.models import Event, Thread

log = logging.getLogger("stalwart.engine")


class EventType(models.TextChoices):
    """What SPEC §10 streams."""

    TURN = "turn"
    STEP = "step"
    WAITING = "waiting"
    ANSWERED = "answered"
    REFUSED = "refused"
    REPLY = "reply"
    ROLLBACK = "rollback"
    EXPIRED = "expired"


def event_append(thread_id: str, type_: EventType, data: dict[str, Any]) -> Event:
    """Append to the thread's trace; call inside the transaction that made the change."""
    Thread.objects.filter(pk=thread_id).update(event_seq=F("event_seq") + 1)
    seq = Thread.objects.values_list("event_seq", flat=True).get(pk=thread_id)
    event = Event.objects.create(thread_id=thread_id, seq=seq, type=EventType(type_).value, data=data)
    transaction.on_commit(lambda: _publish(thread_id, event))
    return event


def thread_group(thread_id: str) -> str:
    """The channel-layer group of a thread's live listeners."""
    return "thread." + "".join(c if c.isalnum() or c in "-_." else "_" for c in thread_id)[:90]


def _publish(thread_id: str, event: Event) -> None:
    """Tell live listeners (SSE, WebSocket) after commit."""
    try:
        layer = get_channel_layer()
        if layer is None:
            return
        async_to_sync(layer.group_send)(
            thread_group(thread_id), {"type": "thread.event", "seq": event.seq, "event": event.type, "data": event.data}
        )
    except Exception:  # the run has committed: a channel layer that is down must not undo the answer
        log.warning("could not publish event %s of thread %s", event.seq, thread_id, exc_info=True)
