"""A thread's open pauses are read off the ``interrupt_thread_open`` index, with
10,000 open pauses in other threads (issue 15): the plan the database itself
gives (SQLite ``EXPLAIN QUERY PLAN``, PostgreSQL ``EXPLAIN``) names that index
and sorts nothing (the engine's reads, which name the thread's pauses first,
sort those few). Before it, SQLite walked every open pause in the database
through the ``(status, created_at)`` index."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tests.approvals.builders import make_open_pauses, own_created_at
from tests.support.plans import plan_of
from threads.engine import open_pauses
from threads.models import Interrupt, Run, Thread

pytestmark = pytest.mark.django_db

INDEX = "interrupt_thread_open"


@pytest.fixture
def crowded() -> str:
    """Two open pauses and an answered one in "t-mine", 10,000 open pauses elsewhere."""
    make_open_pauses(10_000)
    thread = Thread.objects.create(id="t-mine", session_hash="1" * 64, agent="Shop")
    run = Run.objects.create(id="r-mine", thread=thread, agent="Shop", text="charge", status=Run.Status.WAITING)
    now = timezone.now()
    with own_created_at():
        Interrupt.objects.bulk_create([
            Interrupt(id=f"p-mine-{n}", thread=thread, run=run, agent="Shop", kind=Interrupt.Kind.CONFIRM,
                      tool="charge_card", status=status, created_at=now + timedelta(seconds=n),
                      payload={"question": "Run charge_card?", "arguments": [], "reasons": [], "irreversible": False})
            for n, status in ((2, "open"), (1, "open"), (0, "answered"))])
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:  # the statistics autovacuum keeps
            cursor.execute("ANALYZE threads_interrupt")
    return thread.id


def assert_served_by_the_index(sql: str) -> None:
    plan = plan_of(sql)
    # Never a walk of other threads' pauses: no scan of the table, no queue index.
    assert "interrupt_queue" not in plan and "Seq Scan on threads_interrupt" not in plan, plan
    if sql.startswith("WITH thread_pauses_"):
        # The engine's reads name the thread's pauses first, by the thread alone
        # (``pauses.thread_pauses_with``), and keep the open ones after: the index
        # finds the thread's few pauses, and those few are sorted.
        if connection.vendor == "sqlite":
            assert f"USING INDEX {INDEX} (thread_id=?)" in plan and "SCAN threads_interrupt" not in plan, plan
        else:
            assert (f"Index Scan using {INDEX} on threads_interrupt" in plan
                    or f"Bitmap Index Scan on {INDEX}" in plan) and "((thread_id)::text = " in plan, plan
        return
    if connection.vendor == "sqlite":
        # SQLite's planner has no statistics: it names the index, which holds the order too
        # (no "USE TEMP B-TREE FOR ORDER BY").
        assert f"USING INDEX {INDEX} (thread_id=? AND status=?)" in plan and "TEMP B-TREE" not in plan, plan
        return
    # PostgreSQL knows the thread has three pauses: any index on thread_id and a sort of three
    # rows is as good. The index must still serve the filter and the order on its own, which
    # it shows when a sort is ruled out.
    assert "((thread_id)::text = " in plan, plan
    ordered = plan_of(sql, no_sort=True)
    assert f"Index Scan using {INDEX} on threads_interrupt" in ordered and "Sort" not in ordered, ordered


def test_the_open_pause_lookup_names_the_thread_index(crowded: str) -> None:
    query = (Interrupt.objects.filter(thread_id=crowded, status=Interrupt.Status.OPEN)
             .select_related("step").order_by("created_at", "id"))
    with CaptureQueriesContext(connection) as queries:
        rows = [p.id for p in query]
    assert rows == ["p-mine-1", "p-mine-2"]
    assert_served_by_the_index(queries.captured_queries[0]["sql"])


def test_every_pause_read_of_open_pauses_uses_the_thread_index(crowded: str) -> None:
    with CaptureQueriesContext(connection) as queries:
        shown = open_pauses(crowded)
    assert [p.id for p in shown] == ["p-mine-1", "p-mine-2"]
    reads: list[Any] = [q["sql"] for q in queries.captured_queries
                        if q["sql"].startswith(("SELECT", "WITH")) and 'FROM "threads_interrupt"' in q["sql"]]
    assert reads, "open_pauses reads the pauses"
    for sql in reads:
        assert_served_by_the_index(sql)
