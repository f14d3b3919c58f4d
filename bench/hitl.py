"""Pause and resume throughput, the same shape as the peer's LangGraph bench (../shared/peers).

    python bench/hitl.py --store postgres --peer                # serial, 500 threads, 3 rounds
    python bench/hitl.py --store postgres --workers 2 --peer --http
    python bench/hitl.py --store sqlite --peer --out bench/hitl-baseline.json
    python bench/hitl.py --store postgres --peer --baseline bench/hitl-baseline.json
    python bench/hitl.py --peer --http --against ../before    # before and after a change, one run

N threads each pause at a charge (``charge 40 to order <its own order>``: the
shop refuses a second charge of a paid order, so the bench adds one unpaid
order per thread to the shop's data), then each is resumed with ``approve``,
and the reply must name the charge (``ch-<order>``); anything else is counted
as a failure. Paths: ``desk`` is the Python API (``Desk.say``, then
``Desk.confirm``) in the worker processes; ``http`` (``--http``) is one real
``stalwart serve`` per worker, posting ``/threads/<id>/messages`` then
``/threads/<id>/resume``. ``--workers 2`` runs two processes, each with half
the threads; the rate is all operations over the wall time of the phase.
``policy`` (``--policy``) is the Python API again, the shop under one approval
policy that covers every charge and asks for one approver (docs/policies.md):
the table adds its ratio to ``desk`` from the same rounds (the two take turns
going first).

Per operation: ops/s, p50/p99 ms, PostgreSQL commits (``pg_stat_database.
xact_commit`` of the database; a worker forces its counters out with
``pg_stat_force_next_flush()`` as the peer does; a server cannot be asked, so
over HTTP the bench waits for the server's backends to publish and subtracts
the idle server's own background commits), and Django queries (Python API
only). ``--peer`` runs the peer in its own virtualenv, interleaved round by
round, and prints Stalwart/LangGraph ratios: only ratios from one run count,
the machines are noisy. Each round uses fresh thread ids and orders and first
deletes the bench's earlier threads (ids ``hitl-``). A readable table, then
one JSON object as the last line of stdout. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import math
import multiprocessing as mp
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]

from hitl_worker import FLUSH, prepare, worker  # noqa: E402

from bench import against  # noqa: E402

DEFAULT_PG_URL = "postgres://postgres@127.0.0.1:5432/hitl_bench"
DEFAULT_PEER_PG_URL = "postgresql://postgres@127.0.0.1:5432/peer_bench"
DEFAULT_AGAINST_PG_URL = "postgres://postgres@127.0.0.1:5432/hitl_against"
PEER_VENV = Path(os.environ.get("TMPDIR") or "/tmp") / "peer-venv"
PEER_SCRIPT = ROOT.parent / "shared" / "peers" / "langgraph_hitl.py"
PEER_SETUP = """the peer's virtualenv is missing or incomplete ({python}). Create it (see ../shared/peers/README.md):
    python3 -m venv "${{TMPDIR:-/tmp}}/peer-venv"
    "${{TMPDIR:-/tmp}}/peer-venv/bin/pip" install -r ../shared/peers/requirements.lock"""
SETTLE_S = 11.0  # an idle PostgreSQL backend publishes its counters within 10 s (PGSTAT_IDLE_INTERVAL)
IDLE_S = 5.0  # the window in which an idle server's own background commits are counted
PATHS = ("desk", "http", "langgraph", "policy")
OPS = ("pause", "resume")
FIGURES = ("per_s", "p50_ms", "p99_ms", "commits_per_op", "queries_per_op", "cpu_ms_per_op", "client_cpu_ms_per_op")


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- PostgreSQL


def pg_ensure(url: str) -> None:
    against.pg_ensure(url, "Start it, pass another --pg-url, or use --store sqlite.")


class Probe:
    """The database's commit counter; the probe's own two statements per interval are subtracted."""

    def __init__(self, url: str) -> None:
        import psycopg

        self.conn = psycopg.connect(url, autocommit=True)
        try:
            self.conn.execute(FLUSH)  # PostgreSQL 15 and later
            self.exact = True
        except psycopg.Error:
            self.exact = False

    def snap(self) -> tuple[int, float]:
        if self.exact:
            self.conn.execute(FLUSH)
        row = self.conn.execute("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")
        return int(row.fetchone()[0]), time.monotonic()

    def close(self) -> None:
        self.conn.close()


# --------------------------------------------------------------------------- one measurement


def nearest_rank(ordered: list[float], p: float) -> float:
    return ordered[max(1, math.ceil(p / 100 * len(ordered))) - 1] if ordered else float("nan")


def orders_seed(orders: list[str]) -> None:
    """One unpaid order per thread in the shop's data (the shop refuses to charge a paid order twice)."""
    from examples.shop import tools

    with tools.connect() as conn:
        conn.executemany("INSERT OR IGNORE INTO orders VALUES (?, 'c-bench', 'visa-0019', '40.00', 'unpaid')",
                         [(o,) for o in orders])


def orders_charged(orders: list[str]) -> int:
    from examples.shop import tools

    with tools.connect() as conn:
        rows = conn.execute("SELECT DISTINCT order_id FROM charges WHERE kind = 'charge'").fetchall()
    return len({r[0] for r in rows} & set(orders))


def spawn(ctx: Any, target: Any, *args: Any) -> Any:
    process = ctx.Process(target=target, args=args)
    process.start()
    return process


def measure(kind: str, args: argparse.Namespace, run: str, rnd: int) -> dict[str, Any]:
    """One round of one Stalwart path: fresh threads and orders, then W workers pause and resume them."""
    W, N = args.workers, args.threads
    prefix, digit = f"hitl-{run}-r{rnd}-{kind}-", PATHS.index(kind) + 1

    def item(i: int) -> tuple[str, str]:  # (thread id, its own order)
        return f"{prefix}{i:05d}", f"{rnd}{digit}{i:05d}"

    items, warm = [item(i) for i in range(N)], [item(90000 + i) for i in range(args.warmup)]
    orders_seed([o for _, o in items + warm])
    cleaner = spawn(mp.get_context("spawn"), prepare, prefix)
    cleaner.join(args.timeout)
    if cleaner.exitcode != 0:
        raise RuntimeError(f"preparing the database failed (exit {cleaner.exitcode})")
    halves = [items[round(k * N / W):round((k + 1) * N / W)] for k in range(W)]
    warm_halves = [warm[round(k * len(warm) / W):round((k + 1) * len(warm) / W)] for k in range(W)]
    probe = Probe(args.pg_url) if args.store == "postgres" else None
    servers: list[Any] = []
    try:
        if kind == "http":
            from tests.support.server import Server

            servers = [Server(Path(os.environ["STALWART_DATA_DIR"])).start() for _ in range(W)]
        results, snaps, background = drive(kind, args, [s.url for s in servers] or [""] * W, halves,
                                           warm_halves, probe)
    finally:
        for server in servers:
            server.stop()
        if probe:
            probe.close()
    out: dict[str, Any] = {op: figures(kind, op, N, results, snaps[i:i + 2], background, probe is not None)
                           for i, op in enumerate(OPS)}
    out["charged"] = orders_charged([o for _, o in items])
    if background:
        out["server_background_commits_per_s"] = round(background, 2)
    return out


def drive(kind: str, args: argparse.Namespace, urls: list[str], halves: list[Any], warm_halves: list[Any],
          probe: Probe | None) -> tuple[list[dict[str, Any]], list[tuple[int, float]], float]:
    """Start the workers and read the commit counter at their barriers: warm, paused, resumed."""
    ctx, W = mp.get_context("spawn"), len(halves)
    exact = probe is not None and probe.exact and kind in ("desk", "policy")
    barrier, queue = ctx.Barrier(W + 1), ctx.Queue()
    procs = [spawn(ctx, worker, k, kind, urls[k], halves[k], warm_halves[k], barrier, queue) for k in range(W)]

    def wait(step: int) -> None:
        try:
            barrier.wait(timeout=args.timeout)
        except Exception:
            said = []
            with contextlib.suppress(Exception):  # what the workers said, until the queue stays empty
                while True:
                    said.append(queue.get(timeout=2))
            raise RuntimeError(f"the workers stopped before barrier {step}: {said}") from None

    def settled() -> tuple[int, float]:
        if probe and not exact:  # a server cannot be made to publish: wait until its backends have
            time.sleep(SETTLE_S)
        return probe.snap() if probe else (0, time.monotonic())

    try:
        wait(1)
        idle = settled()
        if probe and not exact:  # the idle server's own commits (heartbeat, sweeper, outbox), per second
            time.sleep(IDLE_S)
        a = probe.snap() if probe else idle
        background = 0.0 if exact or not probe else max(0.0, (a[0] - idle[0] - 2) / (a[1] - idle[1]))
        wait(2)
        wait(3)
        b = settled()
        wait(4)
        wait(5)
        c = settled()
        results = sorted((queue.get(timeout=args.timeout) for _ in procs), key=lambda r: r["k"])
    finally:
        for p in procs:
            p.join(10)
            if p.is_alive():
                p.terminate()  # our own worker, stuck
                p.join()
    errors = [r["error"] for r in results if "error" in r]
    if errors:
        raise RuntimeError(f"a worker failed: {errors}")
    return results, [a, b, c], background


def figures(kind: str, op: str, n: int, results: list[dict[str, Any]], snaps: list[tuple[int, float]],
            background: float, counted: bool) -> dict[str, Any]:
    """One phase of all workers: the rate over the phase's wall time, latencies, commits, queries."""
    phases = [r[op] for r in results]
    lat = sorted(v for p in phases for v in p["latencies"])
    window = max(p["end"] for p in phases) - min(p["start"] for p in phases)
    out: dict[str, Any] = {
        "n": len(lat), "wall_s": round(window, 3), "per_s": round(len(lat) / window, 1),
        "p50_ms": round(nearest_rank(lat, 50) * 1e3, 2), "p99_ms": round(nearest_rank(lat, 99) * 1e3, 2),
        "failures": sum(p["failures"] for p in phases),
        "first_error": next((p["first_error"] for p in phases if p["first_error"]), ""),
    }
    if kind in ("desk", "policy"):
        out["queries_per_op"] = round(sum(p["queries"] for p in phases) / n, 2)
        out["cpu_ms_per_op"] = round(sum(p["cpu_s"] for p in phases) / n * 1e3, 2)
    if counted:  # the probe's two statements and the workers' flushes are not the operations'
        (x, tx), (y, ty) = snaps
        flushes = sum(r["flushes"][OPS.index(op) + 1] for r in results)
        out["commits_per_op"] = round(((y - x) - 2 - flushes - background * (ty - tx)) / n, 2)
    return out


# --------------------------------------------------------------------------- the peer


def run_peer(args: argparse.Namespace) -> dict[str, Any]:
    command = [str(args.peer_python), str(args.peer_script), "--checkpointer", args.store,
               "--threads", str(args.threads), "--warmup", str(args.warmup),
               "--workers", str(args.workers if args.workers > 1 else 0), "--label", "bench/hitl.py"]
    if args.store == "postgres":
        command += ["--pg-url", args.peer_pg_url]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=args.timeout)
    if done.returncode != 0 or not done.stdout.strip():
        raise RuntimeError(f"the peer failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    data = json.loads(done.stdout.strip().splitlines()[-1])
    mode = data["concurrent"] if args.workers > 1 else data["serial"]
    keys = ("n", "wall_s", "per_s", "p50_ms", "p99_ms", "commits_per_op", "client_cpu_ms_per_op")
    out: dict[str, Any] = {op: {k: mode[op][k] for k in keys if k in mode[op]} for op in OPS}
    out["charged"] = mode["pause"]["n"]  # the peer stops with an error unless every thread charged once
    out["versions"] = data.get("versions", {})
    return out


# --------------------------------------------------------------------------- another checkout


def against_round(args: argparse.Namespace, rnd: int) -> dict[str, Any]:
    """One round of the other checkout's own bench (its Stalwart paths), in its own virtualenv."""
    argv = ["--store", args.store, "--threads", str(args.threads), "--warmup", str(args.warmup),
            "--workers", str(args.workers), "--timeout", str(args.timeout),
            *(["--pg-url", args.against_pg_url] if args.store == "postgres" else []), *(["--http"] if args.http else [])]
    other = against.other_round(args.against, "hitl.py", argv, rnd, args.rounds,
                                timeout=args.timeout * 4)["rounds"][0]
    for path in ("desk", "http"):
        if path in other:
            log(f"  {path}: " + "  ".join(f"{op} {other[path][op]['per_s']}/s" for op in OPS))
    return other


def against_ratios(rounds: list[dict[str, Any]], others: list[dict[str, Any]]) -> dict[str, Any]:
    """This tree's rate over the other checkout's, per round (measured minutes apart), then the median."""
    out: dict[str, Any] = {}
    for path in ("desk", "http"):
        pairs = [(r[path], o[path]) for r, o in zip(rounds, others, strict=True) if path in r and path in o]
        if pairs:
            out[path] = {op: against.median_ratio((r[op]["per_s"] for r, _ in pairs), (o[op]["per_s"] for _, o in pairs))
                         for op in OPS}
    return out


def against_lines(result: dict[str, Any]) -> str:
    a = result["against"]
    lines = [f"The other checkout ({a['folder']}, {a['commit']}), median of {len(a['rounds'])} round(s):"]
    for path, ops in a["median"].items():
        for op in OPS:
            f = ops[op]
            lines.append(f"  {path:<8}{op:<8}{cell(f.get('per_s'), 9)} ops/s  p50 {cell(f.get('p50_ms'), 6, 2)} ms"
                         f"  commits/op {cell(f.get('commits_per_op'), 5, 2)}"
                         f"  queries/op {cell(f.get('queries_per_op'), 5)}")
    for path, ops in a["ratio"].items():
        parts = [f"{op} ops/s {r:.3f}x ({(r - 1) * 100:+.1f}%)" for op, r in ops.items()]
        lines.append(f"This tree / the other, {path} (median of per-round ratios): " + "; ".join(parts))
    return "\n".join(lines)


# --------------------------------------------------------------------------- figures


def medians(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for path in PATHS:
        runs = [r[path] for r in rounds if path in r]
        if not runs:
            continue
        out[path] = {"charged": sum(r["charged"] for r in runs)}
        for op in OPS:
            keys = [k for k in FIGURES if k in runs[0][op]]
            out[path][op] = {k: round(statistics.median(r[op][k] for r in runs), 2) for k in keys}
            if "failures" in runs[0][op]:
                out[path][op]["failures"] = sum(r[op]["failures"] for r in runs)
    return out


def ratios(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """Stalwart over LangGraph, per round (the two ran minutes apart), then the median."""
    out: dict[str, Any] = {}
    for path in ("desk", "http"):
        pairs = [(r[path], r["langgraph"]) for r in rounds if path in r and "langgraph" in r]
        if not pairs:
            continue
        out[path] = {}
        for op in OPS:
            out[path][op] = {"ops_per_s": round(statistics.median(s[op]["per_s"] / p[op]["per_s"] for s, p in pairs), 3)}
            if all("commits_per_op" in s[op] and p[op].get("commits_per_op") for s, p in pairs):
                out[path][op]["commits_per_op"] = round(statistics.median(
                    s[op]["commits_per_op"] / p[op]["commits_per_op"] for s, p in pairs), 2)
    return out


def policy_ratios(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """The one-approver policy over no policy, per round, then the median (ops/s: 1.0 is the same speed)."""
    pairs = [(r["policy"], r["desk"]) for r in rounds if "policy" in r and "desk" in r]
    if not pairs:
        return {}
    return {op: {"ops_per_s": round(statistics.median(p[op]["per_s"] / d[op]["per_s"] for p, d in pairs), 3),
                 "p50_ms": round(statistics.median(p[op]["p50_ms"] / d[op]["p50_ms"] for p, d in pairs), 3)}
            for op in OPS}


def cell(value: Any, width: int, digits: int = 1) -> str:
    text = "-" if value is None else f"{value:.{digits}f}" if isinstance(value, float) else str(value)
    return text.rjust(width)


def table(result: dict[str, Any]) -> str:
    o, figures = result["options"], result["median"]
    lines = [f"Pause and resume: {o['store']}, {o['workers']} worker(s), {o['threads']} threads, "
             f"median of {o['rounds']} round(s)",
             f"{'path':<10}{'op':<8}{'ops/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'commits/op':>12}"
             f"{'queries/op':>12}{'cpu ms/op':>11}{'failures':>10}{'charged':>12}"]
    for path in PATHS:
        for op in OPS if path in figures else ():
            f = figures[path][op]
            charged = f"{figures[path]['charged']}/{o['threads'] * o['rounds']}" if op == "resume" else ""
            lines.append(f"{path:<10}{op:<8}{cell(f.get('per_s'), 9)}{cell(f.get('p50_ms'), 9, 2)}"
                         f"{cell(f.get('p99_ms'), 9, 2)}{cell(f.get('commits_per_op'), 12, 2)}"
                         f"{cell(f.get('queries_per_op'), 12)}{cell(f.get('cpu_ms_per_op') or f.get('client_cpu_ms_per_op'), 11, 2)}"
                         f"{cell(f.get('failures'), 10)}{charged:>12}")
    for path, ops in result.get("ratio_to_langgraph", {}).items():
        parts = [f"{op} ops/s {r['ops_per_s']:.3f}x" + (f", commits {r['commits_per_op']:.2f}x" if "commits_per_op" in r else "")
                 for op, r in ops.items()]
        lines.append(f"Stalwart {path} / LangGraph (median of per-round ratios): " + "; ".join(parts))
    if result.get("policy_to_desk"):
        parts = [f"{op} ops/s {r['ops_per_s']:.3f}x, p50 {r['p50_ms']:.3f}x" for op, r in result["policy_to_desk"].items()]
        lines.append("One-approver policy / no policy (median of per-round ratios): " + "; ".join(parts))
    return "\n".join(lines)


def compare(result: dict[str, Any], base: dict[str, Any]) -> dict[str, Any]:
    """Changes against a stored run of the same store and workers; the ratio is the figure that travels."""
    out: dict[str, Any] = {}
    for path in PATHS:
        for op in OPS:
            now, then = result["median"].get(path, {}).get(op), base.get("median", {}).get(path, {}).get(op)
            if not now or not then:
                continue
            row: dict[str, Any] = {}
            for key in ("per_s", "p50_ms", "commits_per_op", "queries_per_op"):
                if key in now and key in then:  # rates and times change by a share, counts by a number
                    change = (f"{(now[key] - then[key]) / then[key] * 100:+.1f}%" if then[key] else "n/a") \
                        if key in ("per_s", "p50_ms") else f"{now[key] - then[key]:+.2f}"
                    row[key] = {"then": then[key], "now": now[key], "change": change}
            r_now = result.get("ratio_to_langgraph", {}).get(path, {}).get(op, {}).get("ops_per_s")
            r_then = base.get("ratio_to_langgraph", {}).get(path, {}).get(op, {}).get("ops_per_s")
            if r_now and r_then:
                row["ratio_to_langgraph"] = {"then": r_then, "now": r_now}
            out[f"{path} {op}"] = row
    return out


def compare_lines(deltas: dict[str, Any], where: str) -> str:
    lines = [f"Against {where}:"]
    for name, row in deltas.items():
        parts = [f"{k} {v['then']} -> {v['now']}" + (f" ({v['change']})" if "change" in v else "") for k, v in row.items()]
        lines.append(f"  {name:<18}" + "; ".join(parts))
    return "\n".join(lines)


# --------------------------------------------------------------------------- main


def one_round(args: argparse.Namespace, run: str, rnd: int, paths: list[str]) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    if rnd % 2 == 0 and paths[:2] == ["desk", "policy"]:  # who goes first alternates, round by round
        paths = ["policy", "desk", *paths[2:]]
    for path in paths:
        log(f"round {rnd}/{args.rounds}: {path} ...")
        figures[path] = run_peer(args) if path == "langgraph" else measure(path, args, run, rnd)
        log("  " + "  ".join(f"{op} {figures[path][op]['per_s']}/s" for op in OPS))
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", choices=("sqlite", "postgres"), default="postgres")
    parser.add_argument("--pg-url", default=DEFAULT_PG_URL, help="Stalwart's database (created if missing)")
    parser.add_argument("--peer-pg-url", default=DEFAULT_PEER_PG_URL, help="the peer's database (created if missing)")
    parser.add_argument("--workers", type=int, choices=(1, 2), default=1)
    parser.add_argument("--threads", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=20, help="untimed threads first, in each round (20, as the peer)")
    parser.add_argument("--http", action="store_true", help="also the HTTP path (a real stalwart serve per worker)")
    parser.add_argument("--peer", action="store_true", help="also LangGraph's bench, interleaved round by round")
    parser.add_argument("--policy", action="store_true",
                        help="also the Python API under a one-approver approval policy, and its ratio to desk")
    parser.add_argument("--peer-python", type=Path, default=PEER_VENV / "bin" / "python",
                        help="Python of a virtualenv of its own with LangGraph and langgraph-checkpoint-postgres "
                             "(default: $TMPDIR/peer-venv)")
    parser.add_argument("--peer-script", type=Path, default=PEER_SCRIPT,
                        help="LangGraph's interrupt/resume bench (langgraph_hitl.py), kept outside this repository")
    parser.add_argument("--against", type=Path, help=against.HELP)
    parser.add_argument("--against-pg-url", default=DEFAULT_AGAINST_PG_URL,
                        help="the other checkout's database (created if missing; its schema may differ)")
    parser.add_argument("--baseline", type=Path, help="a stored JSON (from --out) to compare against")
    parser.add_argument("--out", type=Path, help="store this run in FILE, under its store and workers")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds any one phase may take")
    args = parser.parse_args()
    if args.workers > 1 and args.store == "sqlite":
        parser.error("--workers 2 needs --store postgres (SQLite has one writer; the peer runs it serially too)")
    if not 1 <= args.threads < 90000 or args.rounds < 1:
        parser.error("--threads must be 1..89999 and --rounds at least 1")
    if args.peer and (not args.peer_python.exists() or subprocess.run(
            [str(args.peer_python), "-c", "import langgraph.checkpoint.postgres, langgraph.checkpoint.sqlite"],
            capture_output=True).returncode != 0):
        raise SystemExit(PEER_SETUP.format(python=args.peer_python))
    if args.peer and not args.peer_script.exists():
        raise SystemExit(f"the peer's script is missing: {args.peer_script} (pass --peer-script)")
    if args.against is not None:
        args.against = against.checkout(args.against, "hitl.py")
        if args.store == "postgres":
            against.separate(args.pg_url, args.against_pg_url, "--against-pg-url must differ from --pg-url")
    if args.store == "postgres":
        pg_ensure(args.pg_url)
        if args.peer:
            pg_ensure(args.peer_pg_url)

    load_at_start = round(os.getloadavg()[0], 2)
    folder = Path(tempfile.mkdtemp(prefix="stalwart-hitl-"))
    for name in ("STALWART_AGENT_FILE", "STALWART_AGENT", "DJANGO_SETTINGS_MODULE", "STALWART_WEBHOOK_URL"):
        os.environ.pop(name, None)
    os.environ.update({"STALWART_DATA_DIR": str(folder), "REDIS_URL": "", "STALWART_SHOP_FAULTS": "",
                       "DATABASE_URL": args.pg_url if args.store == "postgres" else ""})
    run, rounds, others = uuid.uuid4().hex[:6], [], []
    paths = ["desk", *(["policy"] if args.policy else []), *(["http"] if args.http else []),
             *(["langgraph"] if args.peer else [])]
    try:
        for rnd in range(1, args.rounds + 1):  # who goes first alternates
            mine, other = against.alternate(rnd, functools.partial(one_round, args, run, rnd, paths),
                                            functools.partial(against_round, args, rnd) if args.against else None)
            rounds.append(mine)
            others += [other] if other is not None else []
    except BaseException:
        log(f"stopped; the data folder (server logs) is kept: {folder}")
        raise
    shutil.rmtree(folder, ignore_errors=True)

    key = f"{args.store}-w{args.workers}"
    result: dict[str, Any] = {
        "bench": "stalwart_hitl", "key": key,
        "options": {"store": args.store, "workers": args.workers, "threads": args.threads, "rounds": args.rounds,
                    "warmup": args.warmup, "http": args.http, "peer": args.peer, "policy": args.policy,
                    "command": "python bench/hitl.py " + " ".join(sys.argv[1:])},
        "median": medians(rounds), "ratio_to_langgraph": ratios(rounds), "policy_to_desk": policy_ratios(rounds),
        "rounds": rounds,
        "machine": {"nproc": os.cpu_count(), "python": platform.python_version(),
                    "loadavg_1m_at_start": load_at_start, "loadavg_1m_at_end": round(os.getloadavg()[0], 2)},
    }
    if args.against is not None:
        result["against"] = {"folder": str(args.against), "commit": against.commit(args.against), "rounds": others,
                             "median": medians(others), "ratio": against_ratios(rounds, others)}
    if args.out:  # first, so a closed pipe on stdout cannot lose it
        stored = json.loads(args.out.read_text()) if args.out.exists() else {}
        stored.setdefault("about", "bench/hitl.py runs, one per store and workers; each made with its 'options'")
        stored.setdefault("runs", {})[key] = result
        args.out.write_text(json.dumps(stored, indent=2, sort_keys=True) + "\n")
    lines = [table(result)]
    if "against" in result:
        lines.append(against_lines(result))
    if args.baseline:
        stored = json.loads(args.baseline.read_text()) if args.baseline.exists() else {}
        base = stored.get("runs", {}).get(key)
        if base:
            result["against_baseline"] = compare(result, base)
            lines.append(compare_lines(result["against_baseline"], f"{args.baseline} [{key}]"))
            if base["options"]["threads"] != args.threads:
                lines.append(f"  (the stored run had {base['options']['threads']} threads, this one {args.threads})")
        else:
            lines.append(f"{args.baseline} holds no run for {key}: nothing to compare")
    print("\n".join(lines))
    print(json.dumps(result, sort_keys=True), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
