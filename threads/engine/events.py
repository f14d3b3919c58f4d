"""The thread's trace: events numbered per thread, published after commit.

An event is written in the same transaction as the state it describes (the
engine's unit of work keeps a transaction's events and hands them here as it
closes: ``unit.unit``) and published to the channel layer with
``transaction.on_commit``, so a stream never shows a step that rolled back.
Event ids are the thread's own sequence (an UPDATE ... + n on the thread row,
whose lock the unit already holds), gap-free and ordered even across workers:
one UPDATE and one INSERT (one statement on PostgreSQL) and one channel-layer
message for a transaction's events.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import threading
from functools import partial
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import connection, transaction
from django.utils import timezone

from threads.engine.rows import statement
from threads.models import Event, Thread

log = logging.getLogger("stalwart.engine")

EventType = Event.Type  # what the stream streams (docs/http-api.md, "GET /threads/{id}/stream")


def events_write(thread_id: str, events: list[Event]) -> None:
    """Number ``events`` after the thread's last (the UPDATE takes the thread
    row's lock, so numbers are gap-free and ordered across workers), store
    them, and publish them once the transaction commits. On PostgreSQL the
    numbering and the insert are one statement (``_numbered_insert_sql``); on
    SQLite, an UPDATE then one INSERT."""
    if connection.vendor == "postgresql":
        _numbered_insert(thread_id, events)
    else:
        thread_table = connection.ops.quote_name(Thread._meta.db_table)
        with connection.cursor() as cursor:
            cursor.execute(f"UPDATE {thread_table} SET event_seq = event_seq + %s WHERE id = %s RETURNING event_seq",
                           [len(events), thread_id])
            row = cursor.fetchone()
        if row is None:
            raise Thread.DoesNotExist(f"thread {thread_id} does not exist")
        first = int(row[0]) - len(events) + 1
        for offset, event in enumerate(events):
            event.seq = first + offset
        Event.objects.bulk_create(events)
    transaction.on_commit(partial(_publish, thread_id, events))


def _numbered_insert_sql() -> str:
    """The thread's sequence moved on by n and the n events stored under the
    numbers it gave, in order: the UPDATE locks the thread's row as on SQLite;
    no thread, no row from the UPDATE, so nothing is inserted."""
    quote = connection.ops.quote_name
    column = {f.name: quote(f.column) for f in Event._meta.concrete_fields}
    return (
        f"WITH seq AS (UPDATE {quote(Thread._meta.db_table)} SET event_seq = event_seq + %s"
        f" WHERE {quote(Thread._meta.pk.column)} = %s RETURNING event_seq)"
        f" INSERT INTO {quote(Event._meta.db_table)} ({column['thread']}, {column['seq']}, {column['type']},"
        f" {column['data']}, {column['created_at']})"
        f" SELECT %s, seq.event_seq - %s + e.n, e.type, e.data, %s"
        f" FROM seq, UNNEST(%s::varchar[], %s::jsonb[]) WITH ORDINALITY AS e(type, data, n)"
        f" RETURNING {column['id']}, {column['seq']}"
    )


_NUMBERED_INSERT = statement(_numbered_insert_sql)


def _numbered_insert(thread_id: str, events: list[Event]) -> None:
    now = timezone.now()
    data_field = Event._meta.get_field("data")
    with connection.cursor() as cursor:
        cursor.execute(_NUMBERED_INSERT(), [
            len(events), thread_id, thread_id, len(events), now,
            [e.type for e in events], [data_field.get_db_prep_save(e.data, connection) for e in events],
        ])
        rows = sorted(cursor.fetchall(), key=lambda row: row[1])
    if not rows:
        raise Thread.DoesNotExist(f"thread {thread_id} does not exist")
    for event, (pk, seq) in zip(events, rows, strict=True):
        event.pk, event.seq, event.created_at = pk, seq, now
        event._state.adding = False


def thread_group(thread_id: str) -> str:
    """The channel-layer group of a thread's live listeners: a digest of its
    key, since a group name takes only some characters and fewer than a key
    may have (two keys cut or mapped to one name would hear each other)."""
    return "thread." + hashlib.sha256(thread_id.encode()).hexdigest()[:40]


# The console's staff stream (approvals.streams): every pause opened, closed or approved short of its quorum.
STAFF_GROUP = "staff.pauses"
PAUSE_CHANGE = "pauses.change"


def pause_change(event_id: int | None, type_: str, data: Any, thread_id: str) -> dict[str, Any] | None:
    """A stored event as the staff stream tells it: a pause opened (``waiting``), closed
    (``answered``: answered, superseded, timed out, cancelled, edited) or given an approval short of
    its policy's quorum (``approval``: the queue's "1 of 2" changes), else None. ``id`` is the
    event's row id, one sequence across threads (the stream's ``Last-Event-ID``)."""
    if not isinstance(data, dict):
        return None
    if type_ == Event.Type.WAITING and isinstance(data.get("id"), str):
        return {"id": event_id, "change": "opened", "pause": data["id"], "thread": thread_id,
                "kind": data.get("kind"), "tool": data.get("tool")}
    if type_ == Event.Type.ANSWERED and isinstance(data.get("interrupt"), str):
        return {"id": event_id, "change": "closed", "pause": data["interrupt"], "thread": thread_id,
                "status": data.get("status"), "by": data.get("by")}
    if type_ == Event.Type.APPROVAL and isinstance(data.get("interrupt"), str):
        return {"id": event_id, "change": "approved", "pause": data["interrupt"], "thread": thread_id,
                "approvals": data.get("approvals")}
    return None


def _publish(thread_id: str, events: list[Event]) -> None:
    """Tell live listeners (SSE, WebSocket) after commit: one message for the
    transaction's events of this thread, in order. The request does not wait
    on a network layer (Redis): the message goes to this process's publisher,
    which sends in order. An in-memory layer (one process) is told only when
    the thread has a listener in this process. A message lost on the way (the
    process ended first) still arrives: listeners catch up from the database."""
    try:
        layer = get_channel_layer()
        if layer is None:
            return
        group = thread_group(thread_id)
        message = {"type": "thread.event", "events": [{"seq": e.seq, "event": e.type, "data": e.data} for e in events]}
        changes = [c for e in events if (c := pause_change(e.pk, e.type, e.data, thread_id)) is not None]
        sends = [(group, message)]
        if changes:  # staff's queues hear of pauses opened and closed, whatever the thread
            sends.append((STAFF_GROUP, {"type": PAUSE_CHANGE, "changes": changes}))
        for to, said in sends:
            if isinstance(getattr(layer, "groups", None), dict):  # in-memory: its listeners are in this process
                if layer.groups.get(to):
                    async_to_sync(layer.group_send)(to, said)
            elif type(layer).__module__.startswith("channels_redis"):
                _publisher.send(layer, to, said)
            else:
                async_to_sync(layer.group_send)(to, said)
    except Exception:  # the run has committed: a channel layer that is down must not undo the answer
        log.warning("could not publish events %s-%s of thread %s", events[0].seq, events[-1].seq, thread_id,
                    exc_info=True)


class _Publisher:
    """One event loop thread per process that sends queued messages in order,
    so a Redis connection is kept and reused rather than made per message."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pid = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._queue: asyncio.Queue[tuple[Any, str, dict[str, Any]]] | None = None

    def send(self, layer: Any, group: str, message: dict[str, Any]) -> None:
        with self._lock:
            self._ensure()
            assert self._loop is not None and self._queue is not None
            self._loop.call_soon_threadsafe(self._queue.put_nowait, (layer, group, message))

    def ensure(self) -> None:
        with self._lock:
            self._ensure()

    def _ensure(self) -> None:
        if self._loop is None or self._pid != os.getpid():  # first use, or a forked child
            self._start()

    def _start(self) -> None:
        loop = asyncio.new_event_loop()
        ready = threading.Event()

        def serve() -> None:
            asyncio.set_event_loop(loop)
            self._queue = asyncio.Queue()
            ready.set()
            loop.run_until_complete(self._drain())

        self._pid, self._loop = os.getpid(), loop
        threading.Thread(target=serve, name="stalwart-publisher", daemon=True).start()
        ready.wait()

    async def _drain(self) -> None:
        assert self._queue is not None
        while True:
            layer, group, message = await self._queue.get()
            try:
                await layer.group_send(group, message)
            except Exception:
                log.warning("could not publish to %s", group, exc_info=True)


_publisher = _Publisher()


def publisher_start() -> None:
    """Start this process's publisher now (its worker does; else it starts on first use)."""
    _publisher.ensure()
