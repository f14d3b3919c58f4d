"""The cost of durable replay: a team's steps function resumed after each of its pauses.

    python bench/steps.py                 # SQLite in a fresh data folder
    DATABASE_URL=postgres://... python bench/steps.py --runs 5

A steps function makes 10 writes one after another (``run.call("note", n=i)``);
each write pauses, and each pause is approved. Resume k runs the function again
from the start: k-1 calls come back from the journal, call k is sent, and the
function stops at the pause of call k+1. The same run *without a journal* is
the agent-file engine with the same 10 calls as planned steps: a resume loads
the step rows and carries on from there, replaying nothing.

Both go through the same answer service (claim, token, check, send), in this
process, through the Python API. Printed as JSON: per resume, the median
milliseconds and database queries of each, their difference (the replay's
cost), and the time spent inside the function's journaled calls (measured
directly, so it is free of the noise of the rest); nothing here asserts a time.
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

CALLS = 10

AGENT = """
agents:
  - name: Team
    steps: bench_steps_flows:ten_notes
    tools:
      note: {python: "bench_steps_flows:note", write: true}
  - name: Plain
    tools:
      note: {python: "bench_steps_flows:note", write: true}
"""

FLOWS = f'''
def note(n: int) -> dict:
    """Write a note (a write that does nothing, so the engine's own cost shows)."""
    return {{"n": n}}


def ten_notes(run, turn):
    total = 0
    for i in range({CALLS}):
        result = run.call("note", n=i)
        total += result["n"] if result else 0
    return f"noted {{total}}"
'''


def setup(folder: Path) -> Path:
    os.environ["STALWART_DATA_DIR"] = str(folder / "data")
    (folder / "bench_steps_flows.py").write_text(FLOWS, encoding="utf-8")
    path = folder / "agent.yaml"
    path.write_text(AGENT, encoding="utf-8")
    return path


REPLAYED_MS: list[float] = []


def time_replayed_calls() -> None:
    """Wrap ``RunHandle._one`` to add up the time of calls answered from the journal."""
    from threads.engine.teamsteps import RunHandle

    original = RunHandle._one

    def timed(self: Any, seq: int, tool: str, arguments: dict[str, Any]) -> Any:
        before, start = self.replayed, time.perf_counter()
        out = original(self, seq, tool, arguments)
        if self.replayed > before:
            REPLAYED_MS[-1] += (time.perf_counter() - start) * 1000
        return out

    RunHandle._one = timed  # type: ignore[method-assign]


def resume_all(desk: Any, thread: str, first: dict[str, Any]) -> list[tuple[float, int, float]]:
    """Approve each pause as it comes; (ms, queries, ms spent returning journaled calls) per resume."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    out, pause = [], first
    for _ in range(CALLS):
        REPLAYED_MS.append(0.0)
        connection.queries_log.clear()  # a full log (9000) would make the count read 0
        with CaptureQueriesContext(connection) as queries:
            start = time.perf_counter()
            reply = desk.resume(thread, pause["id"], "approve", pause["token"])
            elapsed = (time.perf_counter() - start) * 1000
        out.append((elapsed, len(queries.captured_queries), REPLAYED_MS[-1]))
        if reply.waiting:
            pause = reply.waiting[0]
    assert not reply.waiting, reply.text
    return out


def team_run(desk: Any) -> list[tuple[float, int, float]]:
    thread = f"team-{uuid.uuid4().hex[:8]}"
    reply = desk.say(thread, "ten notes")
    return resume_all(desk, thread, reply.waiting[0])


def plain_run(desk: Any) -> list[tuple[float, int, float]]:
    from catalogue import registry
    from catalogue.plan import Argument, Call, Plan
    from threads.engine import open_pauses
    from threads.engine.advance import run_advance
    from threads.engine.turns import run_start, thread_open
    from threads.engine.unit import unit

    agent = registry.get_agent("Plain")
    plan = Plan(language="en", read=True,
                calls=tuple(Call(step=i + 1, tool="note", arguments=(Argument("n", i),)) for i in range(CALLS)))
    thread_id = f"plain-{uuid.uuid4().hex[:8]}"
    with unit(thread_id, lock=False) as u:  # the run stored, nothing decided yet
        thread, created = thread_open(thread_id=thread_id, session_hash=desk._session_hash, agent=agent.name)
        progress, _, _ = run_start(u, thread=thread, agent=agent, text_="ten notes", language="en", plan=plan,
                                calls=list(plan.calls), context={}, privileges=[], new_thread=created)
    run_advance(progress)
    return resume_all(desk, thread_id, open_pauses(thread_id)[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="runs of each kind; medians are printed")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="stalwart-bench-steps-"))
    path = setup(folder)
    from django.conf import settings  # noqa: F401 - Django starts in Desk

    from stalwart_site.desk import Desk

    team = Desk(path, agent="Team")
    plain = Desk(path, agent="Plain")
    plain.session = team.session
    from django.conf import settings as dj

    dj.DEBUG = False
    time_replayed_calls()
    team_run(team), plain_run(plain)  # warm up: imports, connections
    teams = [team_run(team) for _ in range(args.runs)]
    plains = [plain_run(plain) for _ in range(args.runs)]
    rows = []
    for k in range(CALLS):
        t_ms = statistics.median(r[k][0] for r in teams)
        p_ms = statistics.median(r[k][0] for r in plains)
        rows.append({
            "resume": k + 1,
            "replayed_calls": k,
            "journal_ms": round(t_ms, 2),
            "no_journal_ms": round(p_ms, 2),
            "replay_cost_ms": round(t_ms - p_ms, 2),
            "journaled_calls_ms": round(statistics.median(r[k][2] for r in teams), 3),
            "journal_queries": statistics.median(r[k][1] for r in teams),
            "no_journal_queries": statistics.median(r[k][1] for r in plains),
        })
    total_t = statistics.median(sum(x[0] for x in r) for r in teams)
    total_p = statistics.median(sum(x[0] for x in r) for r in plains)
    # Least squares: the replay's cost grows with the calls replayed.
    xs, ys = [r["replayed_calls"] for r in rows], [r["replay_cost_ms"] for r in rows]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)
    per_call = [r[k][2] / k for r in teams for k in range(1, CALLS)]
    print(json.dumps({
        "database": dj.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1],
        "calls": CALLS,
        "runs": args.runs,
        "per_resume": rows,
        "all_resumes_ms": {"journal": round(total_t, 2), "no_journal": round(total_p, 2)},
        "replay_cost_ms_per_journaled_call_fit": round(slope, 3),
        "journaled_call_return_ms_median": round(statistics.median(per_call), 4),
    }, indent=2))


if __name__ == "__main__":
    main()
