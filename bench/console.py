"""How the console's pages cost with a long queue: render time and queries.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/h9 python bench/console.py
    python bench/console.py --pauses 100000 --repeat 20

Fills the database named by DATABASE_URL (SQLite in a throw-away data folder
when unset) with open confirm pauses in bulk, then renders the queue
(``/admin/threads/interrupt/``, first page and a search by thread) and one
pause's page through Django's test client, signed in as an approver. The
rows it made are deleted afterwards. Figures are printed as JSON; nothing
here asserts a time.
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pauses", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
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
            cursor.execute("ANALYZE threads_interrupt")

    staff_create(username="bench-approver")
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.get(username="bench-approver")
    user.set_password("bench-password-not-one-time")
    user.save()
    client = Client()
    client.force_login(user)

    def page(path: str) -> dict[str, Any]:
        client.get(path)  # warm
        times = []
        for _ in range(args.repeat):
            t = time.perf_counter()
            response = client.get(path)
            times.append((time.perf_counter() - t) * 1000)
            assert response.status_code == 200, (path, response.status_code)
        with CaptureQueriesContext(connection) as queries:
            client.get(path)
        return {"median_ms": round(statistics.median(times), 1), "p95_ms": round(sorted(times)[int(0.95 * (len(times) - 1))], 1),
                "queries": len(queries),
                "slowest_query_ms": round(max(float(q["time"]) for q in queries.captured_queries) * 1000, 1),
                **({"slowest_query": max(queries.captured_queries, key=lambda q: float(q["time"]))["sql"][:300]}
                   if os.environ.get("BENCH_SQL") else {})}

    try:
        oldest = Interrupt.objects.filter(status="open").order_by("created_at", "id").first()
        assert oldest is not None
        figures = {
            "database": connection.vendor,
            "open_pauses": Interrupt.objects.filter(status="open").count(),
            "fill_s": round(fill_s, 1),
            "queue": page("/admin/threads/interrupt/"),
            "queue_search_by_thread": page(f"/admin/threads/interrupt/?q={oldest.thread_id}"),
            "queue_filtered_kind_agent": page("/admin/threads/interrupt/?kind=confirm&agent=Shop"),
            "pause_page": page(f"/admin/threads/interrupt/{oldest.pk}/change/"),
        }
    finally:
        clean()
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
