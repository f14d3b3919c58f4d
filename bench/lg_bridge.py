"""The LangGraph bridge's cost beside LangGraph's own resume, in one run.

    .venv/bin/python bench/lg_bridge.py                      # 200 threads, 3 rounds, SQLite run store
    .venv/bin/python bench/lg_bridge.py --threads 500 --rounds 5
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/lg_bench .venv/bin/python bench/lg_bridge.py

The graph is ``tests/langgraph/graphs.py``'s ``mail_agent`` (a real
``create_agent`` with ``HumanInTheLoopMiddleware`` over a scripted chat model,
``InMemorySaver``), N threads each stopped at its interrupt (one
``send_email`` action request). Then, round by round, the same shape two ways:

- ``langgraph``: ``graph.invoke(Command(resume={id: {"decisions": [approve]}}))``,
  LangGraph's own answer path (no claim, no token, no queue);
- ``bridge``: ``Bridge.sync`` (the interrupt mirrored as a pause: its run,
  step, pause, events, outbox and replay journal rows) and the resume route's
  work, ``doors.langgraph.answers.resume`` (the state read, the token
  checked, the claim; the engine's notice carries the graph on: the
  journal's claim, then the same ``Command``).

Each round prints ops/s and p50/p99 ms of the resume (and of the mirror),
and the bridge/LangGraph ratio; the median of the rounds' ratios ends it. A
readable table, then one JSON object as the last line of stdout. Only ratios
from one run count: the machine is shared. Nothing here asserts a time.
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


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))] if ordered else 0.0


def figures(times: list[float], wall: float) -> dict[str, float]:
    return {"ops_per_s": round(len(times) / wall, 1) if wall else 0.0,
            "p50_ms": round(percentile(times, 0.5) * 1000, 2), "p99_ms": round(percentile(times, 0.99) * 1000, 2)}


def started(graph: Any, n: int, tag: str) -> list[str]:
    from tests.langgraph.graphs import say

    threads = [f"bench-{tag}-{i}" for i in range(n)]
    for t in threads:
        graph.invoke(say(("send_email", {"to": f"{t}@example.com", "body": "hi"})),
                     {"configurable": {"thread_id": t}})
    return threads


def round_langgraph(graph: Any, n: int) -> dict[str, Any]:
    from langgraph.types import Command

    threads = started(graph, n, f"lg-{uuid.uuid4().hex[:6]}")
    times, begin = [], time.perf_counter()
    for t in threads:
        config = {"configurable": {"thread_id": t}}
        s = time.perf_counter()
        pending = graph.get_state(config).interrupts[0]
        graph.invoke(Command(resume={pending.id: {"decisions": [{"type": "approve"}]}}), config)
        times.append(time.perf_counter() - s)
    return {"resume": figures(times, time.perf_counter() - begin)}


def round_bridge(bridge: Any, n: int) -> dict[str, Any]:
    from doors.langgraph import answers

    threads = started(bridge.graph, n, f"br-{uuid.uuid4().hex[:6]}")
    mirrored, pauses, begin = [], [], time.perf_counter()
    for t in threads:
        s = time.perf_counter()
        pauses.append(bridge.sync(t)["interrupts"][0])
        mirrored.append(time.perf_counter() - s)
    mirror_wall = time.perf_counter() - begin
    times, failures, begin = [], 0, time.perf_counter()
    for t, p in zip(threads, pauses, strict=True):
        s = time.perf_counter()
        done = answers.resume(bridge, t, {"interrupt_id": p["id"], "decision": "approve", "token": p["token"]},
                              by="bench", via="langgraph")
        times.append(time.perf_counter() - s)
        failures += 0 if done.get("resumed") else 1
    return {"mirror": figures(mirrored, mirror_wall), "resume": figures(times, time.perf_counter() - begin),
            "failures": failures}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("STALWART_DATA_DIR", tempfile.mkdtemp(prefix="lg-bench-"))
    from stalwart_site.bootstrap import setup

    setup()
    from django.db import connection

    from doors.langgraph.bridge import Bridge
    from doors.langgraph.bridges import bridge_register
    from tests.langgraph.graphs import mail_agent

    lg_graph, bridge = mail_agent(), bridge_register(Bridge(mail_agent()))  # served: the notice carries it on
    started(lg_graph, 5, "warm")  # imports and first compiles off the clock
    round_bridge(bridge, 5)
    rounds = []
    for i in range(args.rounds):
        # Interleaved, so both sides see the same machine in each round.
        rounds.append({"round": i + 1, "langgraph": round_langgraph(lg_graph, args.threads),
                       "bridge": round_bridge(bridge, args.threads)})
    ratios = [r["bridge"]["resume"]["ops_per_s"] / r["langgraph"]["resume"]["ops_per_s"] for r in rounds]
    result = {"threads": args.threads, "store": connection.vendor, "rounds": rounds,
              "ratio_resume_bridge_to_langgraph": round(statistics.median(ratios), 3)}
    print(f"{args.threads} threads, run store {connection.vendor}, graph InMemorySaver, {args.rounds} rounds")
    print(f"{'round':>5}  {'LangGraph resume/s':>18}  {'bridge resume/s':>15}  {'ratio':>5}  "
          f"{'p50 ms LG / bridge':>18}  {'bridge mirror/s':>15}")
    for r, ratio in zip(rounds, ratios, strict=True):
        lg, br = r["langgraph"]["resume"], r["bridge"]["resume"]
        print(f"{r['round']:>5}  {lg['ops_per_s']:>18}  {br['ops_per_s']:>15}  {ratio:>5.2f}  "
              f"{lg['p50_ms']:>8} / {br['p50_ms']:<7}  {r['bridge']['mirror']['ops_per_s']:>15}")
    print(f"median bridge/LangGraph resume ratio: {result['ratio_resume_bridge_to_langgraph']}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
