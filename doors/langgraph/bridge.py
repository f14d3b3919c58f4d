"""The bridge between a compiled LangGraph graph and Stalwart's run store (SPEC §16).

A graph's **thread** (its checkpointer's ``thread_id``) is a Stalwart thread
of its own (``lg-<graph>-<thread>``). Each **pending interrupt** of it is
mirrored (``sync``) as a run of derived id, through the engine's
``pause_mirror``: a ``HumanInTheLoopMiddleware`` ``HITLRequest`` gives one
``confirm`` per action request (the tool and its arguments, origin
``model``, its allowed decisions as choices), a per-call ``tool_approval``
one ``confirm``, any other value one ``ask`` carrying it. The run's id is
derived from the Stalwart thread, the interrupt's id, the digest of its
value and a **generation** (how many earlier interrupts of that id this
thread had: sequential ``interrupt()``s of one node share an id), so every
process mirrors the same interrupt under the same pause ids. An interrupt
no longer pending closes what waits of its mirror (superseded).

A **resume** (``resume``), in order: the graph's state read under this
process's lock of the thread, and the interrupt still pending with the same
value (else its mirror closes and the answer is ``409 interrupt_stale``,
the checkpoint untouched); the pause answered through the engine (token,
claim, audit: ``pause_answer``; an ``edit``, ``handback_edit``: a new pause
and token); then ``carry_on``: once no pause of the thread's pending
interrupts waits, their rows are **claimed** (``LangGraphCall``: one
conditional UPDATE, ``pending`` -> ``resuming``, the resume values stored
with it), the state read again, and the graph resumed once with
``Command(resume={interrupt_id: value, ...})``. Earlier answers of a
multi-action interrupt are held meanwhile; the answer says what still waits.
A worker that dies between the claim and the resume leaves ``resuming``
rows: ``reconcile`` (at start) resumes them with the same values while
their interrupt is pending, else marks them resumed. A graph that fails on
resume is ``502 graph_failed`` and tried again with backoff (``_retry_later``).
Mirrors answered elsewhere (another process's console) are carried on by
``answered_elsewhere`` (at start, and by the bridge's poll); a pause past its
deadline is handed back as a rejection (``decision_of``), the bridge being one
of its own listeners (``__call__``).
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Mapping
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from approvals import langgraph as registry
from approvals.models import LangGraphCall
from doors.langgraph.values import asks_of, decision_of, digest, is_tool_approval, jsonable
from threads.engine import handback_close, handback_edit, open_pauses, pause_answer, pause_mirror
from threads.errors import BadRequest, InvalidAnswer, NotFound, Stale, StalwartError
from threads.models import Interrupt, Run, Step
from threads.tokens import canonical

log = logging.getLogger("stalwart.langgraph")

DETAIL_GONE = _("That interrupt is no longer pending in the graph: it went on without this answer.")
DETAIL_GRAPH_FAILED = _("The answer is recorded, but the graph failed as it resumed: {error}. "
                        "It is resumed again with the same answer, shortly and when the bridge starts.")
DETAIL_RUN_FAILED = _("The graph failed: {error}.")
DETAIL_RESPOND = _('A respond decision needs the answer\'s text: {"message": "..."}.')
DETAIL_THREAD = _("A graph thread's id is 1 to 200 characters.")
DETAIL_BODY = _("The body must be a JSON object.")
DETAIL_INPUT = _('A run needs {"input": ..., "config"?: {...}}.')
RETRIES = 8  # a failed resume tried again, 1 s to a minute apart (about five minutes in all)


class GraphFailed(StalwartError):
    code = "graph_failed"
    http_status = 502


class Bridge:
    """One graph and its checkpointer, mirrored into the run store."""

    def __init__(self, graph: Any, *, name: str | None = None, deadlines: Mapping[str, float] | None = None,
                 escalate_after: Mapping[str, float] | None = None, retry_base: float | None = None) -> None:
        self.graph = graph
        self.retry_base = retry_base  # seconds before the first retry of a failed resume; None: only at start
        self.name = str(name or getattr(graph, "name", None) or "LangGraph")
        self.deadlines = {str(k): float(v) for k, v in (deadlines or {}).items()}
        self.escalate_after = {str(k): float(v) for k, v in (escalate_after or {}).items()}
        self._locks: dict[str, threading.Lock] = {}
        self._locks_lock = threading.Lock()
        self._stopped = threading.Event()
        registry.bridge_register(self.name, self.carry_on)

    # -- names ---------------------------------------------------------------------------
    def thread_of(self, graph_thread: str) -> str:
        """The Stalwart thread a graph thread's pauses are in."""
        tid = f"lg-{self.name}-{graph_thread}"
        return tid if len(tid) <= 128 else f"lg-{hashlib.sha256(tid.encode()).hexdigest()[:40]}"

    @property
    def session_hash(self) -> str:
        return hashlib.sha256(f"langgraph:{self.name}".encode()).hexdigest()

    def config(self, graph_thread: str, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
        config = dict(given or {})
        config["configurable"] = {**dict(config.get("configurable") or {}), "thread_id": graph_thread}
        return config

    def lock(self, graph_thread: str) -> threading.Lock:
        with self._locks_lock:
            return self._locks.setdefault(graph_thread, threading.Lock())

    @staticmethod
    def check_thread(graph_thread: str) -> None:
        if not graph_thread or len(graph_thread) > 200:
            raise BadRequest(DETAIL_THREAD)

    # -- the graph's side ----------------------------------------------------------------
    def pending(self, graph_thread: str) -> dict[str, tuple[Any, str]]:
        """The thread's pending interrupts now: id -> (value, digest)."""
        state = self.graph.get_state(self.config(graph_thread))
        return {str(i.id): (i.value, digest(i.value)) for i in (state.interrupts or ())}

    def sync(self, graph_thread: str) -> dict[str, Any]:
        """Mirror what the graph's thread waits on now; close the mirrors of what it no longer does."""
        self.check_thread(graph_thread)
        pending = self.pending(graph_thread)
        thread_id = self.thread_of(graph_thread)
        not_notified: list[dict[str, Any]] = []
        kept = set()
        for interrupt_id, (value, dig) in pending.items():
            row = (LangGraphCall.objects.filter(graph=self.name, graph_thread=graph_thread, interrupt_id=interrupt_id,
                                                digest=dig, source=LangGraphCall.Source.BRIDGE)
                   .exclude(status__in=[LangGraphCall.Status.RESUMED, LangGraphCall.Status.STALE]).first())
            if row is None:
                generation = LangGraphCall.objects.filter(graph=self.name, graph_thread=graph_thread,
                                                          interrupt_id=interrupt_id).count()
                run_id = "r-lg-" + hashlib.sha256(
                    canonical([thread_id, interrupt_id, dig, generation]).encode()).hexdigest()[:24]
                answer = pause_mirror(
                    thread_id=thread_id, session_hash=self.session_hash, agent=self.name, run_id=run_id,
                    text=str(_("The graph {graph} waits at interrupt {id}.")).format(graph=self.name, id=interrupt_id),
                    asks=asks_of(value), source={"source": "langgraph", "graph": self.name, "thread": graph_thread,
                                                 "interrupt": interrupt_id, "per_call": is_tool_approval(value),
                                                 "deadlines": self.deadlines, "escalate_after": self.escalate_after})
                not_notified += answer.get("not_notified", [])
                row, _created = LangGraphCall.objects.get_or_create(run_id=run_id, defaults={
                    "graph": self.name, "graph_thread": graph_thread, "thread_id": thread_id,
                    "interrupt_id": interrupt_id, "digest": dig, "generation": generation})
            kept.add(row.run_id)
        for gone in LangGraphCall.objects.filter(graph=self.name, graph_thread=graph_thread,
                                                 source=LangGraphCall.Source.BRIDGE,
                                                 status=LangGraphCall.Status.PENDING).exclude(run_id__in=kept):
            handback_close(run_id=gone.run_id, by="langgraph")
            LangGraphCall.objects.filter(pk=gone.pk, status=LangGraphCall.Status.PENDING).update(
                status=LangGraphCall.Status.STALE)
        return self.answer(graph_thread, not_notified=not_notified)

    def answer(self, graph_thread: str, **extra: Any) -> dict[str, Any]:
        waiting = open_pauses(self.thread_of(graph_thread))
        return {"thread": graph_thread, "graph": self.name, "interrupts": waiting, "waiting": waiting,
                "not_notified": [], **extra}

    def run(self, graph_thread: str, body: Any) -> dict[str, Any]:
        """``POST /threads/{id}/runs``: run the graph on ``input``, then mirror what it waits on."""
        self.check_thread(graph_thread)
        if not isinstance(body, Mapping) or "input" not in body or not isinstance(body.get("config", {}), Mapping):
            raise BadRequest(DETAIL_INPUT)
        with self.lock(graph_thread):
            try:
                output = self.graph.invoke(body["input"], self.config(graph_thread, body.get("config")))
            except StalwartError:
                raise
            except Exception as exc:  # the graph's own failure: a 502 that says so, never a 500
                log.exception("graph %s failed on thread %s", self.name, graph_thread)
                raise GraphFailed(str(DETAIL_RUN_FAILED).format(error=type(exc).__name__)) from exc
            answer = self.sync(graph_thread)
        answer["output"] = jsonable(output)
        return answer

    # -- an answer -----------------------------------------------------------------------
    def resume(self, graph_thread: str, body: Any, *, by: str, via: str) -> dict[str, Any]:
        """``POST /threads/{id}/resume`` (see the module's docstring)."""
        self.check_thread(graph_thread)
        if not isinstance(body, Mapping):
            raise BadRequest(DETAIL_BODY)
        pause_id, decision, token = body.get("interrupt_id"), body.get("decision"), body.get("token", "")
        if not isinstance(pause_id, str) or not isinstance(decision, str) or not isinstance(token, str):
            raise BadRequest(str(_("interrupt_id, decision and token are strings.")))
        answer = body.get("answer")
        thread_id = self.thread_of(graph_thread)
        pause = Interrupt.objects.filter(pk=pause_id, thread_id=thread_id).first()
        row = LangGraphCall.objects.filter(run_id=pause.run_id).first() if pause is not None else None
        if pause is None or row is None:
            raise NotFound(str(_("This thread has no pause with that id.")))
        if decision == "respond" and not isinstance(answer, str) and not (
                isinstance(answer, Mapping) and isinstance(answer.get("message"), str)):
            raise InvalidAnswer(DETAIL_RESPOND)
        with self.lock(graph_thread):
            if row.status == LangGraphCall.Status.PENDING and not self._still_pending(row):
                self._gone(row)
            if decision == "edit" and pause.kind == Interrupt.Kind.CONFIRM \
                    and "edit" in (pause.payload.get("choices") or []):
                edited = handback_edit(thread_id=thread_id, pause_id=pause_id, token=token, edit=answer, by=by,
                                       via=via)
                return self.answer(graph_thread, resumed=False, not_notified=edited.get("not_notified", []))
            answered = pause_answer(thread_id=thread_id, pause_id=pause_id, decision=decision, token=token,
                                    answer=answer, by=by, via=via)
            done = self._carry_on(graph_thread)
        done["not_notified"] = answered.get("not_notified", []) + done.get("not_notified", [])
        return done

    def _still_pending(self, row: LangGraphCall) -> bool:
        found = self.pending(row.graph_thread).get(row.interrupt_id)
        return found is not None and found[1] == row.digest

    def _gone(self, row: LangGraphCall) -> None:
        """The interrupt went away: its mirror closes, and the answer is 409 with what became of it."""
        handback_close(run_id=row.run_id, by="langgraph")
        LangGraphCall.objects.filter(pk=row.pk, status=LangGraphCall.Status.PENDING).update(
            status=LangGraphCall.Status.STALE)
        raise Stale(DETAIL_GONE, waiting=open_pauses(row.thread_id), interrupt={"id": row.interrupt_id,
                                                                                "status": "stale"})

    def carry_on(self, graph_thread: str) -> dict[str, Any]:
        """Resume the graph if nothing of its pending interrupts waits (a console answer calls this too)."""
        with self.lock(graph_thread):
            return self._carry_on(graph_thread)

    def _carry_on(self, graph_thread: str) -> dict[str, Any]:
        rows = list(LangGraphCall.objects.filter(graph=self.name, graph_thread=graph_thread,
                                                 source=LangGraphCall.Source.BRIDGE,
                                                 status=LangGraphCall.Status.PENDING))
        if not rows or Interrupt.objects.filter(run_id__in=[r.run_id for r in rows],
                                                status=Interrupt.Status.OPEN).exists():
            return self.answer(graph_thread, resumed=False)
        values = {r.run_id: self.resume_value(r) for r in rows}
        for r in rows:
            if not self._still_pending(r):
                self._gone(r)
        with transaction.atomic():  # the claim: of two workers, one moves every row
            claimed = 0
            for r in rows:
                claimed += LangGraphCall.objects.filter(pk=r.pk, status=LangGraphCall.Status.PENDING).update(
                    status=LangGraphCall.Status.RESUMING, resume=values[r.run_id])
            if claimed != len(rows):
                transaction.set_rollback(True)
                return self.answer(graph_thread, resumed=False)
        return self._send(graph_thread, rows, {r.interrupt_id: values[r.run_id] for r in rows})

    def _resend(self, graph_thread: str) -> None:
        """The thread's ``resuming`` rows: the same values again while their interrupt is
        pending, else marked resumed (GraphFailed when the graph fails again)."""
        with self.lock(graph_thread):
            rows = list(LangGraphCall.objects.filter(graph=self.name, graph_thread=graph_thread,
                                                     status=LangGraphCall.Status.RESUMING))
            live = [r for r in rows if self._still_pending(r)]
            LangGraphCall.objects.filter(pk__in=[r.pk for r in rows if r not in live]).update(
                status=LangGraphCall.Status.RESUMED, resumed_at=timezone.now())
            if live:
                self._send(graph_thread, live, {r.interrupt_id: r.resume for r in live}, attempt=-1)

    def _retry_later(self, graph_thread: str, attempt: int) -> None:
        """A graph that failed on resume is tried again with backoff (``retry_base`` x 2^attempt
        seconds, at most a minute apart, ``RETRIES`` times), then left to the next start."""
        if self.retry_base is None or attempt >= RETRIES:
            return
        delay = min(60.0, self.retry_base * 2 ** attempt)
        timer = threading.Timer(delay, self._retry, args=(graph_thread, attempt + 1))
        timer.daemon = True
        timer.start()

    def _retry(self, graph_thread: str, attempt: int) -> None:
        from django.db import close_old_connections

        close_old_connections()
        try:
            self._resend(graph_thread)
        except GraphFailed:
            self._retry_later(graph_thread, attempt)
        except Exception:  # a timer thread's failure is logged, never lost silently
            log.exception("graph %s: retrying thread %s failed", self.name, graph_thread)
        finally:
            _connection_return()

    def _send(self, graph_thread: str, rows: list[LangGraphCall], resume: dict[str, Any], *,
              attempt: int = 0) -> dict[str, Any]:
        from langgraph.types import Command

        try:
            output = self.graph.invoke(Command(resume=resume), self.config(graph_thread))
        except Exception as exc:  # left resuming: tried again with backoff, and by reconcile() at start
            log.exception("graph %s failed resuming thread %s", self.name, graph_thread)
            if attempt >= 0:
                self._retry_later(graph_thread, attempt)
            raise GraphFailed(str(DETAIL_GRAPH_FAILED).format(error=type(exc).__name__)) from exc
        LangGraphCall.objects.filter(pk__in=[r.pk for r in rows], status=LangGraphCall.Status.RESUMING).update(
            status=LangGraphCall.Status.RESUMED, resumed_at=timezone.now())
        answer = self.sync(graph_thread)
        answer.update(resumed=True, output=jsonable(output))
        return answer

    @staticmethod
    def resume_value(row: LangGraphCall) -> Any:
        """What the graph is handed back for one interrupt, from its steps' decisions."""
        steps = list(Step.objects.filter(run_id=row.run_id).order_by("index"))
        kind = Interrupt.objects.filter(run_id=row.run_id).values_list("kind", flat=True).first()
        if kind == Interrupt.Kind.ASK:  # a question no one answered in time is handed back as None
            return (steps[0].result or {}).get("answer") if steps else None
        decisions = [decision_of(s) for s in steps]
        plan = Run.objects.filter(pk=row.run_id).values_list("plan", flat=True).first() or {}
        if (plan.get("handback") or {}).get("per_call"):  # a tool_approval takes one decision, not a list
            return decisions[0]
        return {"decisions": decisions}

    def __call__(self, thread: str, interrupt: dict[str, Any]) -> None:
        """An ``on_interrupt`` listener of the bridge's own: a mirrored pause that
        closed without an answer (its deadline) lets its graph carry on."""
        run_id = interrupt.get("run")
        row = LangGraphCall.objects.filter(pk=run_id, graph=self.name,
                                           source=LangGraphCall.Source.BRIDGE).first() if run_id else None
        if row is not None and row.status == LangGraphCall.Status.PENDING:
            try:
                self.carry_on(row.graph_thread)
            except Stale:  # the interrupt went away meanwhile: its mirror closed, nothing to hand back
                pass

    @property
    def key(self) -> str:
        return f"langgraph:{self.name}"

    # -- start ---------------------------------------------------------------------------
    def reconcile(self) -> list[str]:
        """Rows a worker claimed and never saw resumed (see the module's docstring)."""
        done = []
        threads = set(LangGraphCall.objects.filter(graph=self.name, status=LangGraphCall.Status.RESUMING)
                      .values_list("graph_thread", flat=True))
        for graph_thread in threads:
            try:
                self._resend(graph_thread)
            except GraphFailed:
                continue
            done.append(graph_thread)
        return done + self.answered_elsewhere(skip=threads)

    def answered_elsewhere(self, *, skip: set[str] | frozenset[str] = frozenset()) -> list[str]:
        """Mirrors answered where no bridge of this graph ran (another process's console),
        carried on now: their rows are still ``pending``, so the claim keeps it to one worker."""
        done = []
        answered = (LangGraphCall.objects.filter(graph=self.name, status=LangGraphCall.Status.PENDING,
                                                 source=LangGraphCall.Source.BRIDGE)
                    .exclude(run_id__in=Interrupt.objects.filter(status=Interrupt.Status.OPEN).values("run_id"))
                    .values_list("graph_thread", flat=True))
        for graph_thread in set(answered) - set(skip):
            try:
                if self.carry_on(graph_thread).get("resumed"):
                    done.append(graph_thread)
            except (GraphFailed, Stale):
                continue
        return done

    def poll_start(self, every: float) -> threading.Thread:
        """Carry on what was answered elsewhere every ``every`` seconds, in a daemon thread."""
        def loop() -> None:
            from django.db import close_old_connections

            while not self._stopped.wait(every):
                close_old_connections()
                try:
                    self.answered_elsewhere()
                except Exception:  # the next round tries again; a poller never dies of one failure
                    log.exception("graph %s: carrying on answers given elsewhere failed", self.name)
                finally:
                    _connection_return()

        thread = threading.Thread(target=loop, name=f"langgraph-{self.name}", daemon=True)
        thread.start()
        return thread


def _connection_return() -> None:
    """A thread of the bridge's own gives its connection back (to the pool, on PostgreSQL)."""
    from django.db import connection

    if not connection.in_atomic_block:
        connection.close()
