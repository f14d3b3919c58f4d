"""Faults at scale (docs/operating.md, "A worker that dies mid-call"; docs/http-api.md,
"Receipts and verdicts"): runs against two real `stalwart serve` workers on
one PostgreSQL database, under a fault mix, with a worker killed (SIGKILL)
mid-write every 100 runs.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/h8 python bench/faults.py
    python bench/faults.py --runs 300              # fewer runs
    python bench/faults.py --sweep 1 --lease 1      # sweep and lease seconds of the workers

The runs rotate three kinds, on both workers: a charge approved; two charges
in one turn, the first approved and ``cancel_all`` on the second (its undo
refunds the first); an archive approved. Every 100 runs the two workers
restart under the next fault mix (lost replies on charges and archives;
failing refunds; none), and one worker, whose ``archive_order`` hangs, is
killed during an approved archive: the other worker must show the
``outcome_unknown`` pause by itself. Answers a person would give:
``happened`` on an unknown archive (the shop did archive), ``done_by_hand``
on a stuck undo.

Printed as JSON: effects made vs approved (charges, refunds, archives),
doubled and lost effects, stranded runs (``running``, or ``waiting`` with
nothing open, once the sweep had its time), and the time from each kill to
the ``outcome_unknown`` pause. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.server import Browser, Server  # noqa: E402

MIXES = ["charge_card=lose_reply,archive_order=lose_reply", "refund_card=fail", ""]


def faults(mix: str, hang: bool) -> str:
    pairs = dict(p.split("=", 1) for p in mix.split(",") if p)
    if hang:
        pairs["archive_order"] = "hang"
    return ",".join(f"{k}={v}" for k, v in pairs.items())


class Bench:
    def __init__(self, data: Path, sweep: float, lease: float) -> None:
        self.data = data
        self.env = {"STALWART_SWEEP_SECONDS": str(sweep), "STALWART_LEASE_SECONDS": str(lease),
                    "STALWART_SHOP_HANG": "120"}
        self.next_order = 100000
        self.approved = {"charge": 0, "refund": 0, "archive": 0}
        self.expected: dict[str, dict[str, int]] = {}  # order -> {"charge": n, "refund": n}
        self.archived: list[str] = []
        self.threads: list[str] = []
        self.kills: list[float] = []
        self.stuck = 0
        self.unknown = 0
        self.errors: list[str] = []

    def orders(self, n: int) -> list[str]:
        from examples.shop import tools as shop

        ids = [str(self.next_order + i) for i in range(n)]
        self.next_order += n
        with shop.connect() as conn:
            conn.executemany("INSERT INTO orders VALUES (?, 'c-bench', 'visa-0019', '40.00', 'unpaid')",
                             [(i,) for i in ids])
        return ids

    def start(self, mix: str) -> tuple[Server, Server]:
        hanging = Server(self.data, env={**self.env, "STALWART_SHOP_FAULTS": faults(mix, True)}).start()
        steady = Server(self.data, env={**self.env, "STALWART_SHOP_FAULTS": faults(mix, False)}).start()
        return hanging, steady

    def check(self, response: Any, what: str) -> dict[str, Any]:
        if response.status_code != 200:
            self.errors.append(f"{what}: {response.status_code} {response.text[:200]}")
            return {"waiting": [], "rollback": None}
        return dict(response.json())

    def charge(self, browser: Browser, thread: str) -> None:
        (order,) = self.orders(1)
        pause = self.check(browser.say(thread, f"charge 40 to order {order}"), "say")["waiting"][0]
        self.check(browser.resume(thread, pause, "approve"), "approve")
        self.approved["charge"] += 1
        self.expected[order] = {"charge": 1, "refund": 0}

    def cancel(self, browser: Browser, thread: str) -> None:
        first, second = self.orders(2)
        said = self.check(browser.say(thread, f"charge 40 to order {first} and then charge 40 to order {second}"), "say")
        pause = said["waiting"][0]
        nxt = self.check(browser.resume(thread, pause, "approve"), "approve")["waiting"][0]
        self.approved["charge"] += 1
        done = self.check(browser.resume(thread, nxt, "cancel_all"), "cancel_all")
        stuck = [p for p in done["waiting"] if p["kind"] == "saga_stuck"]
        if stuck:
            self.stuck += 1
            self.check(browser.resume(thread, stuck[0], "done_by_hand"), "done_by_hand")
            self.expected[first] = {"charge": 1, "refund": 0}
        else:
            self.approved["refund"] += 1
            self.expected[first] = {"charge": 1, "refund": 1}
        self.expected[second] = {"charge": 0, "refund": 0}

    def archive(self, browser: Browser, thread: str) -> None:
        (order,) = self.orders(1)
        pause = self.check(browser.say(thread, f"archive order {order}"), "say")["waiting"][0]
        answer = self.check(browser.resume(thread, pause, "approve"), "approve")
        self.approved["archive"] += 1
        self.archived.append(order)
        unknown = [p for p in answer["waiting"] if p["kind"] == "outcome_unknown"]
        if unknown:
            self.unknown += 1
            self.check(browser.resume(thread, unknown[0], "happened"), "happened")

    def kill(self, hanging: Server, steady: Server, tag: str) -> float:
        """Approve an archive on the hanging worker, SIGKILL it once the shop
        archived, and time until the steady worker shows outcome_unknown."""
        from examples.shop import tools as shop

        (order,) = self.orders(1)
        thread = f"kill-{tag}"
        self.threads.append(thread)
        browser = Browser(hanging.url)
        pause = self.check(browser.say(thread, f"archive order {order}"), "say")["waiting"][0]
        session = browser.session

        def approve() -> None:
            try:
                Browser(hanging.url).client.post(f"/threads/{thread}/resume", timeout=150, headers={
                    "Stalwart-Session": str(session)},
                    json={"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]})
            except Exception:
                pass  # the worker dies under it

        threading.Thread(target=approve, daemon=True).start()
        deadline = time.monotonic() + 60
        while shop.get_order(order)["status"] != "archived" and time.monotonic() < deadline:
            time.sleep(0.02)
        assert hanging.proc is not None
        os.kill(hanging.proc.pid, signal.SIGKILL)
        hanging.proc.wait()
        killed = time.monotonic()
        hanging.stop()
        self.approved["archive"] += 1
        self.archived.append(order)
        browser.client.base_url = steady.url  # type: ignore[assignment]
        while time.monotonic() - killed < 120:
            waiting = browser.request("GET", f"/threads/{thread}/interrupts").json()["interrupts"]
            if waiting:
                seen = time.monotonic() - killed
                if waiting[0]["kind"] != "outcome_unknown":
                    self.errors.append(f"{thread}: {waiting[0]['kind']} instead of outcome_unknown")
                self.check(browser.resume(thread, waiting[0], "happened"), "happened")
                browser.close()
                return seen
            time.sleep(0.05)
        self.errors.append(f"{thread}: no outcome_unknown within 120 s")
        browser.close()
        return float("inf")

    def run(self, runs: int) -> None:
        tag = uuid.uuid4().hex[:6]
        blocks = max(1, (runs + 99) // 100)
        for b in range(blocks):
            hanging, steady = self.start(MIXES[b % len(MIXES)])
            try:
                browsers = [Browser(hanging.url), Browser(steady.url)]
                for i in range(b * 100, min(runs, (b + 1) * 100)):
                    thread = f"f-{tag}-{i}"
                    self.threads.append(thread)
                    kind = i % 3
                    if kind == 0:
                        self.charge(browsers[i % 2], thread)
                    elif kind == 1:
                        self.cancel(browsers[i % 2], thread)
                    else:
                        self.archive(browsers[1], thread)  # the hanging worker's archives are for the kill
                for browser in browsers:
                    browser.close()
                self.kills.append(self.kill(hanging, steady, f"{tag}-{b}"))
            finally:
                hanging.stop()
                steady.stop()

    def stranded(self) -> int:
        url = os.environ.get("DATABASE_URL", "")
        sql = ("SELECT COUNT(*) FROM threads_run r JOIN threads_thread t ON r.thread_id = t.id "
               "WHERE t.id = ANY(%s) AND (r.status = 'running' OR (r.status = 'waiting' AND NOT EXISTS "
               "(SELECT 1 FROM threads_interrupt i WHERE i.run_id = r.id AND i.status = 'open')))")
        if url.startswith("postgres"):
            import psycopg

            with psycopg.connect(url) as conn:
                row = conn.execute(sql, (self.threads,)).fetchone()
                return int(row[0]) if row else 0
        import sqlite3

        conn = sqlite3.connect(self.data / "runs.db")
        marks = ",".join("?" * len(self.threads))
        row = conn.execute(sql.replace("= ANY(%s)", f"IN ({marks})"), self.threads).fetchone()
        conn.close()
        return int(row[0])

    def effects(self) -> dict[str, Any]:
        from examples.shop import tools as shop

        made = {"charge": 0, "refund": 0}
        doubled = lost = 0
        for order, want in self.expected.items():
            rows = shop.charges(order)
            for kind in ("charge", "refund"):
                n = sum(1 for r in rows if r["kind"] == kind)
                made[kind] += n
                doubled += max(0, n - want[kind])
                lost += max(0, want[kind] - n)
        archived = sum(1 for o in self.archived if shop.get_order(o)["status"] == "archived")
        return {"approved": self.approved, "made": {**made, "archive": archived},
                "doubled": doubled, "lost": lost + (len(self.archived) - archived)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--sweep", type=float, default=1.0)
    parser.add_argument("--lease", type=float, default=1.0)
    args = parser.parse_args()
    data = Path(tempfile.mkdtemp(prefix="stalwart-faults-"))
    os.environ["STALWART_DATA_DIR"] = str(data)
    bench = Bench(data, args.sweep, args.lease)
    started = time.monotonic()
    bench.run(args.runs)
    time.sleep(2 * (args.sweep + args.lease))  # the sweep's time, before counting stranded runs
    kills = [k for k in bench.kills if k != float("inf")]
    print(json.dumps({
        "database": "postgresql" if os.environ.get("DATABASE_URL", "").startswith("postgres") else "sqlite",
        "runs": args.runs, "workers": 2, "sweep_seconds": args.sweep, "lease_seconds": args.lease,
        "seconds": round(time.monotonic() - started, 1),
        "effects": bench.effects(),
        "outcome_unknown_answered": bench.unknown, "saga_stuck_answered": bench.stuck,
        "stranded_runs": bench.stranded(),
        "kills": len(bench.kills),
        "kill_to_outcome_unknown_seconds": {
            "min": round(min(kills), 2) if kills else None,
            "median": round(statistics.median(kills), 2) if kills else None,
            "max": round(max(kills), 2) if kills else None,
            "missed": len(bench.kills) - len(kills),
        },
        "errors": bench.errors[:10], "error_count": len(bench.errors),
    }, indent=2))


if __name__ == "__main__":
    main()
