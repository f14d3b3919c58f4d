"""One MCP key flooding the gateway, and another key beside it (docs/mcp.md, "Limits").

    python bench/mcp_flood.py                         # 10,000 sessions, 150 held calls, SQLite
    DATABASE_URL=postgres://... python bench/mcp_flood.py --sessions 2000

Against one real ``stalwart serve``, with two client keys:

1. **quiet**: the calm key opens a session and reads ``get_order``, ``--probes``
   times one after another (a fresh session each time: ``initialize`` then the
   read), as the baseline;
2. **session flood**: the flooding key sends ``--sessions`` ``initialize``
   requests, ``--concurrency`` at a time, while the calm key probes as in 1;
3. **held calls**: the flooding key sends ``--held`` pausing writes
   (``charge_card``) at once on one session, while the calm key probes.

Printed: per phase, the flooding key's answers by status, and the calm key's
probes (answered, p50 and p95 of initialize-then-read in ms, against the
quiet baseline's), and the server's resident memory after each phase. The
last stdout line is one JSON object. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# This file's own folder first on the path would make `import mcp` this file: the SDK is meant.
sys.path[:] = [str(ROOT), *(p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent)]

import httpx  # noqa: E402

from tests.support.mcp import gateway_agent_file, mcp_key, mcp_session  # noqa: E402
from tests.support.server import Server  # noqa: E402

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "flood", "version": "1"}}}


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def rss_mib(server: Server) -> float:
    assert server.proc is not None
    for line in Path(f"/proc/{server.proc.pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def probe(url: str, key: str) -> float | None:
    """A fresh session of the calm key: initialize, then one read; ms, or None when refused."""
    started = time.perf_counter()
    try:
        async with mcp_session(url, key=key, name="calm") as session:
            read = await session.call_tool("get_order", {"order_id": "4411"})
    except Exception as exc:  # noqa: BLE001 - a refused probe is what this counts
        log(f"  a calm probe failed: {exc!r}")
        return None
    ok = not read.is_error and (read.structured_content or {}).get("order_id") == "4411"
    return (time.perf_counter() - started) * 1000 if ok else None


async def probes(url: str, key: str, stop: asyncio.Event, at_least: int) -> list[float | None]:
    out: list[float | None] = []
    while not stop.is_set() or len(out) < at_least:
        out.append(await probe(url, key))
    return out


async def session_flood(url: str, key: str, count: int, concurrency: int) -> collections.Counter[int]:
    """``count`` initialize requests; then the sessions they opened are closed (DELETE), as a client ends them."""
    statuses: collections.Counter[int] = collections.Counter()
    opened: list[str] = []
    queue = iter(range(count))
    headers = {"Authorization": f"Bearer {key}", "Accept": "application/json, text/event-stream"}
    async with httpx.AsyncClient(timeout=60, limits=httpx.Limits(max_connections=concurrency)) as http:
        async def worker() -> None:
            for _ in queue:
                try:
                    answer = await http.post(url, json=INITIALIZE, headers=headers)
                except httpx.HTTPError:
                    statuses[0] += 1
                    continue
                statuses[answer.status_code] += 1
                if answer.headers.get("mcp-session-id"):
                    opened.append(answer.headers["mcp-session-id"])
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        for session in opened:
            await http.delete(url, headers={**headers, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25"})
    return statuses


async def held_calls(url: str, key: str, count: int) -> collections.Counter[str]:
    said: collections.Counter[str] = collections.Counter()
    async with mcp_session(url, key=key, name="holder") as session:
        async def one(n: int) -> None:
            try:
                result = await session.call_tool("charge_card", {"order_id": "4411", "amount": 1 + n})
                said[str((result.structured_content or {}).get("status", "error"))] += 1
            except Exception as exc:  # noqa: BLE001 - the refusals past the limit are what this counts
                said[f"refused: {getattr(getattr(exc, 'error', None), 'code', type(exc).__name__)}"] += 1
        await asyncio.gather(*(one(n) for n in range(count)))
    return said


def summary(latencies: list[float | None]) -> dict[str, Any]:
    answered = sorted(x for x in latencies if x is not None)
    if not answered:
        return {"probes": len(latencies), "answered": 0}
    p95 = answered[min(len(answered) - 1, int(len(answered) * 0.95))]
    return {"probes": len(latencies), "answered": len(answered), "p50_ms": round(statistics.median(answered), 1),
            "p95_ms": round(p95, 1)}


async def main_async(server: Server, flood_key: str, calm_key: str, args: argparse.Namespace) -> dict[str, Any]:
    url = f"{server.url}/mcp/"
    quiet = summary([await probe(url, calm_key) for _ in range(args.probes)])
    log(f"quiet: {quiet}, {rss_mib(server):.0f} MiB")

    stop = asyncio.Event()
    watching = asyncio.ensure_future(probes(url, calm_key, stop, args.probes))
    started = time.perf_counter()
    flood = await session_flood(url, flood_key, args.sessions, args.concurrency)
    flood_s = time.perf_counter() - started
    stop.set()
    during_flood = summary(await watching)
    flood_rss = rss_mib(server)
    log(f"session flood: {dict(flood)} in {flood_s:.1f} s; calm: {during_flood}, {flood_rss:.0f} MiB")

    stop = asyncio.Event()
    watching = asyncio.ensure_future(probes(url, calm_key, stop, args.probes))
    held = await held_calls(url, flood_key, args.held)
    stop.set()
    during_held = summary(await watching)
    held_rss = rss_mib(server)
    log(f"held calls: {dict(held)}; calm: {during_held}, {held_rss:.0f} MiB")
    return {"quiet": quiet, "flood": {"answers": {str(k): v for k, v in flood.items()}, "seconds": round(flood_s, 1),
                                      "calm": during_flood, "rss_mib": round(flood_rss)},
            "held": {"answers": dict(held), "calm": during_held, "rss_mib": round(held_rss)}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--held", type=int, default=150)
    parser.add_argument("--probes", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="stalwart-flood-") as folder:
        data_dir = Path(folder)
        agent = gateway_agent_file(data_dir, wait=10)
        with Server(data_dir, agent_file=agent) as server:  # migrates the store before the keys are made
            flood_key, calm_key = mcp_key(data_dir, "flood"), mcp_key(data_dir, "calm")
            result = asyncio.run(main_async(server, flood_key, calm_key, args))
    q, f, h = result["quiet"], result["flood"], result["held"]
    print(f"{'phase':<16} {'flooding key':<44} {'calm probes':>12} {'p50 ms':>8} {'p95 ms':>8} {'RSS MiB':>8}")
    print(f"{'quiet':<16} {'':<44} {q['answered']:>5}/{q['probes']:<6} {q['p50_ms']:>8} {q['p95_ms']:>8}")
    for name, phase in (("session flood", f), ("150 held calls", h)):
        calm = phase["calm"]
        print(f"{name:<16} {json.dumps(phase['answers']):<44} {calm['answered']:>5}/{calm['probes']:<6} "
              f"{calm.get('p50_ms', '-'):>8} {calm.get('p95_ms', '-'):>8} {phase['rss_mib']:>8}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
