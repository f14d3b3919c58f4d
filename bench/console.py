"""How the console's pages cost with a long queue: render time, queries and plans.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/h9 python bench/console.py --pauses 100000
    python bench/console.py --pauses 100000 --repeat 20 --save /tmp/console.json
    python bench/console.py --pauses 100000 --baseline bench/console-baseline.json
    python bench/console.py --pauses 0 --staff-streams 200   # the staff stream's fan-out only

Fills the database named by DATABASE_URL (SQLite in a throw-away data folder
when unset) with open confirm pauses in bulk, then renders the queue
(``/admin/threads/interrupt/``: its first page, a later page, a search by
thread, its filters) and one pause's page through Django's test client, signed
in as an approver. For each page it prints the median (p50) and p95 render
time, the number of queries, the slowest query's time, and the plan of the
page's main queries: the rows' SELECT and the paginator's count (PostgreSQL
``EXPLAIN (ANALYZE)``, SQLite ``EXPLAIN QUERY PLAN``). With ``--baseline`` it
also prints each page's p50 and queries against a saved run. The rows it made
are deleted afterwards. Figures are printed as JSON; nothing here asserts a
time.

With ``--staff-streams N`` it also starts a real ``stalwart serve`` (one
worker, in a throw-away data folder), signs a staff member in, opens N staff
streams (``GET /admin/threads/interrupt/stream``) and times, from the turn
that makes a pause, until each stream has the ``pause`` event; beside it, in
the same run, the baseline: N followers of one thread's stream
(``bench/streams.py``'s fan-out) and the turn's event.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def explain(connection: Any, sql: str) -> list[str]:
    """The plan of one captured query, as the database tells it (the SQL is the one it ran)."""
    prefix = "EXPLAIN (ANALYZE, COSTS OFF) " if connection.vendor == "postgresql" else "EXPLAIN QUERY PLAN "
    with connection.cursor() as cursor:
        cursor.execute(prefix + sql)
        rows = cursor.fetchall()
    if connection.vendor == "postgresql":
        return [r[0] for r in rows]
    return [f"{'  ' * depth(r, rows)}{r[-1]}" for r in rows]


def depth(row: tuple[Any, ...], rows: list[tuple[Any, ...]]) -> int:
    parents = {r[0]: r[1] for r in rows}
    level, parent = 0, row[1]
    while parent in parents:
        level, parent = level + 1, parents[parent]
    return level


def main_queries(captured: list[dict[str, Any]]) -> dict[str, str]:
    """The page's row SELECT (the one with a LIMIT or the pause by its key) and its COUNT, if any."""
    out: dict[str, str] = {}
    for q in captured:
        sql = q["sql"]
        if '"threads_interrupt"' not in sql or not sql.startswith("SELECT"):
            continue
        if "COUNT(" in sql:
            out.setdefault("count", sql)
        else:
            out.setdefault("rows", sql)
    return out


def short(sql: str) -> str:
    """The SQL without its column list: what is read, filtered, ordered and limited."""
    head, sep, tail = sql.partition(" FROM ")
    return (f"SELECT … FROM {tail}" if sep and not head.startswith("SELECT COUNT") else sql)[:500]


def compare(now: dict[str, Any], base: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, figures in now.items():
        old = base.get(name)
        if not isinstance(figures, dict) or not isinstance(old, dict) or "p50_ms" not in figures:
            continue
        out[name] = {key: f"{old.get(key, '?')} -> {figures[key]}"
                     for key in ("p50_ms", "cpu_p50_ms", "db_ms", "queries", "slowest_query_ms")}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pauses", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--save", type=Path, help="write this run's figures here")
    parser.add_argument("--baseline", type=Path, help="a saved run to compare against")
    parser.add_argument("--vacuum", action="store_true",
                        help="VACUUM as well as ANALYZE after the fill (PostgreSQL): index-only scans skip the heap")
    parser.add_argument("--no-plans", action="store_true", help="leave the plans out")
    parser.add_argument("--staff-streams", type=int, default=0,
                        help="also time N staff streams getting a new pause, beside N thread streams")
    args = parser.parse_args()
    if args.pauses <= 0:
        report = {"staff_streams": staff_fan_out(args.staff_streams or 200)}
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return
    os.environ.setdefault("STALWART_DATA_DIR", tempfile.mkdtemp(prefix="stalwart-bench-"))

    from stalwart_site.bootstrap import setup

    setup(agent_file=ROOT / "examples" / "shop" / "agent.yaml")
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "1")
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext, setup_test_environment

    from approvals.services import staff_create
    from tests.approvals.builders import make_open_pauses
    from threads.models import Interrupt, Run, Thread

    setup_test_environment()  # the test client's ALLOWED_HOSTS ("testserver")
    bulk = Thread.objects.filter(id__startswith="bulk-")

    def clean() -> None:
        Interrupt.objects.filter(id__startswith="p-bulk-").delete()
        Run.objects.filter(id__startswith="r-bulk-").delete()
        bulk.delete()

    clean()
    start = time.perf_counter()
    make_open_pauses(args.pauses, threads=max(1, args.pauses // 100))
    fill_s = time.perf_counter() - start
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:  # what autovacuum would have done by the time staff look
            cursor.execute("VACUUM ANALYZE threads_interrupt" if args.vacuum else "ANALYZE threads_interrupt")

    staff_create(username="bench-approver")
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.get(username="bench-approver")
    user.set_password("bench-password-not-one-time")
    user.save()
    client = Client()
    client.force_login(user)

    def page(path: str) -> dict[str, Any]:
        client.get(path)  # warm
        times, cpu = [], []
        for _ in range(args.repeat):
            t, c = time.perf_counter(), time.process_time()
            response = client.get(path)
            times.append((time.perf_counter() - t) * 1000)
            cpu.append((time.process_time() - c) * 1000)
            assert response.status_code == 200, (path, response.status_code)
        with CaptureQueriesContext(connection) as queries:
            client.get(path)
        captured = queries.captured_queries
        slowest = max(captured, key=lambda q: float(q["time"]))
        figures: dict[str, Any] = {
            "p50_ms": round(statistics.median(times), 1),
            "p95_ms": round(sorted(times)[int(0.95 * (len(times) - 1))], 1),
            # This process's CPU per page (Django's own work: the admin's rendering above all)
            # and the database's time, which the wall-clock p50 adds up with any wait for a core.
            "cpu_p50_ms": round(statistics.median(cpu), 1),
            "db_ms": round(sum(float(q["time"]) for q in captured) * 1000, 1),
            "queries": len(captured),
            "slowest_query_ms": round(float(slowest["time"]) * 1000, 1),
            "slowest_query": short(slowest["sql"]),
        }
        if not args.no_plans:
            for name, sql in main_queries(captured).items():
                figures[f"{name}_sql"] = short(sql)
                figures[f"{name}_plan"] = explain(connection, sql)
        return figures

    try:
        oldest = Interrupt.objects.filter(status="open").order_by("created_at", "id").first()
        assert oldest is not None
        deep = max(1, min(100, args.pauses // 50))  # a page far down the queue
        figures = {
            "database": connection.vendor,
            "open_pauses": Interrupt.objects.filter(status="open").count(),
            "fill_s": round(fill_s, 1),
            "queue": page("/admin/threads/interrupt/"),
            f"queue_page_{deep}": page(f"/admin/threads/interrupt/?p={deep}"),
            "queue_search_by_thread": page(f"/admin/threads/interrupt/?q={oldest.thread_id}"),
            "queue_filtered_kind_agent": page("/admin/threads/interrupt/?kind=confirm&agent=Shop"),
            "queue_filtered_other_agent": page("/admin/threads/interrupt/?agent=Nobody"),
            "queue_filtered_rare_kind": page("/admin/threads/interrupt/?kind=saga_stuck"),
            "queue_search_other_tool": page("/admin/threads/interrupt/?q=refund_card"),
            "queue_newest_first": page("/admin/threads/interrupt/?o=-5"),
            "queue_all_statuses": page("/admin/threads/interrupt/?status=all"),
            "pause_page": page(f"/admin/threads/interrupt/{oldest.pk}/change/"),
        }
    finally:
        clean()
    report: dict[str, Any] = {"figures": figures, "repeat": args.repeat, "cpus": os.cpu_count()}
    if args.staff_streams:
        report["staff_streams"] = staff_fan_out(args.staff_streams)
    if args.baseline and args.baseline.exists():
        report["against_baseline"] = compare(figures, json.loads(args.baseline.read_text())["figures"])
    print(json.dumps(report, indent=2, ensure_ascii=False))
    if args.save:
        args.save.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")


def staff_fan_out(streams: int) -> dict[str, Any]:
    """N staff streams on one worker and a new pause, beside N followers of one thread and a turn."""
    import asyncio
    import re
    import subprocess
    import uuid

    import httpx

    from bench.streams import Stream, fan_out
    from tests.support.server import Browser, Server

    class StaffStream(Stream):
        def __init__(self, port: int, cookie: str) -> None:
            super().__init__(port, "/admin/threads/interrupt/stream", "")
            self.cookie = cookie

        async def open(self, replayed_up_to: int = 0) -> None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
            self.writer.write((f"GET {self.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
                               f"Cookie: {self.cookie}\r\n\r\n").encode())
            await self.writer.drain()
            await self.wait_text(b"event: count")

        async def wait_text(self, text: bytes) -> float:
            assert self.reader is not None
            while text not in self.buffer:
                chunk = await self.reader.read(65536)
                if not chunk:
                    raise ConnectionError(f"stream closed: {self.buffer[-300:]!r}")
                self.buffer = self.buffer[-4096:] + chunk
            return time.perf_counter()

    data = Path(tempfile.mkdtemp(prefix="stalwart-bench-staff-"))
    env = {k: v for k, v in os.environ.items() if k not in ("STALWART_AGENT_FILE", "DJANGO_SETTINGS_MODULE")}
    env["STALWART_DATA_DIR"] = str(data / "data")
    (data / "data").mkdir()  # on PostgreSQL nothing else makes it (on SQLite, the migrated runs.db's copy)
    with Server(data / "data", env={"STALWART_WORKERS": "1"}) as server:
        made = subprocess.run([sys.executable, "-m", "stalwart_site.cli", "createstaff", "bench-staff"], cwd=ROOT,
                              env=env, capture_output=True, text=True, timeout=120, check=True)
        password = re.search(r"One-time password: (\S+)", made.stdout).group(1)  # type: ignore[union-attr]
        with httpx.Client(base_url=server.url) as admin:
            login = admin.get("/admin/login/")
            admin.post("/admin/login/?next=/admin/", data={"username": "bench-staff", "password": password,
                                                             "csrfmiddlewaretoken": login.cookies["csrftoken"]})
            cookie = f"sessionid={admin.cookies['sessionid']}"

        async def staff() -> dict[str, Any]:
            clients = [StaffStream(server.port, cookie) for _ in range(streams)]
            opened = time.perf_counter()
            for start in range(0, streams, 50):
                await asyncio.gather(*(c.open() for c in clients[start:start + 50]))
            open_s = time.perf_counter() - opened
            for c in clients:
                c.buffer = b""
            waits = [asyncio.ensure_future(c.wait_text(b'"change":"opened"')) for c in clients]
            await asyncio.sleep(0.2)
            customer = Browser(server.url)
            sent = time.perf_counter()
            said = await asyncio.to_thread(customer.say, f"bench-{uuid.uuid4().hex[:8]}", "charge 40 to order 4411")
            answered = time.perf_counter() - sent
            assert said.status_code == 200 and said.json()["waiting"], said.text
            done, pending = await asyncio.wait(waits, timeout=30)
            for task in pending:
                task.cancel()
            delays = sorted(w.result() - sent for w in done)
            for c in clients:
                c.close()
            customer.close()
            return {"streams": streams, "got_it": len(done), "open_all_s": round(open_s, 2),
                    "turn_answered_s": round(answered, 4), "first_has_it_s": round(delays[0], 4),
                    "median_has_it_s": round(statistics.median(delays), 4), "last_has_it_s": round(delays[-1], 4),
                    "within_1_s": sum(1 for d in delays if d <= 1.0)}

        staff_figures = asyncio.run(staff())
        thread_figures = asyncio.run(fan_out([server], streams))
    return {"staff_stream": staff_figures,
            "baseline_thread_stream": {k: v for k, v in thread_figures.items() if k != "per_worker"}}


if __name__ == "__main__":
    main()
