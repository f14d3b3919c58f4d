"""Two turns opening the same new thread at the same moment (P4, one pending:
docs/conformance.md). The second turn's upsert of the thread row waits on
the first's insert; once that commits, the second must know the thread was
not its own to make, even when both took the same ``now`` to the
microsecond, as two workers released at once sometimes do: it then checks
what waits (AG-UI's ``if_nothing_waits``) or sets it aside (a turn on the
HTTP API), as any turn on an existing thread does."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from threads.engine import turn_submit, turns
from threads.errors import PausesPending
from threads.models import Interrupt, Run

pytestmark = pytest.mark.django_db(transaction=True)

THREAD = "t-new-at-once"
SESSION = "a" * 64
TEXTS = ("charge 40 to order 4411", "charge 99.90 to order 5001")
BLOCKED = ("SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
           " WHERE NOT l.granted AND a.datname = current_database()")


@pytest.fixture(autouse=True)
def _shop(shop_dir):  # type: ignore[no-untyped-def]
    return shop_dir


def second_waits_on_the_first() -> None:
    """Hold the first turn's unit open (its thread row inserted, not committed) until the second turn
    waits on it: on PostgreSQL, on the row's insert; SQLite's second BEGIN IMMEDIATE waits on its lock."""
    if connection.vendor != "postgresql":
        time.sleep(0.3)
        return
    from django.db import connections

    watcher = connections.create_connection("default")  # outside the turn's transaction
    try:
        with watcher.cursor() as watch:
            for _ in range(400):
                watch.execute(BLOCKED)
                if watch.fetchone()[0]:
                    return
                time.sleep(0.025)
    finally:
        watcher.close()
    raise AssertionError("the second turn never waited on the first")


def two_turns_at_once(monkeypatch: pytest.MonkeyPatch, **kwargs: Any) -> list[Any]:
    """Each turn on a thread of its own, the first held open until the second waits on it, both taking
    the same ``now`` where two workers can (PostgreSQL: the second takes it before it waits): what each
    caller got, an Answer or the error it raised, in the order the turns were sent."""
    if connection.vendor == "postgresql":
        same_moment = timezone.now()
        monkeypatch.setattr(turns.timezone, "now", lambda: same_moment)
    first_in = threading.Lock()
    run_start = turns.run_start

    def held(*args: Any, **kw: Any) -> Any:
        if first_in.acquire(blocking=False):  # the first turn past the thread's row
            started.set()
            second_waits_on_the_first()
        return run_start(*args, **kw)

    monkeypatch.setattr(turns, "run_start", held)
    started = threading.Event()
    got: list[Any] = [None, None]

    def one(i: int) -> None:
        try:
            if i == 1:
                started.wait(10)
            got[i] = turn_submit(thread_id=THREAD, session_hash=SESSION, text=TEXTS[i], **kwargs)
        except Exception as exc:  # noqa: BLE001 - what the caller sees
            got[i] = exc
        finally:
            connection.close()

    workers = [threading.Thread(target=one, args=(i,)) for i in (0, 1)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(30)
    return got


def test_of_two_turns_opening_a_new_thread_with_if_nothing_waits_one_runs_and_one_is_refused(monkeypatch):
    first, second = two_turns_at_once(monkeypatch, if_nothing_waits=True)
    assert not isinstance(first, Exception), first
    assert [p.tool for p in first.waiting] == ["charge_card"]
    assert isinstance(second, PausesPending), second
    assert [p["id"] for p in second.extra["waiting"]] == [first.waiting[0].id]
    assert Run.objects.filter(thread_id=THREAD).count() == 1
    assert list(Interrupt.objects.filter(thread_id=THREAD).values_list("status", flat=True)) == ["open"]


def test_of_two_turns_opening_a_new_thread_the_second_sets_the_first_ones_pause_aside(monkeypatch):
    first, second = two_turns_at_once(monkeypatch)
    assert not isinstance(first, Exception) and not isinstance(second, Exception), (first, second)
    assert [p.run for p in second.waiting] == [second.run]  # one pause waits: the second turn's
    assert Interrupt.objects.get(run_id=first.run).status == "superseded"
    assert Run.objects.get(pk=first.run).status == "superseded"
