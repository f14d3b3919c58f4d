"""The worker side of bench/hitl.py: one process that pauses, then resumes, its slice of threads.

A worker talks to Stalwart either through the Python API (``Desk.say`` then
``Desk.confirm``, Stalwart running in this process) or over HTTP (a client of
a ``stalwart serve`` process). It waits at a barrier around each phase so the
parent can read PostgreSQL's commit counter between phases, the same way the
peer's workers do. Nothing here imports Django at module level: the parent
process never starts it.
"""

from __future__ import annotations

import contextlib
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
AGENT_FILE = ROOT / "examples" / "shop" / "agent.yaml"
# Forces this backend's counters out when it next goes idle. The scan of pg_class matters: a backend
# with no table touched since its last report skips the report, so the commit of a bare
# ``SELECT pg_stat_force_next_flush()`` would be published late, in another phase.
FLUSH = "SELECT pg_stat_force_next_flush() FROM pg_class LIMIT 1"
TURN = "charge 40 to order {order}"
# ``--policy``: the same shop with one approval policy covering every charge, asking for one approver
# (docs/policies.md), so a pause and its resume go through the policy's check and its recorded approval.
POLICY = """
    policies:
      - name: bench-one-approver
        when: {tool: charge_card}
        approvers: {quorum: 1}
"""


def policy_agent_file(folder: Path) -> Path:
    """The shop's agent file with ``POLICY`` added, written into ``folder`` (its vocabulary named in full)."""
    text = AGENT_FILE.read_text(encoding="utf-8")
    text = text.replace("vocabulary: vocabulary.yaml", f"vocabulary: {AGENT_FILE.parent / 'vocabulary.yaml'}")
    path = folder / "agent-one-approver.yaml"
    path.write_text(text.rstrip("\n") + "\n" + POLICY, encoding="utf-8")
    return path


class DeskPath:
    """Stalwart in this process, through the Python API."""

    def __init__(self, agent_file: Path = AGENT_FILE) -> None:
        sys.path.insert(0, str(ROOT))
        from stalwart_site.desk import Desk

        self.desk = Desk(agent_file)
        from django.db import connection

        self.connection = connection
        self.queries = 0

    def counting(self) -> Any:
        def count(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
            self.queries += 1
            return execute(sql, params, many, context)

        return self.connection.execute_wrapper(count)

    def pause(self, thread: str, order: str) -> str | None:
        reply = self.desk.say(thread, TURN.format(order=order))
        if not reply.waiting or reply.waiting[0].get("tool") != "charge_card":
            return f"no charge_card pause: {reply.text!r}"
        return None

    def resume(self, thread: str, order: str) -> str | None:
        reply = self.desk.confirm(thread, "approve")
        return charged(reply.text, reply.steps, order)

    def flush_stats(self) -> int:
        """Make this process's PostgreSQL backends publish their counters now; the statements run."""
        if self.connection.vendor != "postgresql":
            return 0
        with self.connection.cursor() as cursor:
            cursor.execute(FLUSH)
        flushed = 1
        pool = getattr(self.connection, "pool", None)  # idle pooled connections, if any, are flushed too
        taken = []
        try:
            while pool is not None and pool.get_stats().get("pool_available", 0) > 0:
                conn = pool.getconn(timeout=1)
                taken.append(conn)
                conn.execute(FLUSH)
                if not conn.autocommit:
                    conn.commit()
                flushed += 1
        finally:
            for conn in taken:
                pool.putconn(conn)
        return flushed


class HttpPath:
    """A client of a real ``stalwart serve`` process, one session."""

    def __init__(self, url: str) -> None:
        import httpx

        self.client = httpx.Client(base_url=url, timeout=60.0)
        self.session = ""
        self.pauses: dict[str, dict[str, Any]] = {}
        self.queries = 0  # not countable from outside the server

    def counting(self) -> Any:
        return contextlib.nullcontext()

    def _post(self, path: str, body: dict[str, Any]) -> Any:
        headers = {"Stalwart-Session": self.session} if self.session else {}
        response = self.client.post(path, json=body, headers=headers)
        self.session = response.headers.get("Stalwart-Session", self.session)
        return response

    def pause(self, thread: str, order: str) -> str | None:
        response = self._post(f"/threads/{thread}/messages", {"text": TURN.format(order=order)})
        waiting = response.json().get("waiting") if response.status_code == 200 else None
        if not waiting or waiting[0].get("tool") != "charge_card":
            return f"no charge_card pause: {response.status_code} {response.text[:200]!r}"
        self.pauses[thread] = waiting[0]
        return None

    def resume(self, thread: str, order: str) -> str | None:
        pause = self.pauses.pop(thread)
        response = self._post(f"/threads/{thread}/resume",
                              {"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]})
        if response.status_code != 200:
            return f"resume answered {response.status_code}: {response.text[:200]!r}"
        data = response.json()
        return charged((data.get("reply") or {}).get("text", ""), data.get("steps", []), order)

    def flush_stats(self) -> int:
        return 0  # the server's backends publish on their own; the parent waits for them

    def close(self) -> None:
        self.client.close()


def charged(text: str, steps: list[dict[str, Any]], order: str) -> str | None:
    """None when the resume ran the charge of ``order`` and the reply says so; else what went wrong."""
    ran = any(s.get("tool") == "charge_card" and s.get("status") == "succeeded" for s in steps)
    if ran and f"ch-{order}" in text:
        return None
    return f"charge not run for order {order}: {text!r}"


def run_phase(path: Any, op: str, items: list[tuple[str, str]]) -> dict[str, Any]:
    """Do ``op`` on every (thread, order); latencies, window, CPU, queries and failures."""
    latencies, failures, first_error = [], 0, ""
    queries0, cpu0 = path.queries, time.process_time()
    with path.counting():
        start = time.perf_counter()
        for thread, order in items:
            began = time.perf_counter()
            try:
                error = getattr(path, op)(thread, order)
            except Exception as exc:  # counted, and the run goes on
                error = f"{type(exc).__name__}: {exc}"
            latencies.append(time.perf_counter() - began)
            if error:
                failures += 1
                first_error = first_error or error
        end = time.perf_counter()
    return {"start": start, "end": end, "latencies": latencies, "cpu_s": time.process_time() - cpu0,
            "queries": path.queries - queries0, "failures": failures, "first_error": first_error}


def worker(k: int, kind: str, url: str, items: list[tuple[str, str]], warm: list[tuple[str, str]],
           barrier: Any, queue: Any) -> None:
    """Warm up, then pause every item, then resume every item, between the parent's barriers."""
    try:
        if kind == "http":
            path: Any = HttpPath(url)
        elif kind == "policy":
            import os

            path = DeskPath(policy_agent_file(Path(os.environ["STALWART_DATA_DIR"])))
        else:
            path = DeskPath()
        for op in ("pause", "resume"):  # imports, first-call caches, connections; not timed
            run_phase(path, op, warm)
        flushes = [path.flush_stats()]
        barrier.wait()  # 1: warm -> the parent reads the counter
        barrier.wait()  # 2: go
        pause = run_phase(path, "pause", items)
        flushes.append(path.flush_stats())
        barrier.wait()  # 3: pauses done -> the parent reads the counter
        barrier.wait()  # 4: go
        resume = run_phase(path, "resume", items)
        flushes.append(path.flush_stats())
        barrier.wait()  # 5: resumes done -> the parent reads the counter
        queue.put({"k": k, "pause": pause, "resume": resume, "flushes": flushes})
    except BaseException as exc:  # report it, and free the others
        with contextlib.suppress(Exception):
            barrier.abort()
        queue.put({"k": k, "error": f"{type(exc).__name__}: {exc}"})


def prepare(keep_prefix: str) -> None:
    """Migrate, and delete the bench's threads of earlier runs (their rows cascade), so a round starts clean."""
    sys.path.insert(0, str(ROOT))
    from stalwart_site.desk import Desk

    Desk(AGENT_FILE)  # starts Django and migrates
    from django.db import connection

    from threads.models import Thread

    Thread.objects.filter(id__startswith="hitl-").exclude(id__startswith=keep_prefix).delete()
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE" if connection.vendor == "postgresql" else "VACUUM")
