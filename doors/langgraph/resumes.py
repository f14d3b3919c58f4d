"""A graph carried on once what it waits on is answered (docs/langgraph.md).

``carry_on`` (the engine's notice of a closed pause calls it, whichever door
answered; the worker's tick, for answers given in another process): under
this process's lock of the graph thread, once no pause of the thread's
mirrors waits, the mirrors are **claimed** (``replays_settle``: each row
``open`` -> ``settling`` with its resume value, all or none, one
conditional UPDATE each, so of two processes one claims them), the
interrupts checked still pending with the same value (else their mirror
closes), and the graph resumed once with ``Command(resume={interrupt_id:
value, ...})``; then the rows are ``kept`` (``replays_settled``) and what
the graph waits on next is mirrored. A multi-action request resumes once,
when each of its actions is answered.

The resume value is the door's mapping of what the engine recorded
(``values.decision_of``): never an approval for a step no one approved.

A graph that fails as it resumes leaves its rows ``settling``, held by this
worker's lease: the worker's tick sends the same values again with backoff
(``retries_due``), and a row whose worker died (its lease lapsed) is taken
over (``replays_take_over``) and sent again by another process's tick, or
at the next start. An interrupt no longer pending when its row is sent
again was resumed already: its row is kept, and nothing is sent twice.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from django.utils.translation import gettext_lazy as _

from doors.langgraph.bridge import Bridge, GraphFailed
from doors.langgraph.graphthreads import thread_status_set
from doors.langgraph.values import (
    decision_of,
    human_response_of,
    is_hitl,
    is_human_interrupt,
    is_tool_approval,
    jsonable,
    output_words,
)
from threads.engine import ReplayView, handback_said, replays_settle, replays_settled, run_read

log = logging.getLogger("stalwart.langgraph")

DETAIL_GRAPH_FAILED = _("The answer is recorded, but the graph failed as it resumed: {error}. "
                        "It is resumed again with the same answer, shortly and when the bridge starts.")
RETRIES = 8  # a failed resume tried again, base x 2^attempt seconds apart, at most a minute (about five minutes)

# What the carry-ons of the current request did, by (graph, graph thread): a route
# that answers a pause reads what the engine's notice carried on (``watching``).
_seen: ContextVar[dict[tuple[str, str], Any] | None] = ContextVar("stalwart_langgraph_seen", default=None)


@contextmanager
def watching() -> Iterator[dict[tuple[str, str], Any]]:
    """What the carry-ons made in this context do (an answer, or the ``GraphFailed`` it raised)."""
    seen: dict[tuple[str, str], Any] = {}
    token = _seen.set(seen)
    try:
        yield seen
    finally:
        _seen.reset(token)


def _tell(bridge: Bridge, graph_thread: str, outcome: Any) -> None:
    seen = _seen.get()
    if seen is None:
        return
    key = (bridge.name, graph_thread)
    earlier = seen.get(key)
    if not (isinstance(earlier, dict) and earlier.get("resumed")):  # a resume seen stays the answer
        seen[key] = outcome


def carry_on(bridge: Bridge, graph_thread: str) -> dict[str, Any] | None:
    """Resume the graph thread if nothing of its mirrors waits (see the module's
    docstring); its answer (None: no mirror of it is open). ``GraphFailed``
    when the graph fails as it resumes."""
    try:
        outcome = _carry_on(bridge, graph_thread)
    except GraphFailed as failed:
        _tell(bridge, graph_thread, failed)
        raise
    if outcome is not None:
        _tell(bridge, graph_thread, outcome)
    return outcome


def _carry_on(bridge: Bridge, graph_thread: str) -> dict[str, Any] | None:
    with bridge.lock(graph_thread):
        waiting = {p.run for p in bridge.waiting(graph_thread)}  # those past their deadline closed first
        rows = bridge.rows(graph_thread, ("open",))
        if not rows:
            return None
        if any(r.run in waiting for r in rows):
            return bridge.answer(graph_thread, resumed=False)
        pending = bridge.pending(graph_thread)
        for gone in [r for r in rows if not bridge.still_pending(r, pending)]:
            bridge.close(gone)  # the graph went on without these answers
        rows = [r for r in rows if bridge.still_pending(r, pending)]
        if not rows:
            return bridge.answer(graph_thread, resumed=False)
        values = {r.id: resume_value(r, pending[str(r.meta["interrupt"])][0]) for r in rows}
        if not replays_settle(values):  # another worker claimed them first: it resumes the graph
            return bridge.answer(graph_thread, resumed=False)
        return send(bridge, graph_thread, rows, {str(r.meta["interrupt"]): values[r.id] for r in rows})


def resume_value(row: ReplayView, value: Any) -> Any:
    """What the graph is handed back for one interrupt (of value ``value``), from its steps' decisions."""
    steps = run_read(row.run).steps
    if is_human_interrupt(value):  # Agent Inbox's: a HumanResponse per action, a list where it asked with one
        responses = [human_response_of(s) for s in steps]
        return responses if isinstance(value, list) else responses[0]
    if not is_hitl(value) and not is_tool_approval(value):  # a question: its answer (None: no one answered)
        result = steps[0].result if steps else None
        return result.get("answer") if isinstance(result, Mapping) else None
    decisions = [decision_of(s) for s in steps]
    if is_tool_approval(value):  # a tool_approval takes one decision, not a list
        return decisions[0]
    return {"decisions": decisions}


def send(bridge: Bridge, graph_thread: str, rows: list[ReplayView], resume: dict[str, Any], *,
         attempt: int = 0) -> dict[str, Any]:
    """Resume the graph with ``resume`` (its rows claimed, ``settling``); then the rows kept."""
    from langgraph.types import Command

    ids = [r.id for r in rows]
    try:
        output, chunks = bridge.invoke(Command(resume=resume), bridge.config(graph_thread))
    except Exception as exc:  # left settling: sent again by the worker's tick, and at start
        log.exception("graph %s failed resuming thread %s", bridge.name, graph_thread)
        retry_later(bridge, graph_thread, ids, attempt)
        thread_status_set(bridge.name, graph_thread, "error")
        raise GraphFailed(str(DETAIL_GRAPH_FAILED).format(error=type(exc).__name__)) from exc
    bridge.retries.pop(graph_thread, None)
    replays_settled(ids)
    said = output_words(jsonable(output))
    if said:  # what the graph did, kept with the runs it was handed back from (the pause's page shows it)
        handback_said(run_ids=[r.run for r in rows], text=said)
    answer = bridge.sync(graph_thread)
    answer.update(resumed=True, output=jsonable(output), stream=chunks)
    return answer


def resend(bridge: Bridge, graph_thread: str, ids: list[int], *, attempt: int = 0) -> dict[str, Any] | None:
    """The rows ``ids`` (``settling``, held by this worker) sent again with their
    values while their interrupt is pending; kept if it is not (it was resumed)."""
    with bridge.lock(graph_thread):
        rows = [r for r in bridge.rows(graph_thread, ("settling",)) if r.id in ids]
        if not rows:
            bridge.retries.pop(graph_thread, None)
            return None
        pending = bridge.pending(graph_thread)
        live = [r for r in rows if bridge.still_pending(r, pending)]
        replays_settled([r.id for r in rows if r not in live])
        if not live:
            bridge.retries.pop(graph_thread, None)
            return None
        return send(bridge, graph_thread, live, {str(r.meta["interrupt"]): r.result for r in live}, attempt=attempt)


def retry_later(bridge: Bridge, graph_thread: str, ids: list[int], attempt: int) -> None:
    """Send the rows again ``retry_base`` x 2^attempt seconds from now (at most a minute), up to
    ``RETRIES`` times; then they wait for the next start (or another process, once this one stops)."""
    if bridge.retry_base is None or attempt >= RETRIES:
        bridge.retries.pop(graph_thread, None)
        return
    delay = min(60.0, bridge.retry_base * 2 ** attempt)
    bridge.retries[graph_thread] = (ids, attempt + 1, time.monotonic() + delay)


def retries_due(bridge: Bridge, now: float) -> list[str]:
    """The worker's tick: the failed resumes whose time came, sent again; the graph threads resumed."""
    done = []
    for graph_thread, (ids, attempt, due) in list(bridge.retries.items()):
        if due > now:
            continue
        try:
            if resend(bridge, graph_thread, ids, attempt=attempt) is not None:
                done.append(graph_thread)
        except GraphFailed:
            continue  # scheduled again by send
    return done
