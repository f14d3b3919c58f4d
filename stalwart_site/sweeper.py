"""The sweep in every serving process (SPEC §9): at start and every
``STALWART_SWEEP_SECONDS``.

One daemon thread per process beats for the steps (and the model
hand-offs) this worker runs, every third of ``STALWART_LEASE_SECONDS``.
Another, when a sweep is due, reconciles the steps of workers that died (``threads.engine.sweep_once``: each taken by one
conditional UPDATE, so of several serving processes only one acts on a step),
then closes pauses past their deadline and escalates old ones (SPEC §7.6;
``threads.engine.deadlines_sweep``, claimed the same way).
``stalwart serve`` starts it; a team mounting ``make_app`` starts it with
``start()``.
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import datetime

from django.conf import settings
from django.db import close_old_connections

log = logging.getLogger("stalwart.sweep")

_started: threading.Thread | None = None
_beating: threading.Thread | None = None
_stop = threading.Event()


def tick_seconds() -> float:
    return max(0.2, min(float(settings.STALWART_SWEEP_SECONDS), float(settings.STALWART_LEASE_SECONDS) / 3))


def sweep() -> int:
    """One sweep now (also what start-up runs first): dead workers' steps, then deadlines."""
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


def _loop() -> None:
    next_sweep = 0.0
    while not _stop.is_set():
        try:
            now = time.monotonic()
            if now >= next_sweep:
                taken = sweep()
                if taken:
                    log.warning("the sweep reconciled %s step(s) whose worker had died", taken)
                next_sweep = now + float(settings.STALWART_SWEEP_SECONDS)
        except Exception:  # a database that is briefly away must not end the sweeping
            log.exception("sweep failed; trying again")
        finally:
            close_old_connections()
        _stop.wait(tick_seconds())


def _beat() -> None:
    """The heartbeat, apart from the sweep: a sweep that carries a run on (a
    call sent again, a model asked again) may take long, and this worker's
    own leases must not lapse meanwhile."""
    from threads.engine.lease import heartbeat

    while not _stop.is_set():
        try:
            heartbeat()
        except Exception:  # a database that is briefly away must not end the beating
            log.exception("heartbeat failed; trying again")
        finally:
            close_old_connections()
        _stop.wait(tick_seconds())


def start() -> threading.Thread:
    """Start this process's sweeper and heartbeat (once each); the sweeper's thread."""
    global _started, _beating
    if _started is None or not _started.is_alive():
        _stop.clear()
        _started = threading.Thread(target=_loop, name="stalwart-sweep", daemon=True)
        _started.start()
    if _beating is None or not _beating.is_alive():
        _beating = threading.Thread(target=_beat, name="stalwart-heartbeat", daemon=True)
        _beating.start()
    return _started


def stop() -> None:
    _stop.set()
