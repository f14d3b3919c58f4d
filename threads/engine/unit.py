"""A unit of work: one transaction of the engine, held explicitly.

Every write the engine makes to a thread's runs, steps, pauses and events
happens inside ``unit(thread_id)``::

    with unit(run.thread_id) as u:
        step_status_set(u, step, Step.Status.SKIPPED)
        u.event(Event.Type.STEP, {...})

The unit opens the transaction and **locks the thread's row first**. That is
the one lock order of the engine: an answer (which closes a pause, then
numbers its events on the thread row) and a new turn on the same thread
(which takes the thread row, then closes that thread's pauses) used to take
the two rows in opposite orders and deadlock on PostgreSQL; now both queue on
the thread row before touching anything else. A turn's unit is opened with
``lock=False`` because its first statement, the thread's upsert
(``turns.thread_open``), takes that lock itself. SQLite's IMMEDIATE
transactions take the database's write lock at BEGIN, so no statement is sent
there.

Events appended to the unit wait in it and are numbered and stored together
as it closes (``events.events_write``: one statement on PostgreSQL), then
published to the channel layer after commit. Pauses to tell the outside world
of (a new pause, an expiry, an escalation) are handed to the notifier inside
the transaction, so its durable outbox rows commit exactly when the pause
does; the handles it gives back stay on the unit (``notices``) for the caller,
which asks after commit what could not be delivered at once
(``not_notified``). The pauses it closed are told to the pause listeners
after commit (``notify.PauseClosed``). Nothing of this lives in a thread-local: whoever writes
holds the unit. A block that raises writes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from django.db import connection, transaction

from threads.engine.events import events_write
from threads.engine.notify import PauseClosed, notifier, pauses_closed_tell
from threads.engine.rows import statement
from threads.models import Event, Interrupt, Thread


@dataclass
class Unit:
    """One open transaction on one thread: its events and notices, written as it closes."""

    thread_id: str
    events: list[Event] = field(default_factory=list)
    notices: list[Any] = field(default_factory=list)
    closed: list[PauseClosed] = field(default_factory=list)

    def event(self, type_: str, data: dict[str, Any]) -> Event:
        """Append to the thread's trace; stored with the unit's other events as it closes."""
        event = Event(thread_id=self.thread_id, type=Event.Type(type_).value, data=data)
        self.events.append(event)
        return event

    def notify(self, pause: Interrupt, notice: str) -> None:
        """Tell the listeners of ``pause`` (``notify.NOTICE_*``): stored now, delivered after commit."""
        told = notifier()
        if told is not None:
            self.notices.extend(told.store(pause, notice))

    def pause_closed(self, pause: Interrupt) -> None:
        """``pause`` closed in this unit: its listeners are told after commit."""
        self.closed.append(PauseClosed(
            pause=pause.id, thread=pause.thread_id, run=pause.run_id, kind=pause.kind, status=pause.status,
            decision=pause.decision, by=pause.answered_by, via=pause.answered_via,
            mirrored=bool(pause.payload.get("handback"))))


_LOCK_SQL = statement(lambda: (f"SELECT 1 FROM {connection.ops.quote_name(Thread._meta.db_table)}"
                                f" WHERE {connection.ops.quote_name(Thread._meta.pk.column)} = %s FOR UPDATE"))


def thread_lock(thread_id: str) -> None:
    """Take the thread row's lock for the rest of the transaction (PostgreSQL);
    SQLite's IMMEDIATE transaction already holds the database's write lock.
    Written out: it opens every unit of work, and the ORM compiled it anew
    each time (the thread's default ordering too, which a lock has no use for)."""
    if connection.features.has_select_for_update:
        with connection.cursor() as cursor:
            cursor.execute(_LOCK_SQL(), [thread_id])


@contextmanager
def unit(thread_id: str, *, lock: bool = True, notices: list[Any] | None = None) -> Iterator[Unit]:
    """A transaction on ``thread_id``'s rows, its thread locked first (unless
    the caller's first statement locks it: ``lock=False``). ``notices``: the
    list the unit's notice handles go to (a ``Progress``'s), else its own."""
    work = Unit(thread_id, notices=notices if notices is not None else [])
    with transaction.atomic():
        if lock:
            thread_lock(thread_id)
        yield work
        if work.events:
            events_write(thread_id, work.events)
        if work.closed:
            transaction.on_commit(partial(pauses_closed_tell, work.closed))
