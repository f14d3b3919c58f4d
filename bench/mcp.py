"""The MCP gateway's cost (docs/mcp.md): calls per second through Stalwart's
gateway beside the same tool called directly on the shop's own MCP server,
with the MCP SDK's client, in the same run.

    python bench/mcp.py                      # 200 calls of each kind, 3 rounds, SQLite
    DATABASE_URL=postgres://... python bench/mcp.py --calls 100
    python bench/mcp.py --calls 50 --against ../before   # before and after a change, one run

Two kinds of call, each through a real ``stalwart serve`` (``/mcp/``) and
directly on ``python -m examples.shop.mcp_server --http PORT`` (the same
shop file, so the same tool code and data):

- a **read**: ``get_order``;
- a **pausing write answered at once**: ``charge_card`` of an order of its own.
  Through the gateway it pauses, and the client answers it by form
  elicitation (the agent's ``mcp: {approver: client}``): the check, the pause,
  the claim, the receipt stored before the send, the probe, the outcome.
  Directly it is the charge alone.

Each call is sent one after another on one session (the client's view: how
long a call takes). Printed: calls/s, p50 and p99 per path, the ratio of the
gateway's rate to the direct one, and the latency the gateway adds per call
(p50 against p50); the last stdout line is one JSON object. Nothing here
asserts a time.

``--against DIR`` (docs/benchmarks.md; bench/against.py): another checkout of
Stalwart, with its own ``.venv``, runs its own bench/mcp.py with the same
``--calls`` and ``--rounds 1`` between this tree's rounds, who goes first
alternating, in a data folder of its own and, on PostgreSQL, a database of
its own (``--against-pg-url``, by default DATABASE_URL's name with
``_against``). Then printed: per kind and path, each side's median calls/s
and p50 and the median of the per-round ratios of the rates (this tree's over
the other's); the direct path is the same shop in both, so its ratio is the
noise between the two sides.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# This file's own folder first on the path would make `import mcp` this file: the SDK is meant.
sys.path[:] = [str(ROOT), *(p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent)]

from bench import against  # noqa: E402
from tests.support.mcp import gateway_agent_file, mcp_session  # noqa: E402
from tests.support.server import Server, free_port  # noqa: E402


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def seed_orders(data_dir: Path, count: int) -> list[str]:
    """``count`` unpaid orders of the bench's own in the shop's file (one charge each)."""
    from examples.shop import tools as shop

    os.environ["STALWART_DATA_DIR"] = str(data_dir)
    shop.get_order("4411")  # makes the file and its tables
    ids = [f"b{n:06d}" for n in range(count)]
    conn = sqlite3.connect(data_dir / "shop.db")
    with conn:
        conn.executemany("INSERT OR REPLACE INTO orders VALUES (?, 'c-bench', 'visa-0019', '40.00', 'unpaid')",
                         [(i,) for i in ids])
    conn.close()
    return ids


async def accept(ctx: Any, params: Any) -> Any:
    import mcp.types as types

    return types.ElicitResult(action="accept", content={"decision": "approve"})


async def timed(url: str, tool: str, arguments: list[dict[str, Any]], *, elicit: bool) -> list[float]:
    """Each call in turn on one session: its milliseconds, and that it came back as it should."""
    out = []
    async with mcp_session(url, elicit=accept if elicit else None, name="bench") as session:
        await session.call_tool("get_order", {"order_id": "4411"})  # warm: imports, connections
        for args in arguments:
            start = time.perf_counter()
            result = await session.call_tool(tool, args)
            out.append((time.perf_counter() - start) * 1000)
            body = result.structured_content or {}
            wanted = "charge_id" if tool == "charge_card" else "order_id"
            if result.is_error or wanted not in body:
                raise RuntimeError(f"{tool} through {url} answered {result.structured_content}")
    return out


def figures(ms: list[float]) -> dict[str, float]:
    ordered = sorted(ms)
    return {"per_s": round(len(ms) / (sum(ms) / 1000), 1), "p50_ms": round(statistics.median(ms), 2),
            "p99_ms": round(ordered[max(0, int(len(ordered) * 0.99) - 1)], 2)}


def one_round(paths: dict[str, tuple[str, bool]], orders: Any, calls: int, n: int,
              rounds: int) -> dict[str, dict[str, list[float]]]:
    got: dict[str, dict[str, list[float]]] = {"read": {}, "write": {}}
    for path, (url, elicit) in paths.items():
        log(f"round {n}/{rounds}: {path} ...")
        got["read"][path] = asyncio.run(timed(url, "get_order", [{"order_id": "4411"}] * calls, elicit=elicit))
        writes = [{"order_id": next(orders), "amount": 40} for _ in range(calls)]
        got["write"][path] = asyncio.run(timed(url, "charge_card", writes, elicit=elicit))
    return got


def rates(medians: dict[str, dict[str, Any]]) -> against.Rates:
    """One round's calls/s and p50 per kind and path, as ``--against`` compares them."""
    return {f"{kind} {path}": {"per_s": medians[kind][path]["per_s"], "p50_ms": medians[kind][path]["p50_ms"]}
            for kind in ("read", "write") for path in ("gateway", "direct")}


def other_round(args: argparse.Namespace, env: dict[str, str], n: int) -> against.Rates:
    got = rates(against.other_round(args.against, "mcp.py", ["--calls", str(args.calls)], n, args.rounds,
                                    timeout=3600, env=env)["median"])
    against.log_rates(got, "/s")
    return got


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--against", type=Path, help=against.HELP)
    parser.add_argument("--against-pg-url", help="the other checkout's database when DATABASE_URL is PostgreSQL "
                        "(created if missing; default: DATABASE_URL's name with _against)")
    args = parser.parse_args()
    database_url = os.environ.get("DATABASE_URL", "")
    other_env: dict[str, str] = {}
    if args.against is not None:
        args.against = against.checkout(args.against, "mcp.py")
        if database_url.startswith("postgres"):
            other_env["DATABASE_URL"] = args.against_pg_url or against.other_database(database_url)
            against.separate(database_url, other_env["DATABASE_URL"], "--against-pg-url must differ from DATABASE_URL")
            against.pg_ensure(other_env["DATABASE_URL"])
    folder = Path(tempfile.mkdtemp(prefix="stalwart-bench-mcp-"))
    data = folder / "data"
    data.mkdir()
    agent = gateway_agent_file(folder, wait=30)
    orders = iter(seed_orders(data, args.calls * args.rounds * 2))
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DJANGO_SETTINGS_MODULE", "SECRET_KEY")}
    env.update({"STALWART_DATA_DIR": str(data), "PYTHONPATH": str(ROOT)})
    direct = subprocess.Popen([sys.executable, "-m", "examples.shop.mcp_server", "--http", str(port)], cwd=ROOT,
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rounds: list[dict[str, dict[str, list[float]]]] = []
    others: list[against.Rates] = []
    try:
        with Server(data, agent_file=agent, env={"STALWART_WORKERS": "1"}) as gateway:
            time.sleep(2)  # the shop's server starting
            paths = {"gateway": (f"{gateway.url}/mcp/Counter/", True), "direct": (f"http://127.0.0.1:{port}/mcp", False)}
            for n in range(1, args.rounds + 1):  # with --against, who goes first alternates
                got, other = against.alternate(n, partial(one_round, paths, orders, args.calls, n, args.rounds),
                                               partial(other_round, args, other_env, n) if args.against else None)
                rounds.append(got)
                others += [other] if other is not None else []
    finally:
        direct.terminate()
        direct.wait(timeout=10)
    median: dict[str, dict[str, Any]] = {}
    for kind in ("read", "write"):
        median[kind] = {}
        for path in ("gateway", "direct"):
            per_round = [figures(r[kind][path]) for r in rounds]
            median[kind][path] = {k: round(statistics.median(f[k] for f in per_round), 2) for k in per_round[0]}
        g, d = median[kind]["gateway"], median[kind]["direct"]
        median[kind]["ratio"] = round(g["per_s"] / d["per_s"], 3)
        median[kind]["added_ms_p50"] = round(g["p50_ms"] - d["p50_ms"], 2)
    database = "postgresql" if os.environ.get("DATABASE_URL", "").startswith("postgres") else "sqlite"
    print(f"MCP calls, {args.calls} a kind, median of {args.rounds} round(s), {database}")
    print(f"{'call':<24}{'gateway/s':>11}{'direct/s':>10}{'ratio':>8}{'p50 gw':>9}{'p50 dir':>9}{'added ms':>10}")
    for kind, label in (("read", "read (get_order)"), ("write", "write, answered at once")):
        m = median[kind]
        print(f"{label:<24}{m['gateway']['per_s']:>11}{m['direct']['per_s']:>10}{m['ratio']:>8}"
              f"{m['gateway']['p50_ms']:>9}{m['direct']['p50_ms']:>9}{m['added_ms_p50']:>10}")
    result = {"bench": "stalwart_mcp", "database": database, "calls": args.calls, "rounds": args.rounds,
              "median": median, "loadavg_1m": round(os.getloadavg()[0], 2)}
    if args.against is not None:
        mine = [rates({k: {p: figures(ms) for p, ms in r[k].items()} for k in r}) for r in rounds]
        result["against"] = against.summary(args.against, mine, others)
        print(against.lines(result["against"], "/s"))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
