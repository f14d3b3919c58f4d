"""The bridge between a compiled LangGraph graph and Stalwart's run store (docs/langgraph.md).

A graph's **thread** (its checkpointer's ``thread_id``) is a Stalwart thread
of its own (``lg-<graph>-<thread>``). Each **pending interrupt** of it is
mirrored (``sync``) as a run of derived id, through the engine's
``pause_mirror``: a ``HumanInTheLoopMiddleware`` ``HITLRequest`` gives one
``confirm`` per action request (the tool and its arguments, origin
``model``, its allowed decisions as choices), a per-call ``tool_approval``
one ``confirm``, any other value one ``ask`` carrying it. The mirror is a
row of the engine's replay journal (door ``langgraph``, kind
``interrupt``, caller the graph's name), taken with its run: its identity
is the Stalwart thread, the interrupt's id, the digest of its value and a
**generation** (how many earlier mirrors of that interrupt id the thread
had: sequential ``interrupt()``s of one node share an id), so every process
mirrors the same interrupt under the same pause ids, and of two processes
mirroring it at once the journal's constraint lets one. The bridge's
approval policies (``bridge_policies``) go with each mirror, on its run's
plan: the engine puts the calls they cover under them. A mirror whose
interrupt is no longer pending closes (``handback_close``: what waits of
it, superseded) and its row expires.

A **resume** (``resume``): the interrupt still pending with the same value
(else its mirror closes and the answer is ``409 interrupt_stale``, the
checkpoint untouched); then the pause answered through the engine (token,
claim, audit: ``pause_answer``; an ``edit``, ``handback_edit``: a new pause
and token). The engine tells every closed pause to the door's listener
(``doors.langgraph.listen``), which carries the graph on at once
(``doors.langgraph.resumes``) whoever answered: this route, the console,
the signed channel, a deadline. The route then says what that did
(``resumed``, ``output``) and what still waits.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from django.utils.translation import gettext_lazy as _

from catalogue.agentfile import AgentFileError
from catalogue.agentfile.policies import policy_entries
from doors.langgraph.graphthreads import thread_status_set
from doors.langgraph.requests import caller_config, check_thread
from doors.langgraph.values import asks_of, chunk_json, digest, is_tool_approval, jsonable
from threads.engine import (
    PauseView,
    Proposer,
    ReplayKey,
    ReplayView,
    handback_close,
    open_pauses,
    pause_mirror,
    replay_expire,
    replays_find,
)
from threads.errors import Stale, StalwartError
from threads.tokens import canonical

log = logging.getLogger("stalwart.langgraph")

DOOR = "langgraph"
KIND = "interrupt"
LIVE = ("open", "settling")  # a mirror still being answered or carried back
DETAIL_GONE = _("That interrupt is no longer pending in the graph: it went on without this answer.")
DETAIL_RUN_FAILED = _("The graph failed: {error}.")


class GraphFailed(StalwartError):
    code = "graph_failed"
    http_status = 502


def bridge_policies(given: Any) -> list[dict[str, Any]]:
    """The approval policies a bridge puts its mirrors under (docs/langgraph.md, "Policies over a graph's
    interrupts"): a list in an agent file's ``policies:`` form, or the path of a YAML file holding one under
    ``policies:``. Checked as an agent file's are (``AgentFileError``: the file, the place, the reason); a
    policy that refuses is refused too, since nothing of the bridge's may answer the graph without a person
    (the graph's own ``StalwartMiddleware`` refuses a call before it is asked). Kept in that form."""
    if given is None:
        return []
    path, raw = Path("make_app(policies=...)"), given
    if isinstance(given, str | Path):
        path = Path(given)
        try:
            loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as exc:
            raise AgentFileError(path, "", f"cannot read the policies ({exc})") from exc
        if not isinstance(loaded, Mapping) or "policies" not in loaded:
            raise AgentFileError(path, "", "holds no policies: a mapping with a list under 'policies:'")
        raw = loaded["policies"]
    policies = policy_entries(path, "policies", raw)
    for i, policy in enumerate(policies):
        if policy.refuse:
            raise AgentFileError(path, f"policies[{i}].refuse", "a bridge cannot refuse a graph's own interrupt "
                                 "for it: refuse the call in the graph (StalwartMiddleware applies the agent "
                                 "file's refusals to each tool call), or name approvers")
        never = _never_covers(policy)
        if never:
            raise AgentFileError(path, f"policies[{i}].when.{never[0]}", never[1])
    return [p.to_json() for p in policies]


def _never_covers(policy: Any) -> tuple[str, str] | None:
    """A condition no call a graph's interrupt asks about can meet (its place under ``when``, and why)."""
    w = policy.when
    if w.kind == "read":
        return "kind", "a call a graph asks about is a write: a policy for reads would never cover one"
    if w.declared:
        return "declared", "a graph's tools declare nothing to Stalwart: this policy would never cover a call"
    if w.tainted:
        return "tainted", "Stalwart does not see what a graph's model read: this policy would never cover a call"
    if w.doors and DOOR not in w.doors:
        return "door", f"a graph's calls come through the door '{DOOR}': this policy would never cover one"
    return None


class Bridge:
    """One graph and its checkpointer, mirrored into the run store.

    ``secret``: answers and runs must carry a valid ``Stalwart-Signature``
    (None: the server's resume secret, if any). ``poll``: seconds between the
    worker's rounds for answers given in another process. ``retry_base``:
    seconds before the first retry of a graph that failed as it resumed
    (None: only at start)."""

    def __init__(self, graph: Any, *, name: str | None = None, deadlines: Mapping[str, float] | None = None,
                 escalate_after: Mapping[str, float] | None = None, retry_base: float | None = 1.0,
                 secret: str | None = None, poll: float = 5.0, policies: Any = None) -> None:
        self.graph = graph
        self.name = str(name or getattr(graph, "name", None) or "LangGraph")
        self.policies = bridge_policies(policies)
        self.deadlines = {str(k): float(v) for k, v in (deadlines or {}).items()}
        self.escalate_after = {str(k): float(v) for k, v in (escalate_after or {}).items()}
        self.retry_base = retry_base
        self.secret = secret
        self.poll = float(poll)
        self.retries: dict[str, tuple[list[int], int, float]] = {}  # graph thread -> (rows, attempt, when due)
        self.next_poll = 0.0
        self._locks: dict[str, threading.RLock] = {}
        self._locks_lock = threading.Lock()

    # -- names ---------------------------------------------------------------------------
    def thread_of(self, graph_thread: str) -> str:
        """The Stalwart thread a graph thread's pauses are in."""
        tid = f"lg-{self.name}-{graph_thread}"
        return tid if len(tid) <= 128 else f"lg-{hashlib.sha256(tid.encode()).hexdigest()[:40]}"

    @property
    def session_hash(self) -> str:
        return hashlib.sha256(f"langgraph:{self.name}".encode()).hexdigest()

    def config(self, graph_thread: str) -> dict[str, Any]:
        """The config of the bridge's own calls of the graph: the thread, nothing else."""
        return {"configurable": {"thread_id": graph_thread}}

    def lock(self, graph_thread: str) -> threading.RLock:
        """This process's lock of a graph thread (re-entrant: the answer the
        route gives is carried on by the engine's notice in the same thread)."""
        with self._locks_lock:
            return self._locks.setdefault(graph_thread, threading.RLock())

    # -- the journal ---------------------------------------------------------------------
    def rows(self, graph_thread: str, statuses: tuple[str, ...] | None = None) -> list[ReplayView]:
        """The graph thread's mirrors in the replay journal, oldest first."""
        return replays_find(door=DOOR, caller=self.name, thread_id=self.thread_of(graph_thread), kind=KIND,
                            statuses=statuses)

    def row_of(self, run_id: str) -> ReplayView | None:
        found = replays_find(door=DOOR, caller=self.name, run_ids=[run_id], kind=KIND)
        return found[-1] if found else None

    # -- the graph's side ----------------------------------------------------------------
    def pending(self, graph_thread: str) -> dict[str, tuple[Any, str]]:
        """The thread's pending interrupts now: id -> (value, digest)."""
        state = self.graph.get_state(self.config(graph_thread))
        return {str(i.id): (i.value, digest(i.value)) for i in (state.interrupts or ())}

    def still_pending(self, row: ReplayView, pending: Mapping[str, tuple[Any, str]]) -> bool:
        found = pending.get(str(row.meta.get("interrupt")))
        return found is not None and found[1] == row.meta.get("digest")

    def sync(self, graph_thread: str) -> dict[str, Any]:
        """Mirror what the graph's thread waits on now; close the mirrors of what it no longer does."""
        check_thread(graph_thread)
        with self.lock(graph_thread):
            pending = self.pending(graph_thread)
            rows = self.rows(graph_thread)
            not_notified: list[dict[str, Any]] = []
            kept: set[str] = set()
            for interrupt_id, (value, dig) in pending.items():
                live = [r for r in rows if r.status in LIVE and r.meta.get("interrupt") == interrupt_id
                        and r.meta.get("digest") == dig]
                if live:
                    kept.add(live[-1].run)
                    continue
                generation = sum(1 for r in rows if r.meta.get("interrupt") == interrupt_id)
                answer = self._mirror(graph_thread, interrupt_id, value, dig, generation)
                not_notified += answer.not_notified
                kept.add(answer.run)
            for gone in rows:
                if gone.status == "open" and gone.run not in kept:
                    self.close(gone)
            thread_status_set(self.name, graph_thread, "interrupted" if pending else "idle")
        return self.answer(graph_thread, not_notified=not_notified)

    def _mirror(self, graph_thread: str, interrupt_id: str, value: Any, dig: str, generation: int) -> Any:
        thread_id = self.thread_of(graph_thread)
        identity = [thread_id, interrupt_id, dig, generation]
        run_id = "r-lg-" + hashlib.sha256(canonical(identity).encode()).hexdigest()[:24]
        key = ReplayKey(door=DOOR, kind=KIND, caller=self.name, identity=identity, fingerprint=value,
                        key=interrupt_id, meta={"graph": self.name, "graph_thread": graph_thread,
                                                "interrupt": interrupt_id, "digest": dig, "generation": generation})
        return pause_mirror(
            thread_id=thread_id, session_hash=self.session_hash, agent=self.name, run_id=run_id,
            text=str(_("The graph {graph} waits at interrupt {id}.")).format(graph=self.name, id=interrupt_id),
            asks=asks_of(value), replay=key, proposer=Proposer(door=DOOR, name=self.name),
            source={"source": DOOR, "graph": self.name, "thread": graph_thread, "interrupt": interrupt_id,
                    "per_call": is_tool_approval(value), "deadlines": self.deadlines,
                    "escalate_after": self.escalate_after, **({"policies": self.policies} if self.policies else {})})

    def close(self, row: ReplayView) -> None:
        """A mirror whose interrupt is no longer pending: what waits of it closes, and its row expires."""
        handback_close(run_id=row.run, by="langgraph")
        replay_expire(row.id)

    def gone(self, row: ReplayView) -> Stale:
        """The 409 of an answer to a mirror whose interrupt went away (closed first)."""
        self.close(row)
        return Stale(DETAIL_GONE, waiting=[p.to_json() for p in open_pauses(row.thread)],
                     interrupt={"id": row.meta.get("interrupt"), "status": "stale"})

    def waiting(self, graph_thread: str) -> list[PauseView]:
        return open_pauses(self.thread_of(graph_thread))

    def answer(self, graph_thread: str, **extra: Any) -> dict[str, Any]:
        """A route's answer: the thread's open pauses (as ``interrupts`` and ``waiting``) and ``extra``."""
        waiting = [p.to_json() for p in self.waiting(graph_thread)]
        return {"thread": graph_thread, "graph": self.name, "interrupts": waiting, "waiting": waiting,
                "not_notified": [], **extra}

    # -- a run ---------------------------------------------------------------------------
    def invoke(self, input_: Any, config: dict[str, Any]) -> tuple[Any, list[tuple[str, Any]]]:
        """Run the graph (an input, or a ``Command``): its output (its last values) and what it
        streamed on the way (``values`` and ``updates`` chunks, as JSON), for the Agent Server API."""
        output: Any = None
        chunks: list[tuple[str, Any]] = []
        for mode, chunk in self.graph.stream(input_, config, stream_mode=["values", "updates"]):
            chunks.append((mode, chunk_json(mode, chunk)))
            if mode == "values":
                output = chunk
        return output, chunks

    def run(self, graph_thread: str, input_: Any, config: Any = None) -> dict[str, Any]:
        """``POST /threads/{id}/runs``: run the graph on ``input_``, then mirror what it waits on.
        The answer's ``stream`` is what the graph streamed (``invoke``)."""
        check_thread(graph_thread)
        given = caller_config(config, graph=self.graph, graph_thread=graph_thread)
        with self.lock(graph_thread):
            thread_status_set(self.name, graph_thread, "busy")
            try:
                output, chunks = self.invoke(input_, given)
            except StalwartError:
                self.sync(graph_thread)
                raise
            except Exception as exc:  # the graph's own failure: a 502 that says so, never a 500
                log.exception("graph %s failed on thread %s", self.name, graph_thread)
                thread_status_set(self.name, graph_thread, "error")
                raise GraphFailed(str(DETAIL_RUN_FAILED).format(error=type(exc).__name__)) from exc
            answer = self.sync(graph_thread)
        answer["output"] = jsonable(output)
        answer["stream"] = chunks
        return answer
