"""Latency of a turn that pauses, and answers per second, against a real server.

    python bench/turns.py                       # SQLite, and PostgreSQL if it answers
    python bench/turns.py --turns 300 --save bench/turns-baseline.json
    python bench/turns.py --baseline bench/turns-baseline.json   # figures and their change

Each backend gets its own `stalwart serve` process (daphne) on a free port and
a fresh data folder. A "turn that pauses" is `charge 40 to order 4411` on a new
thread (planned, checked, a confirm pause stored, the answer rendered); an
"answer" is `approve` on `archive order 4412` (claim, run the write, reply).
Figures are printed as JSON; nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.server import Browser, Server  # noqa: E402

POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/test"


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[index]


def measure(env: dict[str, str], turns: int) -> dict[str, Any]:
    data_dir = Path(tempfile.mkdtemp(prefix="stalwart-bench-"))
    with Server(data_dir, env=env) as server:
        browser = Browser(server.url)
        run = uuid.uuid4().hex[:8]
        for i in range(5):  # warm up: imports, connections, the selector's index
            browser.say(f"warm-{run}-{i}", "charge 40 to order 4411")
        latencies = []
        for i in range(turns):
            start = time.perf_counter()
            response = browser.say(f"t-{run}-{i}", "charge 40 to order 4411")
            latencies.append((time.perf_counter() - start) * 1000)
            assert response.status_code == 200 and response.json()["waiting"], response.text
        pauses = []
        for i in range(turns):
            thread = f"a-{run}-{i}"
            pauses.append((thread, browser.say(thread, "archive order 4412").json()["waiting"][0]))
        start = time.perf_counter()
        for thread, pause in pauses:
            answered = browser.resume(thread, pause, "approve")
            assert answered.status_code == 200, answered.text
        elapsed = time.perf_counter() - start
        browser.close()
    return {
        "turns": turns,
        "turn_that_pauses_ms": {
            "p50": round(percentile(latencies, 50), 2),
            "p99": round(percentile(latencies, 99), 2),
            "mean": round(statistics.fmean(latencies), 2),
        },
        "answers_per_second": round(turns / elapsed, 1),
    }


def postgres_answers() -> bool:
    try:
        import psycopg

        with psycopg.connect(POSTGRES_URL, connect_timeout=3):
            return True
    except Exception:
        return False


def compare(now: dict[str, Any], base: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for backend, figures in now.items():
        old = base.get(backend)
        if not isinstance(old, dict):
            continue
        out[backend] = {
            "p50_change": _change(figures["turn_that_pauses_ms"]["p50"], old["turn_that_pauses_ms"]["p50"]),
            "p99_change": _change(figures["turn_that_pauses_ms"]["p99"], old["turn_that_pauses_ms"]["p99"]),
            "answers_per_second_change": _change(figures["answers_per_second"], old["answers_per_second"]),
        }
    return out


def _change(new: float, old: float) -> str:
    return f"{(new - old) / old * 100:+.1f}%" if old else "n/a"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--baseline", type=Path, help="a saved run to compare against")
    parser.add_argument("--save", type=Path, help="write this run's figures here")
    parser.add_argument("--no-postgres", action="store_true")
    args = parser.parse_args(argv)
    base_env = {k: "" for k in ("DATABASE_URL", "REDIS_URL", "STALWART_SHOP_FAULTS")}
    results: dict[str, Any] = {"sqlite": measure(base_env, args.turns)}
    if not args.no_postgres and postgres_answers():
        results["postgres"] = measure({**base_env, "DATABASE_URL": POSTGRES_URL}, args.turns)
    report: dict[str, Any] = {"figures": results, "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]}}
    if args.baseline and args.baseline.exists():
        report["against_baseline"] = compare(results, json.loads(args.baseline.read_text())["figures"])
    print(json.dumps(report, indent=2))
    if args.save:
        args.save.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
