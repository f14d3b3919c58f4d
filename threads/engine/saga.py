"""Sagas (SPEC §8): undoing a run's writes, newest first.

A write that succeeded with a ``compensation`` registered its undo
(``Step.compensation``, references resolved). ``cancel_all`` and an
operator's rollback (``run_rollback``) set the run ``running`` with
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
  ``abandon`` (``approvals.answers``) carry the saga on.

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
from threads import verdicts as V
from threads.engine.events import EventType, event_append
from threads.engine.execute import receipt_before_send, step_data
from threads.engine.lease import lease_release, worker_id
from threads.engine.lifecycle import Advance, run_status_set, step_status_set, steps_cancel
from threads.engine.pauses import open_pauses, pause_open
from threads.engine.replies import reply_write
from threads.engine.values import coerce, jsonable
from threads.errors import NotFound
from threads.models import Interrupt, Receipt, Run, Step, Thread
from threads.texts import text

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
    return list(run.steps.filter(kind="write", undo_of__isnull=True, status=Step.Status.SUCCEEDED)
                .order_by("-index"))


def saga_start(run: Run, *, then: str) -> None:
    """Inside the claim's transaction: the run undoes, then ends as ``then``."""
    Run.objects.filter(pk=run.pk).update(saga=then, rollback=report_empty(), updated_at=timezone.now())
    run.saga, run.rollback = then, report_empty()


def saga_run(run_id: str, *, advance: Advance | None = None) -> Advance:
    """Undo what the run's report has not covered yet; pause on a stuck undo."""
    run = Run.objects.get(pk=run_id)
    advance = advance or Advance(run=run)
    advance.run = run
    agent = registry.get_agent(run.agent)
    report = run.rollback or report_empty()
    seen = {e["step"] for k in REPORT_KEYS for e in report.get(k, [])}
    writes = [s for s in undoable_writes(run) if s.index not in seen]
    for i, step in enumerate(writes):
        if not _has_undo(step, agent):
            report["not_undoable"].append(entry(step))
            advance.lines.append(text(run.language, "not_undoable", tool=step.tool))
            _report_save(run, report)
            continue
        undone, undo, error, attempts = undo_send(run, step, agent)
        if undone:
            report["undone"].append(entry(step, undo))
            advance.lines.append(text(run.language, "undone", tool=step.tool, undo=undo.tool))
            _report_save(run, report)
            continue
        left = [entry(s) for s in writes[i:] if _has_undo(s, agent)]
        report["stuck"].append(entry(step, undo, error=error))
        with transaction.atomic():
            _report_save(run, report)
            # The report so far is in the thread's events at once, not only when the saga ends.
            event_append(run.thread_id, EventType.ROLLBACK, {"run": run.id, **report, "finished": False})
            pause_open(run=run, step=undo, kind=Interrupt.Kind.SAGA_STUCK, tool=undo.tool, payload={
                "question": text(run.language, "saga_stuck_question", tool=step.tool),
                "arguments": [{"name": str(k), "value": v, "origin": "undo"}
                              for k, v in sorted((step.compensation.get("arguments") or {}).items())],
                "reasons": ["saga_stuck"], "irreversible": False,
                "undo_of": step.index, "left": left, "error": error,
            })
        advance.lines.append(text(run.language, "saga_stuck", tool=step.tool, attempts=attempts, error=error,
                                  left=", ".join(f"{e['tool']} (step {e['step']})" for e in left)))
        return reply_write(advance)
    with transaction.atomic():
        then = run.saga or Run.Status.DONE
        Run.objects.filter(pk=run.pk).update(saga="", rollback=report, updated_at=timezone.now())
        run.saga, run.rollback = "", report
        event_append(run.thread_id, EventType.ROLLBACK, {"run": run.id, **report, "finished": True})
        run_status_set(run, then)
    if any(report.values()):
        advance.lines.append(text(run.language, "rolled_back", **{k: len(v) for k, v in report.items()}))
    return reply_write(advance)


def _has_undo(step: Step, agent: AgentSpec) -> bool:
    tool = agent.tool(step.tool)
    return bool(step.compensation) and not step.irreversible and not (tool is not None and tool.irreversible)


def _report_save(run: Run, report: dict[str, Any]) -> None:
    Run.objects.filter(pk=run.pk).update(rollback=report, updated_at=timezone.now())
    run.rollback = report


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
                return Step.objects.create(run=run, index=index, tool=str(comp.get("tool")), kind="write",
                                           arguments=args, undo_of=step, status=Step.Status.PLANNED)
        except IntegrityError:  # another saga numbered a step at once, or made this undo
            existing = Step.objects.filter(undo_of=step).first()
            if existing is not None:
                return existing
    raise RuntimeError(f"could not number the undo of step {step.index} of run {run.id}")


def undo_send(run: Run, step: Step, agent: AgentSpec) -> tuple[bool, Step, str, int]:
    """Send one write's undo, bounded, with backoff: (undone, undo step, error, attempts)."""
    undo = undo_step_for(run, step)
    tool = agent.tool(undo.tool)
    if tool is None:
        return False, undo, f"the undo {undo.tool} is no tool of this agent", 0
    values = coerce_values(tool, {a["name"]: a["value"] for a in undo.arguments})
    receipt, _ = receipt_before_send(run, undo, tool, values, agent, operation_id=f"op-{run.id}-{undo.index}-undo")
    key = receipt.idempotency_key or None
    if receipt.verdict == V.INDETERMINATE and not key:
        # An earlier try may have taken effect: never sent again blindly; a person decides.
        return False, undo, "an earlier try's outcome is unknown", 0
    if key and tool.idempotency and tool.idempotency.get("argument"):
        values[str(tool.idempotency["argument"])] = key
    with transaction.atomic():
        claimed = Step.objects.filter(
            pk=undo.pk,
            status__in=[Step.Status.PLANNED, Step.Status.FAILED, Step.Status.WAITING, Step.Status.CANCELLED]
        ).update(status=Step.Status.RUNNING, lease_owner=worker_id(), lease_at=timezone.now(),
                 updated_at=timezone.now())
        if claimed:
            undo.refresh_from_db()
            event_append(run.thread_id, EventType.STEP, step_data(undo, agent))
    if not claimed:
        undo.refresh_from_db()
        return undo.status == Step.Status.SUCCEEDED, undo, "another worker is undoing it", 0
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
    with transaction.atomic():
        Receipt.objects.filter(pk=receipt.pk).update(attempts=receipt.attempts + attempts,
                                                     transport=outcome.transport, verdict=verdict,
                                                     evidence=outcome.transport)
        if not lease_release(undo):
            return False, undo, "a sweep took the undo over", attempts
        if outcome.ok:
            undo.result = jsonable(outcome.result)
            step_status_set(undo, Step.Status.SUCCEEDED)
            step_status_set(step, Step.Status.UNDONE)
        else:
            undo.error = outcome.error
            step_status_set(undo, Step.Status.FAILED)
        event_append(run.thread_id, EventType.STEP, step_data(undo, agent))
        if outcome.ok:
            event_append(run.thread_id, EventType.STEP, {"step": step.index, "tool": step.tool,
                                                         "status": step.status, "undone_by": undo.index})
    return outcome.ok, undo, outcome.error, attempts


def coerce_values(tool: Any, values: dict[str, Any]) -> dict[str, Any]:
    from catalogue.plan import Argument

    return coerce(tool, [Argument(k, v) for k, v in values.items()])


def run_rollback(*, thread_id: str, by: str, run_id: str | None = None) -> dict[str, Any]:
    """An operator's rollback (SPEC §8) of one run or of every run of a thread,
    newest run first. Not bound to the thread's session; the caller checked
    the operator. What is undone already is never undone again."""
    thread = Thread.objects.filter(pk=thread_id).first()
    if thread is None:
        raise NotFound()
    runs = thread.runs.order_by("-created_at")
    if run_id is not None:
        runs = runs.filter(pk=run_id)
    combined = report_empty()
    touched = []
    for run in list(runs):
        if not undoable_writes(run):
            continue
        if not _rollback_claim(run, by):
            continue  # running now (a worker is on it) or another rollback took it
        done = saga_run(run.id)
        touched.append(run.id)
        for k in REPORT_KEYS:
            combined[k] += [{**e, "run": run.id} for e in (done.run.rollback or {}).get(k, [])]
    return {"thread": thread.id, "rollback": combined, "runs": touched, "waiting": open_pauses(thread.id)}


def _rollback_claim(run: Run, by: str) -> bool:
    """Close what waits, leave out what has not run, and claim the run for the saga."""
    ends = {Run.Status.DONE: Run.Status.DONE, Run.Status.SUPERSEDED: Run.Status.SUPERSEDED}
    with transaction.atomic():
        before = Run.objects.filter(pk=run.pk).values_list("status", flat=True).first()
        if before not in (Run.Status.DONE, Run.Status.CANCELLED, Run.Status.SUPERSEDED, Run.Status.WAITING):
            return False
        if not run_status_set(run, Run.Status.RUNNING, only_from=[before]):
            return False
        now = timezone.now()
        for pause in Interrupt.objects.filter(run=run, status=Interrupt.Status.OPEN):
            if Interrupt.objects.filter(pk=pause.pk, status=Interrupt.Status.OPEN).update(
                    status=Interrupt.Status.CANCELLED, answered_at=now, answered_by=by[:200]):
                event_append(run.thread_id, EventType.ANSWERED, {"interrupt": pause.id, "status": "cancelled",
                                                                 "by": by or None})
        steps_cancel(run, from_index=0)
        saga_start(run, then=ends.get(before, Run.Status.CANCELLED))
    return True
