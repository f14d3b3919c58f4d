"""Deadlines and escalations in a serving process (SPEC §7.6).

# --- WIRING (issue 12 -> issue 8's sweep loop) ---------------------------------
# Issue 8 owns the periodic sweep that every `stalwart serve` process runs.
# When merging, call ``sweep_deadlines()`` once per tick of that loop (any
# interval up to a few seconds; every process may call it: each pause is
# closed or escalated by exactly one caller, claimed in the database).
# Until then, overdue pauses still close lazily whenever their thread is read
# or answered (``threads.engine.pauses.expire_questions``).
# -------------------------------------------------------------------------------
"""

from __future__ import annotations

import logging
from datetime import datetime

from threads.engine import deadlines_sweep

log = logging.getLogger("stalwart")


def sweep_deadlines(now: datetime | None = None) -> dict[str, list[str]]:
    """Close overdue pauses and escalate old ones; never raises (a sweep loop goes on)."""
    try:
        done = deadlines_sweep(now=now)
    except Exception:  # the loop must survive a database hiccup; the next tick tries again
        log.exception("the deadline sweep failed")
        return {"escalated": [], "expired": []}
    if done["expired"] or done["escalated"]:
        log.info("deadlines: %d expired, %d escalated", len(done["expired"]), len(done["escalated"]))
    return done
