"""Sagas (docs/http-api.md, "The rollback report"): undoing a run's writes, newest first.

A write that succeeded with a ``compensation`` registered its undo
(``Step.compensation``, references resolved). ``cancel_all`` and an
operator's rollback (``thread_rollback``) set the run ``running`` with
``saga`` naming the status it ends in, then ``saga_run`` takes the run's
succeeded writes newest first:

- irreversible, or with no undo registered: reported ``not_undoable``;
- otherwise the undo is a step of its own (``undo_of`` names the write), with
  its own receipt, operation id, idempotency key and verdict, claimed by one
  conditional UPDATE so two sagas never send the same undo. It is tried up to
  ``UNDO_ATTEMPTS`` times with backoff (an ambiguous failure only again with
  the same idempotency key); once it succeeds the write is ``undone``;
- past its tries the run pauses as ``saga_stuck`` (on the undo's step),
  listing what still needs undoing; ``retry``, ``done_by_hand`` and
  ``abandon`` (``saga_retry``, ``saga_done_by_hand``, ``saga_abandon``, applied
  by ``decisions``) carry the saga on.

The report ``{"undone", "not_undoable", "stuck"}`` is kept on the run
(``Run.rollback``), in the answer, and in a ``rollback`` event.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from catalogue import registry
from catalogue.agentfile import AgentSpec
from catalogue.bindings import Outcome, invoke
from catalogue.plan import Argument
from threads import verdicts as V
from threads.engine.execute import receipt_before_send, step_data
from threads.engine.lease import lease_release
from threads.engine.lifecycle import run_status_set, step_claim, step_status_set, steps_status_set
from threads.engine.pauses import pause_open, run_pauses_close
from threads.engine.progress import Progress
from threads.engine.reads import open_pauses
from threads.engine.replies import reply_write
from threads.engine.unit import Unit, unit
from threads.engine.values import coerce, jsonable
from threads.errors import NotFound
from threads.models import Event, Interrupt, Receipt, Run, Step, Thread
from threads.texts import said, text

log = logging.getLogger("stalwart.engine")

UNDO_ATTEMPTS = 3
UNDO_BACKOFF_SECONDS = 0.2
REPORT_KEYS = ("undone", "not_undoable", "stuck")


def report_empty() -> dict[str, list[dict[str, Any]]]:
    return {k: [] for k in REPORT_KEYS}


def entry(step: Step, undo: Step | None = None, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"step": step.index, "tool": step.tool}
    if undo is not None:
        out["undo"] = undo.tool
        out["undo_step"] = undo.index
    return {**out, **extra}


def undoable_writes(run: Run) -> list[Step]:
    """The run's writes that took effect and are not undone, newest first."""
    return list(run.steps.filter(kind=Step.Kind.WRITE, undo_of__isnull=True, status=Step.Status.SUCCEEDED)
                .order_by("-index"))


def report_set(run: Run, report: dict[str, Any], **fields: Any) -> None:
    """Keep the run's rollback report (and ``saga``, when given), stamping
    ``updated_at``: the sweep's claim on a stranded saga reads that stamp."""
    Run.objects.filter(pk=run.pk).update(rollback=report, updated_at=timezone.now(), **fields)
    run.rollback = report
    for name, value in fields.items():
        setattr(run, name, value)


def saga_start(run: Run, *, then: str) -> None:
    """Inside the claim's unit: the run undoes, then ends as ``then``."""
    report_set(run, report_empty(), saga=then)


def _report(run: Run) -> dict[str, list[dict[str, Any]]]:
    report = run.rollback or {}
    return {k: list(report.get(k, [])) for k in REPORT_KEYS}


def saga_retry(u: Unit, progress: Progress, undo: Step) -> None:
    """``saga_stuck`` answered ``retry``: the undo is tried again (stuck again,
    it pauses under a new id)."""
    report = _report(progress.run)
    report["stuck"] = [e for e in report["stuck"] if e.get("undo_step") != undo.index]
    undo.generation += 1
    step_status_set(undo, Step.Status.FAILED)
    report_set(progress.run, report)


def saga_done_by_hand(u: Unit, progress: Progress, undo: Step) -> None:
    """``done_by_hand``: a person undid the write; recorded so, and the saga goes on."""
    run = progress.run
    write = Step.objects.get(pk=undo.undo_of_id)
    report = _report(run)
    stuck = next((e for e in report["stuck"] if e.get("step") == write.index), entry(write, undo))
    report["stuck"] = [e for e in report["stuck"] if e.get("step") != write.index]
    report["undone"].append({k: v for k, v in stuck.items() if k != "error"} | {"by": "hand"})
    step_status_set(undo, Step.Status.SKIPPED)
    step_status_set(write, Step.Status.UNDONE)
    u.event(Event.Type.STEP, {"step": write.index, "tool": write.tool, "status": "undone", "by": "hand"})
    progress.lines.append(text(run.language, "done_by_hand", tool=said(run, write.tool)))
    report_set(run, report)


def saga_abandon(u: Unit, progress: Progress, undo: Step) -> None:
    """``abandon``: the write is left, reported under ``stuck``; the saga goes on."""
    write = Step.objects.get(pk=undo.undo_of_id)
    step_status_set(undo, Step.Status.CANCELLED)
    progress.lines.append(text(progress.run.language, "abandoned", tool=said(progress.run, write.tool)))


def saga_run(progress: Progress) -> Progress:
    """Undo what the run's report has not covered yet, newest first; pause on a stuck undo."""
    run = progress.run
    run.refresh_from_db()
    agent = registry.get_agent(run.agent)
    report = _report(run)
    seen = {e["step"] for k in REPORT_KEYS for e in report[k]}
    writes = [s for s in undoable_writes(run) if s.index not in seen]
    for i, step in enumerate(writes):
        if not _has_undo(step, agent):
            report["not_undoable"].append(entry(step))
            progress.lines.append(text(run.language, "not_undoable", tool=said(run, step.tool)))
            with unit(run.thread_id, notices=progress.notices):
                report_set(run, report)
            continue
        undone, undo, error, attempts = undo_send(progress, step, agent)
        if undone:
            report["undone"].append(entry(step, undo))
            progress.lines.append(text(run.language, "undone", tool=said(run, step.tool), undo=said(run, undo.tool)))
            with unit(run.thread_id, notices=progress.notices):
                report_set(run, report)
            continue
        left = [entry(s) for s in writes[i:] if _has_undo(s, agent)]
        report["stuck"].append(entry(step, undo, error=error))
        progress.lines.append(text(run.language, "saga_stuck", tool=said(run, step.tool), attempts=attempts, error=error,
                                   left=", ".join(f"{said(run, e['tool'])} (step {e['step']})" for e in left)))
        with unit(run.thread_id, notices=progress.notices) as u:
            report_set(run, report)
            # The report so far is in the thread's events at once, not only when the saga ends.
            u.event(Event.Type.ROLLBACK, {"run": run.id, **report, "finished": False})
            undo.refresh_from_db()
            pause_open(u, run=run, step=undo, kind=Interrupt.Kind.SAGA_STUCK, tool=undo.tool, payload={
                "question": text(run.language, "saga_stuck_question", tool=said(run, step.tool)),
                "arguments": [{"name": str(k), "value": v, "origin": "undo"}
                              for k, v in sorted((step.compensation or {}).get("arguments", {}).items())],
                "reasons": ["saga_stuck"], "irreversible": False,
                "undo_of": step.index, "left": left, "error": error,
            })
            reply_write(u, progress)
        return progress
    with unit(run.thread_id, notices=progress.notices) as u:
        then = run.saga or Run.Status.DONE
        report_set(run, report, saga="")
        u.event(Event.Type.ROLLBACK, {"run": run.id, **report, "finished": True})
        run_status_set(run, then)
        if any(report.values()):
            progress.lines.append(text(run.language, "rolled_back", **{k: len(v) for k, v in report.items()}))
        reply_write(u, progress)
    return progress


def _has_undo(step: Step, agent: AgentSpec) -> bool:
    tool = agent.tool(step.tool)
    return bool(step.compensation) and not step.irreversible and not (tool is not None and tool.irreversible)


def undo_step_for(run: Run, step: Step) -> Step:
    """The write's undo as a step of its own (one per write)."""
    existing = Step.objects.filter(undo_of=step).first()
    if existing is not None:
        return existing
    comp = step.compensation or {}
    args = [{"name": str(k), "value": v, "origin": "undo"} for k, v in (comp.get("arguments") or {}).items()]
    for _ in range(5):
        index = (run.steps.aggregate(m=Max("index"))["m"] or 0) + 1
        try:
            with transaction.atomic():
                return Step.objects.create(run=run, index=index, tool=str(comp.get("tool")), kind=Step.Kind.WRITE,
                                           arguments=args, undo_of=step)
        except IntegrityError:  # another saga numbered a step at once, or made this undo
            existing = Step.objects.filter(undo_of=step).first()
            if existing is not None:
                return existing
    raise RuntimeError(f"could not number the undo of step {step.index} of run {run.id}")


def undo_send(progress: Progress, step: Step, agent: AgentSpec) -> tuple[bool, Step, str, int]:
    """Send one write's undo, bounded, with backoff: (undone, undo step, error, attempts)."""
    run = progress.run
    undo = undo_step_for(run, step)
    tool = agent.tool(undo.tool)
    if tool is None:
        return False, undo, f"the undo {undo.tool} is no tool of this agent", 0
    values = coerce(tool, [Argument(a["name"], a["value"]) for a in undo.arguments])
    with unit(run.thread_id, notices=progress.notices) as u:
        receipt, _ = receipt_before_send(run, undo, tool, values, agent,
                                         operation_id=f"op-{run.id}-{undo.index}-undo")
        key = receipt.idempotency_key or None
        if receipt.verdict == V.INDETERMINATE and not key:
            # An earlier try may have taken effect: never sent again blindly; a person decides.
            return False, undo, "an earlier try's outcome is unknown", 0
        undo.refresh_from_db()
        claimed = undo.status in (Step.Status.PLANNED, Step.Status.FAILED, Step.Status.CANCELLED) and step_claim(undo)
        if claimed:
            u.event(Event.Type.STEP, step_data(undo, agent))
    if not claimed:
        return undo.status == Step.Status.SUCCEEDED, undo, "another worker is undoing it", 0
    if key and tool.idempotency and tool.idempotency.get("argument"):
        values[str(tool.idempotency["argument"])] = key
    attempts = 0
    outcome = Outcome("error", error="not sent")
    while attempts < UNDO_ATTEMPTS:
        attempts += 1
        outcome = invoke(tool, values, idempotency_key=key, base_dir=str(registry.agent_file().folder))
        if outcome.ok or (outcome.ambiguous and not key):
            break
        if attempts < UNDO_ATTEMPTS:
            time.sleep(UNDO_BACKOFF_SECONDS * 2 ** (attempts - 1))
    verdict = V.verdict(transport=outcome.transport)
    with unit(run.thread_id, notices=progress.notices) as u:
        Receipt.objects.filter(pk=receipt.pk).update(attempts=receipt.attempts + attempts,
                                                     transport=outcome.transport, verdict=verdict,
                                                     evidence=outcome.transport, updated_at=timezone.now())
        if not lease_release(undo):
            return False, undo, "a sweep took the undo over", attempts
        if outcome.ok:
            undo.result = jsonable(outcome.result)
            step_status_set(undo, Step.Status.SUCCEEDED)
            step_status_set(step, Step.Status.UNDONE)
        else:
            undo.error = outcome.error
            step_status_set(undo, Step.Status.FAILED)
        u.event(Event.Type.STEP, step_data(undo, agent))
        if outcome.ok:
            u.event(Event.Type.STEP, {"step": step.index, "tool": step.tool, "status": step.status,
                                      "undone_by": undo.index})
    return outcome.ok, undo, outcome.error, attempts


def thread_rollback(*, thread_id: str, by: str, run_id: str | None = None) -> dict[str, Any]:
    """An operator's rollback (docs/operating.md, "Operator rollback") of one
    run or of every run of a thread, newest run first: what waits is closed
    (``cancelled``) and what took effect is undone. Not bound to the thread's
    session; the caller checked the operator. What is undone already is never
    undone again."""
    thread = Thread.objects.filter(pk=thread_id).first()
    if thread is None:
        raise NotFound()
    runs = thread.runs.order_by("-created_at")
    if run_id is not None:
        runs = runs.filter(pk=run_id)
    combined = report_empty()
    touched = []
    for run in list(runs):
        open_ = run.interrupts.filter(status=Interrupt.Status.OPEN).exists()
        if not open_ and not undoable_writes(run):
            continue
        progress = Progress(run=run)
        if not _rollback_claim(progress, by):
            continue  # running now (a worker is on it) or another rollback took it
        saga_run(progress)
        touched.append(run.id)
        for k in REPORT_KEYS:
            combined[k] += [{**e, "run": run.id} for e in (run.rollback or {}).get(k, [])]
    return {"thread": thread.id, "rollback": combined, "runs": touched,
            "waiting": [p.to_json() for p in open_pauses(thread.id)]}


def _rollback_claim(progress: Progress, by: str) -> bool:
    """In one unit: claim the run for the saga, close what waits (a later
    answer is stale), and leave out what has not run."""
    run = progress.run
    ends = {Run.Status.DONE: Run.Status.DONE, Run.Status.SUPERSEDED: Run.Status.SUPERSEDED}
    with unit(run.thread_id, notices=progress.notices) as u:
        run.refresh_from_db()
        before = run.status
        if before not in (Run.Status.DONE, Run.Status.CANCELLED, Run.Status.SUPERSEDED, Run.Status.WAITING):
            return False
        if not run_status_set(run, Run.Status.RUNNING, expect=before):
            return False
        run_pauses_close(u, run, status=Interrupt.Status.CANCELLED, by=by)
        steps_status_set(run, Step.Status.CANCELLED)
        saga_start(run, then=ends.get(before, Run.Status.CANCELLED))
    return True
