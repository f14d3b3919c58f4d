"""Steps whose worker died, and outcomes a person settles (SPEC §9).

``sweep_once`` runs at a serving process's start and every
``STALWART_SWEEP_SECONDS`` (``stalwart_site.sweeper``): each running step
whose lease lapsed is taken over by one conditional UPDATE (``lease_claim``;
of two sweepers one wins) and reconciled without anyone touching its thread:

- a read is simply taken again (reads have no effect);
- a write with a ``verify`` probe is checked by it, sending nothing;
- a write with idempotency (and no probe) is sent again with the *same*
  key, which the tool answers as a replay;
- anything else becomes an ``outcome_unknown`` pause. Never sent blindly.

An undo whose worker died is left ``failed`` with an unknown outcome; the
saga carries on from there (it resends only with the same key, else pauses as
``saga_stuck``).
"""

from __future__ import annotations

import logging

from django.db import transaction

from catalogue import registry
from catalogue.bindings import Outcome
from threads import verdicts as V
from threads.engine.advance import run_advance
from threads.engine.events import EventType, event_append
from threads.engine.execute import call_values, effect_record, receipt_before_send, send, step_data
from threads.engine.lease import lapsed, lease_claim, lease_release
from threads.engine.lifecycle import Advance, step_status_set
from threads.engine.replies import reply_write
from threads.engine.saga import saga_run
from threads.engine.values import compensation_resolve
from threads.models import Interrupt, Receipt, Run, Step

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
        except Exception:  # one bad run must not stop the sweep of the others
            log.exception("could not reconcile step %s of run %s", step.index, step.run_id)
    return taken


def step_reconcile(step: Step) -> Advance | None:
    """Reconcile a step this worker has just claimed (its previous worker died)."""
    run = Run.objects.get(pk=step.run_id)
    agent = registry.get_agent(run.agent)
    tool = agent.tool(step.tool)
    advance = Advance(run=run)
    log.warning("run %s step %s (%s): %s; reconciling", run.id, step.index, step.tool, DIED)
    if step.undo_of_id is not None:
        with transaction.atomic():
            Receipt.objects.filter(step=step, verdict__in=["", Receipt.Verdict.PENDING]).update(
                verdict=V.INDETERMINATE, transport="no_response", evidence=DIED)
            if not lease_release(step):
                return None
            step.error = DIED
            step_status_set(step, Step.Status.FAILED)
            event_append(run.thread_id, EventType.STEP, step_data(step, agent))
        if run.saga and not Interrupt.objects.filter(run=run, status=Interrupt.Status.OPEN).exists():
            return saga_run(run.id, advance=advance)
        return None
    if tool is None or not tool.is_write:
        with transaction.atomic():
            if not lease_release(step):
                return None
            step_status_set(step, Step.Status.PLANNED)  # a read: taken again, from the check
        return run_advance(run.id, advance=advance)
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
    go_on = effect_record(run, step, tool, agent, values, receipt, outcome, attempts, advance)
    run.refresh_from_db()
    if go_on and run.status == Run.Status.RUNNING:
        return run_advance(run.id, advance=advance)
    return reply_write(advance)


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
        verdict=V.VERIFIED_APPLIED, evidence="a person said it happened")


def not_happened_record(step: Step) -> None:
    Receipt.objects.filter(step=step, operation_id__endswith=f"-{step.generation}").update(
        verdict=V.VERIFIED_NOT_APPLIED, evidence="a person said it did not happen")
