"""AG-UI's cost (docs/ag-ui.md): a turn and a charge approved through
``POST /agui/`` beside the same through the HTTP API's routes
(docs/http-api.md: ``POST /threads/{id}/messages``, ``POST /threads/{id}/resume``),
on one real ``stalwart serve``, in the same run.

    python bench/agui.py                     # 60 of each, 3 rounds, SQLite
    DATABASE_URL=postgres://... python bench/agui.py --count 30
    python bench/agui.py --count 20 --against ../before   # before and after a change, one run

Two kinds, each on a thread of its own per request (a new person each time),
one request after another with httpx (the wire, not a browser):

- a **read turn**: ``show order 4411`` (planned, the read run, the reply;
  through AG-UI also the events, both snapshots and the kept events);
- a **charge approved**: ``charge 40 to order <its own>`` and its approval
  (the pause, the claim, the receipt, the send, the probe; through AG-UI the
  interrupt, the resume's checks and its events).

Printed: requests/s and p50/p99 per path, the ratio of AG-UI's rate to the
plain routes', and what AG-UI adds per request (p50 against p50); the last
stdout line is one JSON object. Nothing here asserts a time.

``--against DIR`` (docs/benchmarks.md; bench/against.py): another checkout of
Stalwart, with its own ``.venv``, runs its own bench/agui.py with the same
``--count`` and ``--rounds 1`` between this tree's rounds, who goes first
alternating, in a data folder of its own and, on PostgreSQL, a database of
its own (``--against-pg-url``, by default DATABASE_URL's name with
``_against``). Then printed: per kind and path, each side's median
requests/s and p50 (of the per-round figures; the lines above pool the
rounds) and the median of the per-round ratios of the rates (this tree's over
the other's).
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import time
import uuid
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from bench import against  # noqa: E402
from tests.support.server import Server  # noqa: E402

SESSION = "bench" + uuid.uuid4().hex
KINDS = ("read_agui", "read_plain", "charge_agui", "charge_plain")


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def seed_orders(data_dir: Path, count: int) -> list[str]:
    from examples.shop import tools as shop

    os.environ["STALWART_DATA_DIR"] = str(data_dir)
    shop.get_order("4411")
    ids = [f"{n:06d}" for n in range(700000, 700000 + count)]
    conn = sqlite3.connect(data_dir / "shop.db")
    with conn:
        conn.executemany("INSERT OR REPLACE INTO orders VALUES (?, 'c-bench', 'visa-0019', '40.00', 'unpaid')",
                         [(i,) for i in ids])
    conn.close()
    return ids


def events(body: str) -> list[dict[str, Any]]:
    return [json.loads(line[6:]) for line in body.splitlines() if line.startswith("data: ")]


def agui(http: httpx.Client, text: str) -> float:
    thread = f"b-{uuid.uuid4().hex[:12]}"
    start = time.perf_counter()
    first = events(http.post("/agui/", json={"threadId": thread, "runId": "r1", "messages": [
        {"id": "u1", "role": "user", "content": text}]}).text)
    outcome = first[-1]["outcome"]
    if outcome["type"] == "interrupt":
        interrupt = outcome["interrupts"][0]
        done = events(http.post("/agui/", json={"threadId": thread, "runId": "r2", "messages": [], "resume": [{
            "interruptId": interrupt["id"], "status": "resolved", "payload": {"decision": "approve"},
            "metadata": {"stalwart": {"token": interrupt["metadata"]["stalwart"]["token"]}}}]}).text)
        assert done[-1]["type"] == "RUN_FINISHED" and done[-1]["outcome"]["type"] == "success", done[-1]
    return (time.perf_counter() - start) * 1000


def plain(http: httpx.Client, text: str) -> float:
    thread = f"b-{uuid.uuid4().hex[:12]}"
    start = time.perf_counter()
    answer = http.post(f"/threads/{thread}/messages", json={"text": text}).json()
    if answer["waiting"]:
        pause = answer["waiting"][0]
        done = http.post(f"/threads/{thread}/resume", json={"interrupt_id": pause["id"], "decision": "approve",
                                                             "token": pause["token"]}).json()
        assert done["steps"][0]["status"] == "succeeded", done
    return (time.perf_counter() - start) * 1000


def figures(ms: list[float]) -> dict[str, float]:
    ordered = sorted(ms)
    return {"per_s": round(len(ms) / (sum(ms) / 1000), 1), "p50_ms": round(statistics.median(ms), 1),
            "p99_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 1)}


def one_round(http: httpx.Client, orders: list[str], count: int, n: int, rounds: int) -> dict[str, list[float]]:
    got: dict[str, list[float]] = {k: [] for k in KINDS}
    for _ in range(count):  # interleaved, so a load change on the machine hits both alike
        got["read_agui"].append(agui(http, "show order 4411"))
        got["read_plain"].append(plain(http, "show order 4411"))
        got["charge_agui"].append(agui(http, f"charge 40 to order {orders.pop()}"))
        got["charge_plain"].append(plain(http, f"charge 40 to order {orders.pop()}"))
    log(f"round {n}/{rounds} done")
    return got


def rates(out: dict[str, Any]) -> against.Rates:
    """One round's requests/s and p50 per kind and path, as ``--against`` compares them."""
    return {k.replace("_", " "): {"per_s": out[k]["per_s"], "p50_ms": out[k]["p50_ms"]} for k in KINDS}


def other_round(args: argparse.Namespace, env: dict[str, str], n: int) -> against.Rates:
    got = rates(against.other_round(args.against, "agui.py", ["--count", str(args.count)], n, args.rounds,
                                    timeout=3600, env=env))
    against.log_rates(got, "/s")
    return got


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--against", type=Path, help=against.HELP)
    parser.add_argument("--against-pg-url", help="the other checkout's database when DATABASE_URL is PostgreSQL "
                        "(created if missing; default: DATABASE_URL's name with _against)")
    args = parser.parse_args()
    database_url = os.environ.get("DATABASE_URL", "")
    other_env: dict[str, str] = {}
    if args.against is not None:
        args.against = against.checkout(args.against, "agui.py")
        if database_url.startswith("postgres"):
            other_env["DATABASE_URL"] = args.against_pg_url or against.other_database(database_url)
            against.separate(database_url, other_env["DATABASE_URL"], "--against-pg-url must differ from DATABASE_URL")
            against.pg_ensure(other_env["DATABASE_URL"])
    folder = Path(tempfile.mkdtemp(prefix="stalwart-bench-agui-"))
    orders = seed_orders(folder, args.count * args.rounds * 2)
    rounds: list[dict[str, list[float]]] = []
    others: list[against.Rates] = []
    with Server(folder) as server, httpx.Client(base_url=server.url, timeout=60,
                                                headers={"Stalwart-Session": SESSION}) as http:
        agui(http, "show order 4411")
        plain(http, "show order 4411")  # warm: imports, connections
        for n in range(1, args.rounds + 1):  # with --against, who goes first alternates
            got, other = against.alternate(n, partial(one_round, http, orders, args.count, n, args.rounds),
                                           partial(other_round, args, other_env, n) if args.against else None)
            rounds.append(got)
            others += [other] if other is not None else []
    out: dict[str, Any] = {k: figures([ms for r in rounds for ms in r[k]]) for k in KINDS}
    for kind in ("read", "charge"):
        a, p = out[f"{kind}_agui"], out[f"{kind}_plain"]
        out[f"{kind}_ratio"] = round(a["per_s"] / p["per_s"], 2)
        out[f"{kind}_added_ms"] = round(a["p50_ms"] - p["p50_ms"], 1)
        print(f"{kind:6}  AG-UI {a['per_s']:6}/s p50 {a['p50_ms']:6} ms p99 {a['p99_ms']:6} ms | "
              f"plain {p['per_s']:6}/s p50 {p['p50_ms']:6} ms p99 {p['p99_ms']:6} ms | "
              f"ratio {out[f'{kind}_ratio']} added {out[f'{kind}_added_ms']} ms")
    if args.against is not None:
        mine = [rates({k: figures(v) for k, v in r.items()}) for r in rounds]
        out["against"] = against.summary(args.against, mine, others)
        print(against.lines(out["against"], "/s"))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
