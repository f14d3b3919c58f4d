"""The worker in every serving process: one per process, started by
``make_app`` (so ``stalwart serve`` and a team mounting ``make_app`` in its
own server both run it).

It is this process's one identity (``threads.engine.worker_id``: host, pid
and a random tail, the owner of the step and run leases it holds and of the
outbox rows it claims) and runs, on daemon threads of its own:

- the **heartbeat**, every third of ``STALWART_LEASE_SECONDS``, for every step,
  run and replay journal row this worker holds (a sweep that carries a run on may take long, so
  it beats apart from the sweep);
- the **sweep**, at start and every ``STALWART_SWEEP_SECONDS``: steps and run
  leases of workers that died (``threads.engine.sweep_once``: each taken by
  one conditional UPDATE, so of several serving processes only one acts),
  then pauses past their deadline and escalations (docs/agent-file.md, deadlines);
- the **outbox drain**, every second: notices due for this process's
  listeners (``approvals.outbox.outbox_drain``);
- the **event publisher**: the channel-layer sender the engine's commits hand
  their events to (``threads.engine.events``);
- the **LangGraph tick**, every second while this process serves a graph
  (``doors.langgraph.bridges.tick``): a graph that failed as it resumed is
  sent again with backoff, and every ``poll`` seconds the graph is carried on
  where it was answered in another process or left half resumed by a worker
  that died.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from datetime import datetime

from django.conf import settings
from django.db import close_old_connections

log = logging.getLogger("stalwart.sweep")

DRAIN_SECONDS = 1.0
LANGGRAPH_SECONDS = 1.0


def tick_seconds() -> float:
    return max(0.2, min(float(settings.STALWART_SWEEP_SECONDS), float(settings.STALWART_LEASE_SECONDS) / 3))


def sweep() -> int:
    """One sweep now (also what start-up runs first): dead workers' steps and runs, then deadlines."""
    from threads.engine import sweep_once

    try:
        taken = sweep_once()
        sweep_deadlines()
        return taken
    finally:
        close_old_connections()


def sweep_deadlines(now: datetime | None = None) -> dict[str, list[str]]:
    """Close overdue pauses and escalate old ones; never raises (the loop goes on)."""
    from threads.engine import deadlines_sweep

    try:
        done = deadlines_sweep(now=now)
    except Exception:  # a database that is briefly away must not end the sweeping; the next tick tries again
        log.exception("the deadline sweep failed")
        return {"escalated": [], "expired": []}
    if done["expired"] or done["escalated"]:
        log.info("deadlines: %d expired, %d escalated", len(done["expired"]), len(done["escalated"]))
    return done


def _heartbeat() -> None:
    from threads.engine import heartbeats

    heartbeats()


def _drain() -> None:
    from approvals.outbox import outbox_drain

    outbox_drain()


def _langgraph_tick() -> None:
    """The LangGraph door's tick, when this process serves a graph (``make_app``)."""
    from doors.langgraph import bridges

    if bridges.registered():
        bridges.tick()


class Worker:
    """This process's background work: heartbeat, sweep, outbox drain, publisher, the LangGraph tick."""

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._next_sweep = 0.0

    @property
    def identity(self) -> str:
        from threads.engine import worker_id

        return worker_id()

    def start(self) -> Worker:
        """Start each loop once (a second call leaves running ones alone)."""
        if any(t.is_alive() for t in self._threads):
            return self
        self._stop.clear()
        from threads.engine import publisher_start

        publisher_start()
        self._threads = [
            self._loop("stalwart-heartbeat", _heartbeat, tick_seconds),
            self._loop("stalwart-sweep", self._sweep_when_due, tick_seconds),
            self._loop("stalwart-outbox-drain", _drain, lambda: DRAIN_SECONDS),
            self._loop("stalwart-langgraph", _langgraph_tick, lambda: LANGGRAPH_SECONDS),
        ]
        for thread in self._threads:
            thread.start()
        log.info("worker %s started", self.identity)
        return self

    def stop(self) -> None:
        self._stop.set()

    def _sweep_when_due(self) -> None:
        now = time.monotonic()
        if now >= self._next_sweep:
            taken = sweep()
            if taken:
                log.warning("the sweep reconciled %s step(s) or run(s) whose worker had died", taken)
            self._next_sweep = now + float(settings.STALWART_SWEEP_SECONDS)

    def _loop(self, name: str, work: Callable[[], object], every: Callable[[], float]) -> threading.Thread:
        def run() -> None:
            while not self._stop.is_set():
                try:
                    work()
                except Exception:  # a database that is briefly away must not end the loop
                    log.exception("%s failed; trying again", name)
                finally:
                    close_old_connections()
                self._stop.wait(every())

        return threading.Thread(target=run, name=name, daemon=True)


_worker: Worker | None = None
_worker_lock = threading.Lock()


def worker() -> Worker:
    """This process's worker (made once)."""
    global _worker
    with _worker_lock:
        if _worker is None:
            _worker = Worker()
        return _worker


def start() -> Worker:
    return worker().start()


def stop() -> None:
    worker().stop()
