"""On PostgreSQL the engine's statements are bound on the server, and a
statement a pooled connection has run 5 times stays prepared there, so a
pause's and a resume's statements are planned once per connection
(``stalwart_site/settings.py``; docs/decisions.md, "Statements prepared on
the server"). ``STALWART_DB_PREPARE=false`` turns the keeping off (a
PgBouncer older than 1.21 in transaction mode cannot keep them)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]


def prepared() -> dict[str, int]:
    """The statements this connection keeps prepared, with how often each ran planned as such."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement, generic_plans + custom_plans FROM pg_prepared_statements")
        return {statement: runs for statement, runs in cursor.fetchall()}


def test_a_pauses_statements_are_prepared_on_the_connection_that_runs_them(desk) -> None:  # type: ignore[no-untyped-def]
    if connection.vendor != "postgresql":
        pytest.skip("only PostgreSQL keeps prepared statements")
    replies = [desk.say(f"t-{i}", "charge 40 to order 4411") for i in range(8)]

    assert all(r.waiting and r.waiting[0]["tool"] == "charge_card" for r in replies)
    kept = prepared()
    answer_read = [runs for statement, runs in kept.items() if "UNION ALL" in statement]
    thread_open = [(statement, runs) for statement, runs in kept.items()
                   if statement.startswith('INSERT INTO "threads_thread"')]
    assert answer_read and answer_read[0] >= 2, kept  # the answer's read, run prepared
    assert thread_open and thread_open[0][1] >= 2, kept  # and a write: the turn's first statement,
    assert "VALUES ($1, $2, $3, $4, 0, $5, $6)" in thread_open[0][0]  # its values bound on the server


def options(tmp_path: Path, **env: str) -> dict[str, object]:
    """The database OPTIONS the settings make for a PostgreSQL URL, read in a process of their own."""
    run_env = {k: v for k, v in os.environ.items() if k != "STALWART_DB_PREPARE"}
    run_env.update(STALWART_DATA_DIR=str(tmp_path), DJANGO_SETTINGS_MODULE="stalwart_site.settings",
                   DATABASE_URL="postgres://stalwart@db.internal:5432/stalwart", **env)
    code = ("import json; from django.conf import settings; o = settings.DATABASES['default']['OPTIONS']; "
            "print(json.dumps({k: o.get(k) for k in ('server_side_binding', 'prepare_threshold')}))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=run_env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_postgresql_binds_on_the_server_and_keeps_what_runs_often_prepared(tmp_path: Path) -> None:
    assert options(tmp_path) == {"server_side_binding": True, "prepare_threshold": 5}


def test_stalwart_db_prepare_false_keeps_nothing_prepared(tmp_path: Path) -> None:
    assert options(tmp_path, STALWART_DB_PREPARE="false") == {"server_side_binding": True, "prepare_threshold": None}


def interrupt_rows_skipped(plan: dict[str, Any]) -> int:
    """Rows of ``threads_interrupt`` a plan read and threw away, over all its nodes."""
    skipped = int(plan.get("Rows Removed by Filter", 0)) if plan.get("Relation Name") == "threads_interrupt" else 0
    return skipped + sum(interrupt_rows_skipped(p) for p in plan.get("Plans", []))


def test_the_answers_read_finds_a_threads_pauses_by_the_thread_whatever_the_statistics_say(desk) -> None:  # type: ignore[no-untyped-def]
    if connection.vendor != "postgresql":
        pytest.skip("a PostgreSQL plan")
    from threads.engine.reads import _ANSWER_SQL
    from threads.models import Interrupt, Receipt, Run

    for i in range(40):  # 40 pauses answered long ago
        desk.say(f"old-{i}", "charge 40 to order 4411")
    Interrupt.objects.update(status=Interrupt.Status.ANSWERED)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE threads_interrupt")  # statistics taken while no pause was open
    for i in range(40):  # then 40 threads each wait on a charge
        desk.say(f"t-{i}", "charge 40 to order 4411")
    run = Run.objects.filter(thread_id=desk.key("t-39")).get()
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL plan_cache_mode = force_generic_plan")
        cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + _ANSWER_SQL(),
                       [run.thread_id, "", Receipt.Verdict.PENDING, run.pk, Interrupt.Status.OPEN])
        plan = cursor.fetchone()[0][0]["Plan"]

    assert interrupt_rows_skipped(plan) == 0, json.dumps(plan)[:3000]
