"""The graphs this process serves, and the door's background work.

``make_app`` (``stalwart_site.langgraph``) registers its bridge here
(``bridge_register``); the routes serve the one registered last
(``served``). Nothing is started here: the engine tells the door of each
closed pause (``carry_on_run``, from ``doors.langgraph.listen``), and the
serving process's ``Worker`` calls ``tick`` about every second:

- the failed resumes whose retry time came are sent again (``resumes.retries_due``);
- every ``poll`` seconds of each bridge, its mirrors left ``settling`` by a
  worker that died are taken over and sent again, and its mirrors answered
  where no bridge of this graph ran (another process's console) are carried
  on here (``bridge_round``; also what ``bridge_start`` runs once).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import defaultdict

from doors.langgraph import resumes
from doors.langgraph.bridge import DOOR, KIND, Bridge, GraphFailed
from threads.engine import replays_find, replays_take_over

log = logging.getLogger("stalwart.langgraph")

_bridges: dict[str, Bridge] = {}
_order: list[str] = []
_lock = threading.Lock()


def bridge_register(bridge: Bridge) -> Bridge:
    """Serve ``bridge`` in this process (a bridge of the same graph's name is replaced)."""
    with _lock:
        _bridges[bridge.name] = bridge
        if bridge.name in _order:
            _order.remove(bridge.name)
        _order.append(bridge.name)
    return bridge


def bridge_forget(name: str) -> None:
    with _lock:
        _bridges.pop(name, None)
        if name in _order:
            _order.remove(name)


def bridge_of(name: str) -> Bridge | None:
    with _lock:
        return _bridges.get(name)


def registered() -> list[Bridge]:
    with _lock:
        return [_bridges[n] for n in _order]


def served() -> Bridge | None:
    """The bridge the routes serve: the one registered last (None: none is)."""
    with _lock:
        return _bridges[_order[-1]] if _order else None


def carry_on_run(run_id: str) -> None:
    """A mirrored pause of ``run_id`` closed: its graph carried on, if this process serves it."""
    rows = replays_find(door=DOOR, run_ids=[run_id], kind=KIND, statuses=["open"])
    if not rows:
        return
    row = rows[-1]
    bridge = bridge_of(str(row.meta.get("graph", "")))
    if bridge is None:  # not served here: the tick of a process that serves it carries it on
        return
    try:
        resumes.carry_on(bridge, str(row.meta.get("graph_thread", "")))
    except GraphFailed:
        pass  # logged where it failed, kept settling and sent again by the worker's tick


def taken_over(bridge: Bridge) -> list[str]:
    """The mirrors of ``bridge`` left settling by a worker that died: taken and sent again."""
    by_thread: dict[str, list[int]] = defaultdict(list)
    for row in replays_take_over(door=DOOR, caller=bridge.name):
        by_thread[str(row.meta.get("graph_thread", ""))].append(row.id)
    done = []
    for graph_thread, ids in by_thread.items():
        try:
            if resumes.resend(bridge, graph_thread, ids) is not None:
                done.append(graph_thread)
        except GraphFailed:
            continue  # held by this worker now: its retries send it again
    return done


def answered_elsewhere(bridge: Bridge) -> list[str]:
    """Mirrors of ``bridge`` whose pauses closed where no bridge of it ran, carried on here."""
    rows = replays_find(door=DOOR, caller=bridge.name, kind=KIND, statuses=["open"], waiting=False)
    done = []
    for graph_thread in dict.fromkeys(str(r.meta.get("graph_thread", "")) for r in rows):
        try:
            outcome = resumes.carry_on(bridge, graph_thread)
        except GraphFailed:
            continue
        if outcome is not None and outcome.get("resumed"):
            done.append(graph_thread)
    return done


def bridge_round(bridge: Bridge) -> list[str]:
    """One round: taken over, then answered elsewhere; the graph threads resumed."""
    return taken_over(bridge) + answered_elsewhere(bridge)


def bridge_start(bridge: Bridge) -> list[str]:
    """At start: one round before the bridge serves."""
    bridge.next_poll = time.monotonic() + bridge.poll
    return bridge_round(bridge)


def tick(now: float | None = None) -> list[str]:
    """The worker's tick (see the module's docstring); the graph threads resumed."""
    now = time.monotonic() if now is None else now
    done = []
    for bridge in registered():
        try:
            done += resumes.retries_due(bridge, now)
            if bridge.poll > 0 and now >= bridge.next_poll:
                bridge.next_poll = now + bridge.poll
                done += bridge_round(bridge)
        except Exception:  # one graph's failure (its checkpointer away) never stops the others' tick
            log.exception("graph %s: the bridge's tick failed; the next one tries again", bridge.name)
    return done
