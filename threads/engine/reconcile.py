"""Steps whose worker died, and outcomes a person settles (docs/operating.md, "A worker that dies mid-call").

``sweep_once`` runs at a serving process's start and every
``STALWART_SWEEP_SECONDS`` (``stalwart_site.worker``): each running step
whose lease lapsed is taken over by one conditional UPDATE (``lease_claim``;
of two sweepers one wins) and reconciled without anyone touching its thread:

- a read is simply taken again (reads have no effect);
- a write with a ``verify`` probe is checked by it, sending nothing;
- a write with idempotency (and no probe) is sent again with the *same*
  key, which the tool answers as a replay;
- anything else becomes an ``outcome_unknown`` pause. Never sent blindly.

An undo whose worker died is left ``failed`` with an unknown outcome; the
saga carries on from there (it resends only with the same key, else pauses as
``saga_stuck``). A run left ``running`` with nothing running (its worker died
after a claim, before the step started, or between two undos) is carried on
too (``stranded_runs``); a step is started by its own conditional UPDATE, so
that never sends a call twice. A run whose worker died while holding the
run's lease (``lease.run_lease_take``: while it asked the model, or replayed
a team's steps) is taken over the same way (``stranded_leases``) and carried
on again: asking a model has no effect, a replay sends only what its journal
has not, and the dead worker's answer is never recorded. Rows of the replay
journal a dead worker held are let go (``replays.replays_lapsed_release``):
their calls' retries get what the calls became.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.utils import timezone

from catalogue import registry
from catalogue.bindings import Outcome
from threads import verdicts as V
from threads.engine.advance import run_advance
from threads.engine.delegate import delegate_run
from threads.engine.execute import Prepared, call_values, probed, receipt_before_send, send, sent_record, step_data
from threads.engine.lease import (
    heartbeat,
    lapsed,
    lease_claim,
    lease_lapse,
    lease_release,
    lease_seconds,
    run_lease_claim,
    runs_lapsed,
)
from threads.engine.lifecycle import step_status_set
from threads.engine.progress import Progress
from threads.engine.replays import replays_heartbeat, replays_lapsed_release
from threads.engine.replies import reply_write
from threads.engine.saga import saga_run
from threads.engine.teamsteps import flow_advance
from threads.engine.unit import unit
from threads.engine.values import compensation_resolve
from threads.models import Event, Interrupt, Receipt, Run, Step

log = logging.getLogger("stalwart.engine")

DIED = "the worker running it stopped mid-call"
SWEEP_BATCH = 50


def sweep_once() -> int:
    """Reconcile every step whose lease lapsed; the number this worker took."""
    taken = 0
    for step in list(lapsed()[:SWEEP_BATCH]):
        if not lease_claim(step):
            continue  # another sweeper (or the worker itself) got there first
        taken += 1
        try:
            step_reconcile(step)
        except Exception:  # one bad run must not stop the sweep of the others, nor stay leased by this worker
            log.exception("could not reconcile step %s of run %s; the next sweep tries again", step.index, step.run_id)
            lease_lapse(step)
    return taken + stranded_runs() + stranded_leases() + replays_lapsed_release()


def heartbeats() -> int:
    """Renew every lease this worker holds: its steps', its runs' and its replay journal rows'."""
    return heartbeat() + replays_heartbeat()


def stranded_runs() -> int:
    """Runs left ``running`` by a worker that died after a claim committed and
    before its step started (an approved step, nothing running), or between
    two undos of a saga: carried on by the one sweeper whose conditional
    UPDATE of the run's ``updated_at`` wins."""
    limit = timezone.now() - timedelta(seconds=lease_seconds())
    quiet = (Run.objects.filter(status=Run.Status.RUNNING, updated_at__lt=limit, replay_owner="")
             .exclude(steps__status=Step.Status.RUNNING)
             .exclude(interrupts__status=Interrupt.Status.OPEN))
    candidates = list((quiet.exclude(saga="") | quiet.filter(steps__status=Step.Status.APPROVED))
                      .distinct()[:SWEEP_BATCH])
    taken = 0
    for run in candidates:
        if not Run.objects.filter(pk=run.pk, status=Run.Status.RUNNING, updated_at=run.updated_at).update(
                updated_at=timezone.now()):
            continue
        taken += 1
        log.warning("run %s was left running by a worker that died; carrying it on", run.id)
        try:
            if run.saga:
                saga_run(Progress(run=run))
            else:
                run_advance(Progress(run=run))
        except Exception:
            log.exception("could not carry on run %s", run.id)
    return taken


def stranded_leases() -> int:
    """Runs whose worker died while it held the run's lease (it asked the
    model, or replayed a team's steps): taken over by the one sweeper whose
    conditional UPDATE of the lease wins, and carried on again."""
    taken = 0
    quiet = runs_lapsed().exclude(steps__status=Step.Status.RUNNING).distinct()
    for run in list(quiet[:SWEEP_BATCH]):
        if not run_lease_claim(run):
            continue
        taken += 1
        try:
            if run.plan.get("steps"):
                log.warning("run %s was left by a worker that died replaying its steps; replaying them", run.id)
                flow_advance(Progress(run=run), lease_held=True)
            elif run.status == Run.Status.RUNNING and not run.interrupts.filter(status=Interrupt.Status.OPEN).exists():
                log.warning("run %s was left running by a worker that died asking the model; asking again", run.id)
                delegate_run(Progress(run=run))
        except Exception:
            log.exception("could not carry on run %s", run.id)
    return taken


def step_reconcile(step: Step) -> Progress | None:
    """Reconcile a step this worker has just claimed (its previous worker died)."""
    run = Run.objects.get(pk=step.run_id)
    agent = registry.get_agent(run.agent)
    tool = agent.tool(step.tool)
    progress = Progress(run=run)
    log.warning("run %s step %s (%s): %s; reconciling", run.id, step.index, step.tool, DIED)
    if step.undo_of_id is not None:
        with unit(run.thread_id, notices=progress.notices) as u:
            Receipt.objects.filter(step=step, verdict__in=["", Receipt.Verdict.PENDING]).update(
                verdict=V.INDETERMINATE, transport="no_response", evidence=DIED)
            if not lease_release(step):
                return None
            step.error = DIED
            step_status_set(step, Step.Status.FAILED)
            u.event(Event.Type.STEP, step_data(step, agent))
        if run.saga and not Interrupt.objects.filter(run=run, status=Interrupt.Status.OPEN).exists():
            return saga_run(progress)
        return None
    if tool is None or not tool.is_write:
        with unit(run.thread_id, notices=progress.notices):
            if not lease_release(step):
                return None
            step_status_set(step, Step.Status.PLANNED)  # a read: taken again, from the check
        return run_advance(progress)
    values = call_values(run, step, tool)
    receipt = Receipt.objects.filter(step=step).order_by("-created_at").first()
    if receipt is None:  # it died between the step's start and its receipt: record the intent now
        receipt, _ = receipt_before_send(run, step, tool, values, agent)
    outcome, attempts = Outcome("no_response", error=DIED), 0
    key = receipt.idempotency_key if receipt else ""
    if not tool.verify and key:
        if tool.idempotency and tool.idempotency.get("argument"):
            values[str(tool.idempotency["argument"])] = key
        outcome, attempts = send(tool, values, key)  # the same key: a replay, never a second effect
    sent = probed(agent, Prepared(step=step, tool=tool, values=values, receipt=receipt, key=key or None),
                  outcome, attempts)
    with unit(run.thread_id, notices=progress.notices) as u:
        run.refresh_from_db()
        go_on = sent_record(u, progress, agent, sent)
        if not (go_on and run.status == Run.Status.RUNNING):
            reply_write(u, progress)
            return progress
    return run_advance(progress)


def happened_record(step: Step) -> None:
    """A person said an unknown outcome happened: the effect is recorded with
    its undo registered (``$args.`` only: its result was never seen)."""
    run = step.run
    agent = registry.get_agent(run.agent)
    tool = agent.tool(step.tool)
    step.result = {"recorded_by_person": True}
    if tool is not None and tool.is_write:
        step.compensation = compensation_resolve(tool, call_values(run, step, tool), None)
    Receipt.objects.filter(step=step, operation_id__endswith=f"-{step.generation}").update(
        verdict=V.VERIFIED_APPLIED, evidence="a person said it happened", updated_at=timezone.now())


def not_happened_record(step: Step) -> None:
    Receipt.objects.filter(step=step, operation_id__endswith=f"-{step.generation}").update(
        verdict=V.VERIFIED_NOT_APPLIED, evidence="a person said it did not happen", updated_at=timezone.now())
