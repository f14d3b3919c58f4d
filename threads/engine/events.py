"""The thread's trace: events numbered per thread, published after commit.

An event is written in the same transaction as the state it describes and
published to the channel layer with ``transaction.on_commit``, so a stream
never shows a step that rolled back. Event ids are the thread's own sequence
(an UPDATE ... + n on the thread row takes its lock), gap-free and ordered
even across workers. The engine batches a transaction's events
(``events_batched``): one UPDATE and one INSERT (one statement on PostgreSQL)
and one channel-layer message for all of them.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import connection, models, transaction
from django.utils import timezone

from threads.engine.rows import statement
from threads.models import Event, Thread

log = logging.getLogger("stalwart.engine")
_local = threading.local()


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
    """Append to the thread's trace; call inside the transaction that made the change.

    Inside ``events_batched`` the event waits in the batch and is written with
    the others when the batch closes (still inside the transaction); outside
    one it is written at once.
    """
    event = Event(thread_id=thread_id, type=EventType(type_).value, data=data)
    batch = getattr(_local, "batch", None)
    if batch is not None:
        batch.append(event)
    else:
        _write(thread_id, [event])
    return event


@contextmanager
def events_batched() -> Iterator[None]:
    """Events appended in the block are written together as it closes: one
    UPDATE of the thread's sequence and one INSERT for all of them, published
    in one message after commit. Use inside the block's transaction
    (``with transaction.atomic(), events_batched():``); a block that raises
    writes nothing, as its transaction writes nothing. Nested blocks join the
    outer one."""
    if getattr(_local, "batch", None) is not None:
        yield
        return
    batch: list[Event] = []
    _local.batch = batch
    try:
        yield
        _local.batch = None
        by_thread: dict[str, list[Event]] = {}
        for event in batch:
            by_thread.setdefault(event.thread_id, []).append(event)
        for thread_id, events in by_thread.items():
            _write(thread_id, events)
    finally:
        _local.batch = None


def _write(thread_id: str, events: list[Event]) -> None:
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
    """The channel-layer group of a thread's live listeners."""
    return "thread." + "".join(c if c.isalnum() or c in "-_." else "_" for c in thread_id)[:90]


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
        if isinstance(getattr(layer, "groups", None), dict):  # in-memory: its listeners are in this process
            if layer.groups.get(group):
                async_to_sync(layer.group_send)(group, message)
        elif type(layer).__module__.startswith("channels_redis"):
            _publisher.send(layer, group, message)
        else:
            async_to_sync(layer.group_send)(group, message)
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
            if self._loop is None or self._pid != os.getpid():  # first use, or a forked child
                self._start()
            assert self._loop is not None and self._queue is not None
            self._loop.call_soon_threadsafe(self._queue.put_nowait, (layer, group, message))

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
