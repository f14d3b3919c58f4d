"""The LangGraph bridge's cost beside LangGraph's own resume, in one run.

    .venv/bin/python bench/lg_bridge.py                      # 200 threads, 3 rounds, SQLite run store
    .venv/bin/python bench/lg_bridge.py --threads 500 --rounds 5
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/lg_bench .venv/bin/python bench/lg_bridge.py
    .venv/bin/python bench/lg_bridge.py --api --threads 100   # the Agent Server API beside Command

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

``--api``: a resume through the Agent Server API beside the same graph
resumed directly with ``Command``, in one run. The graph is
``examples/langgraph/inbox.py``'s ``build()`` (Agent Inbox's
``HumanInterrupt``, ``InMemorySaver``), N threads a side, round by round:

- ``direct``: ``graph.invoke(input, config)`` stops each thread at its
  interrupt, then ``graph.invoke(Command(resume=[{"type": "accept",
  "args": None}]), config)`` is the timed resume (in this process);
- ``api``: a real server (``tests/support/server.py``'s: daphne on a free
  loopback port serving ``make_app`` over ``examples.langgraph.inbox``'s
  graph, its own temporary data folder; ``DATABASE_URL`` passes on to it) driven by ``langgraph_sdk``'s sync
  client: ``threads.create`` and ``runs.wait(input=...)`` stop each thread,
  then ``runs.wait(command={"resume": [...]})`` is the timed resume (the
  HTTP request, the door's claim through the engine, the same ``Command``,
  the thread's values read back).

Each resume's answer is checked (the reply sent); each round prints p50/p95
ms and resumes/s of both, and the API/direct ratio of resumes/s.
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
            "p50_ms": round(percentile(times, 0.5) * 1000, 2), "p95_ms": round(percentile(times, 0.95) * 1000, 2),
            "p99_ms": round(percentile(times, 0.99) * 1000, 2)}


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


# -- --api: the Agent Server API beside Command ----------------------------------------
ACCEPT = [{"type": "accept", "args": None}]  # Agent Inbox's HumanResponse, as inbox.py asks for it


def inbox_input(thread: str) -> dict[str, Any]:
    return {"email": {"from_email": f"{thread}@example.com", "subject": f"Order {thread}", "body": "Where is it?"}}


def sent(values: Any) -> bool:
    """The thread's values after a resume say the reply was sent (the graph ran on to its end)."""
    messages = values.get("messages") if isinstance(values, dict) else None
    return bool(messages) and str(messages[-1].get("content", "")).startswith("Sent the reply") \
        and "__interrupt__" not in values


def round_direct(graph: Any, n: int, tag: str) -> dict[str, Any]:
    from langgraph.types import Command

    threads = [f"bench-direct-{tag}-{i}" for i in range(n)]
    for t in threads:
        graph.invoke(inbox_input(t), {"configurable": {"thread_id": t}})
    times, failures, begin = [], 0, time.perf_counter()
    for t in threads:
        config = {"configurable": {"thread_id": t}}
        s = time.perf_counter()
        values = graph.invoke(Command(resume=ACCEPT), config)
        times.append(time.perf_counter() - s)
        failures += 0 if sent(values) else 1
    return {"resume": figures(times, time.perf_counter() - begin), "failures": failures}


def round_api(client: Any, n: int, tag: str) -> dict[str, Any]:
    threads = []
    for i in range(n):
        made = client.threads.create(thread_id=f"bench-api-{tag}-{i}")
        stopped = client.runs.wait(made["thread_id"], "inbox", input=inbox_input(made["thread_id"]))
        if "__interrupt__" not in stopped:
            raise RuntimeError(f"thread {made['thread_id']} did not stop at its interrupt: {stopped}")
        threads.append(made["thread_id"])
    times, failures, begin = [], 0, time.perf_counter()
    for t in threads:
        s = time.perf_counter()
        values = client.runs.wait(t, "inbox", command={"resume": ACCEPT})
        times.append(time.perf_counter() - s)
        failures += 0 if sent(values) else 1
    return {"resume": figures(times, time.perf_counter() - begin), "failures": failures}


def main_api(args: argparse.Namespace) -> None:
    from langgraph_sdk import get_sync_client

    from examples.langgraph.inbox import build

    graph = build()  # its own InMemorySaver, in this process
    store = "postgresql" if os.environ.get("DATABASE_URL", "").startswith("postgres") else "sqlite"
    from tests.support.server import Server

    # The tests' own server: daphne serving the graph through make_app, its own temporary data folder.
    served = Server(Path(tempfile.mkdtemp(prefix="lg-bench-api-")), module="examples.langgraph.inbox:build")
    try:
        client = get_sync_client(url=served.start(timeout=180).url, api_key=None, timeout=120.0)  # loopback
        round_direct(graph, 5, "warm")  # imports, first compiles and the server's first requests off the clock
        round_api(client, 5, "warm")
        rounds, run = [], uuid.uuid4().hex[:6]
        for i in range(args.rounds):
            # Interleaved, so both sides see the same machine in each round.
            rounds.append({"round": i + 1, "direct": round_direct(graph, args.threads, f"{run}-{i}"),
                           "api": round_api(client, args.threads, f"{run}-{i}")})
    finally:
        served.stop()
    ratios = [r["api"]["resume"]["ops_per_s"] / r["direct"]["resume"]["ops_per_s"] for r in rounds]
    result = {"mode": "api", "threads": args.threads, "store": store, "rounds": rounds,
              "ratio_resume_api_to_direct": round(statistics.median(ratios), 4)}
    print(f"{args.threads} threads a side, examples.langgraph.inbox, graph InMemorySaver, "
          f"server run store {store}, {args.rounds} rounds")
    print(f"{'round':>5}  {'direct resume/s':>15}  {'API resume/s':>12}  {'ratio':>6}  "
          f"{'p50 ms direct / API':>19}  {'p95 ms direct / API':>19}  {'failures':>8}")
    for r, ratio in zip(rounds, ratios, strict=True):
        d, a = r["direct"]["resume"], r["api"]["resume"]
        print(f"{r['round']:>5}  {d['ops_per_s']:>15}  {a['ops_per_s']:>12}  {ratio:>6.4f}  "
              f"{d['p50_ms']:>8} / {a['p50_ms']:<8}  {d['p95_ms']:>8} / {a['p95_ms']:<8}  "
              f"{r['direct']['failures'] + r['api']['failures']:>8}")
    print(f"median API/direct resume ratio: {result['ratio_resume_api_to_direct']}")
    print(json.dumps(result))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--api", action="store_true",
                        help="a resume through the Agent Server API (a served inbox.py) beside Command")
    args = parser.parse_args()
    if args.api:
        main_api(args)
        return
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
