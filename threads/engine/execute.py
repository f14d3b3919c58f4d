"""Running one step's call, and what its outcome means (SPEC §9).

A write's receipt is stored, and its step marked ``running`` under this
worker's lease, *before* the call is sent; the outcome is recorded in a second
transaction after, and only while the worker still holds the lease (a sweep
may have taken a lapsed one). An ambiguous failure of a tool with idempotency
is sent again with the same key; a tool with a ``verify`` probe is then
checked by it; the evidence gives the verdict (``threads.verdicts``), and the
verdict what happens next. Nothing is ever resent blindly.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from catalogue import registry
from catalogue.agentfile import AgentSpec
from catalogue.bindings import Outcome, invoke
from catalogue.check import SENTENCE_UNKNOWN
from catalogue.tools import Tool
from threads import verdicts as V
from threads.engine.events import EventType, event_append, events_batched
from threads.engine.inserts import insert_new
from threads.engine.lease import lease_release, lease_take
from threads.engine.lifecycle import Advance, run_status_set, step_status_set, steps_cancel
from threads.engine.pauses import pause_open
from threads.engine.values import coerce, compensation_resolve, jsonable, resolve, shown
from threads.models import Interrupt, Receipt, Run, Step
from threads.texts import describe_result, text
from threads.tokens import request_hash

log = logging.getLogger("stalwart.engine")

IDEMPOTENT_RETRIES = 2
RETRY_BACKOFF_SECONDS = 0.2
SECRET_SHOWN = "(secret)"


@dataclass
class Prepared:
    """A step claimed ``running`` under this worker's lease, its receipt stored
    (a write), committed and ready to send."""

    step: Step
    tool: Tool
    values: dict[str, Any]
    receipt: Receipt | None
    key: str | None


@dataclass
class Sent:
    """What came back from a prepared call (and its probe), to record."""

    prepared: Prepared
    outcome: Outcome
    attempts: int
    matches: int | None
    evidence: str


def step_execute(run: Run, step: Step, agent: AgentSpec, advance: Advance) -> bool:
    """Run one step's call in three parts: claim it and store its receipt
    (one transaction), send it (none), record its outcome (another). True to
    go on with the next step."""
    with transaction.atomic(), events_batched():
        prepared = step_prepare(run, step, agent, advance)
    if not isinstance(prepared, Prepared):
        return prepared
    sent = prepared_send(agent, prepared)
    with transaction.atomic(), events_batched():
        return sent_record(run, agent, sent, advance)


def step_prepare(run: Run, step: Step, agent: AgentSpec, advance: Advance, stored: str | None = None) -> Prepared | bool:
    """Inside the caller's transaction: claim ``step`` (of two workers carrying
    the same run on, one wins) and store a write's receipt, both made durable
    by that transaction's commit, before anything is sent. The claimed step,
    or True to go on (the step was refused) / False to stop. ``stored``: the
    status the step has in the database when its own (an approval made in
    this transaction) is in memory only."""
    tool = agent.tool(step.tool)
    if tool is None:  # gone from the agent file since it was planned
        step_refuse(run, step, "unknown_tool", SENTENCE_UNKNOWN.format(tool=step.tool), advance)
        return True
    values = call_values(run, step, tool)
    lease_take(step)
    # The step's own claim, with what the check filled in on it, in one conditional UPDATE.
    if not Step.objects.filter(pk=step.pk, status=stored or step.status, generation=step.generation).update(
            status=Step.Status.RUNNING, arguments=step.arguments, reasons=step.reasons,
            irreversible=step.irreversible, lease_owner=step.lease_owner, lease_at=step.lease_at,
            updated_at=timezone.now()):
        log.warning("step %s of run %s was started elsewhere; not sent again", step.index, run.id)
        advance.held = None  # the step is not as held in memory: the answer reads it back
        return False
    step.status = Step.Status.RUNNING
    receipt = None
    key = None
    if tool.is_write:
        # The step is ours (its row locked until commit): no other worker stores this receipt now.
        receipt, mismatch = receipt_before_send(run, step, tool, values, agent)
        if mismatch:
            return unsafe_retry_stop(run, step, receipt, advance)
        key = receipt.idempotency_key or None
        if key and tool.idempotency and tool.idempotency.get("argument"):
            values[str(tool.idempotency["argument"])] = key
    event_append(run.thread_id, EventType.STEP, step_data(step, agent))
    return Prepared(step=step, tool=tool, values=values, receipt=receipt, key=key)


def prepared_send(agent: AgentSpec, prepared: Prepared) -> Sent:
    """Send the call and, for a write with a ``verify`` probe, ask it: outside any transaction."""
    outcome, attempts = send(prepared.tool, prepared.values, prepared.key)
    matches, evidence = None, outcome.transport
    if prepared.receipt is not None and prepared.tool.verify and (outcome.ok or outcome.ambiguous):
        matches, evidence = probe(agent, prepared.tool, prepared.values, jsonable(outcome.result))
    return Sent(prepared, outcome, attempts, matches, evidence)


def sent_record(run: Run, agent: AgentSpec, sent: Sent, advance: Advance) -> bool:
    """Inside the caller's transaction: what the sent call did. True to go on."""
    p = sent.prepared
    return effect_record(run, p.step, p.tool, agent, p.values, p.receipt, sent.outcome, sent.attempts, advance,
                         probed=(sent.matches, sent.evidence))


def call_values(run: Run, step: Step, tool: Tool) -> dict[str, Any]:
    arguments, _ = resolve(run, step, tool)
    return coerce(tool, arguments)


def send(tool: Tool, values: dict[str, Any], key: str | None, retries: int = IDEMPOTENT_RETRIES) -> tuple[Outcome, int]:
    """Send the call; an ambiguous failure is sent again only with the same key (bounded)."""
    attempts = 0
    while True:
        attempts += 1
        outcome = invoke(tool, values, idempotency_key=key, base_dir=str(registry.agent_file().folder))
        if outcome.ambiguous and key and attempts <= retries:
            # Same key, same request: the tool answers a replay without a second effect.
            time.sleep(RETRY_BACKOFF_SECONDS * attempts)
            continue
        return outcome, attempts


def probe(agent: AgentSpec, tool: Tool, values: dict[str, Any], result: Any) -> tuple[int | None, str]:
    """Ask the write's ``verify`` probe how many matching effects exist; None when it cannot say."""
    spec = tool.verify or {}
    reader = agent.tool(str(spec.get("tool")))
    if reader is None:
        return None, "no probe"
    args = V.probe_arguments(spec, values, result)
    found = invoke(reader, args, base_dir=str(registry.agent_file().folder))
    if not found.ok:
        return None, f"{reader.name} could not answer"
    n = V.probe_matches(spec, jsonable(found.result), values, result)
    return n, f"{reader.name} found {n} matching"


def effect_record(run: Run, step: Step, tool: Tool, agent: AgentSpec, values: dict[str, Any],
                  receipt: Receipt | None, outcome: Outcome, attempts: int, advance: Advance,
                  probed: tuple[int | None, str] | None = None) -> bool:
    """Record what a call did, by its verdict. True to go on with the next step.

    ``probed`` is the ``verify`` probe's answer when the caller asked it
    already (outside its transaction); else it is asked here, before the
    record's transaction."""
    lang = run.language
    if probed is not None:
        matches, evidence = probed
    else:
        matches, evidence = None, outcome.transport
        if receipt is not None and tool.verify and (outcome.ok or outcome.ambiguous):
            matches, evidence = probe(agent, tool, values, jsonable(outcome.result))
    verdict = V.verdict(transport=outcome.transport, matches=matches) if receipt is not None else None
    with transaction.atomic(savepoint=False):
        if receipt is not None:
            Receipt.objects.filter(pk=receipt.pk).update(
                attempts=F("attempts") + attempts, transport=outcome.transport, verdict=verdict or "",
                evidence=evidence[:200])
            receipt.transport, receipt.verdict, receipt.evidence = outcome.transport, verdict or "", evidence[:200]
        # The plain outcomes give the lease up with the step's own save (``_finished``);
        # the others first make sure this worker still holds it.
        plain = verdict == V.VERIFIED_APPLIED or (verdict in (None, V.VERIFIED_NOT_APPLIED) and not outcome.ambiguous)
        if not plain and not lease_release(step):
            _taken_over(run, step)
            return False
        if verdict is None:  # a read
            if outcome.ambiguous:
                outcome_unknown(run, step, tool, advance, outcome.error)
                return False
            return _finished(run, step, tool, agent, outcome, values, advance, release=True)
        if verdict in (V.VERIFIED_APPLIED, V.DUPLICATE_EFFECT):
            lead = None
            if not outcome.ok:
                outcome = Outcome("ok", result={"reconciled": evidence})
                lead = text(lang, "reconciled", tool=tool.name, evidence=evidence)
            go_on = _finished(run, step, tool, agent, outcome, values, advance, quiet=verdict != V.VERIFIED_APPLIED,
                              release=plain, lead=lead)
            if verdict == V.DUPLICATE_EFFECT:
                _unhealthy(run, verdict)
                steps_cancel(run, from_index=step.index + 1)
                run_status_set(run, Run.Status.DONE)
                advance.lines.append(text(lang, "duplicate_effect", tool=tool.name, evidence=evidence))
                return False
            return go_on
        if verdict == V.FALSE_SUCCESS:
            _unhealthy(run, verdict)
            advance.lines.append(text(lang, "false_success", tool=tool.name, evidence=evidence))
            return _finished(run, step, tool, agent, Outcome("error", error=f"false success: {evidence}"), values,
                             advance, quiet=True)
        if verdict == V.VERIFIED_NOT_APPLIED and outcome.ambiguous:
            # The probe says it did not happen: a retry is a person's decision (a new confirm).
            step.error = evidence
            step.generation += 1
            step.save(update_fields=["generation", "error", "updated_at"])
            step_status_set(step, Step.Status.PLANNED)
            advance.lines.append(text(lang, "not_applied_retry", tool=tool.name, evidence=evidence))
            return True
        if verdict == V.INDETERMINATE:
            outcome_unknown(run, step, tool, advance, outcome.error)
            return False
        return _finished(run, step, tool, agent, outcome, values, advance, release=True)  # refused or failed


def _taken_over(run: Run, step: Step) -> None:
    # A sweep took this step over (our heartbeat lapsed): it decides, not us.
    log.warning("step %s of run %s was taken over while its call ran; its outcome is left to the sweep",
                step.index, run.id)


def _finished(run: Run, step: Step, tool: Tool, agent: AgentSpec, outcome: Outcome, values: dict[str, Any],
              advance: Advance, quiet: bool = False, release: bool = False, lead: str | None = None) -> bool:
    """The step succeeded or failed, as ``outcome`` says. ``release``: the save
    also gives up this worker's lease, and happens only while it holds it
    (False, nothing recorded, when a sweep took the step over). ``lead``: a
    line said before the step's own."""
    if outcome.ok:
        step.result = jsonable(outcome.result)
        step.compensation = compensation_resolve(tool, values, step.result) if tool.is_write else None
    else:
        step.error = outcome.error
    if not step_status_set(step, Step.Status.SUCCEEDED if outcome.ok else Step.Status.FAILED, release=release):
        _taken_over(run, step)
        return False
    if outcome.ok and tool.reads_outside and tool.name not in run.tainted_by:
        run.tainted_by = [*run.tainted_by, tool.name]
        run.save(update_fields=["tainted_by", "updated_at"])
    if lead:
        advance.lines.append(lead)
    event_append(run.thread_id, EventType.STEP, step_data(step, agent))
    if quiet:
        return True
    if outcome.ok:
        key_ = "done_write" if tool.is_write else "done_read"
        advance.lines.append(text(run.language, key_, tool=tool.name, result=describe_result(step.result)))
    else:
        advance.lines.append(text(run.language, "failed", tool=tool.name, error=outcome.error))
    return True


def _unhealthy(run: Run, verdict: str) -> None:
    Run.objects.filter(pk=run.pk, health="").update(health=verdict)
    run.health = run.health or verdict


def receipt_before_send(run: Run, step: Step, tool: Tool, values: dict[str, Any], agent: AgentSpec,
                        operation_id: str | None = None) -> tuple[Receipt, bool]:
    """Store the intent before the write is sent (SPEC §9); the operation id
    and idempotency key are stable for the step across retries. True with it
    when the same operation was stored before with another request hash or key."""
    operation_id = operation_id or f"op-{run.id}-{step.index}-{step.generation}"
    secret = agent.secrets.get(tool.name, frozenset())
    rhash = request_hash(tool.name, values, secret | {str((tool.idempotency or {}).get("argument"))})
    key = operation_id if tool.idempotency else ""
    receipt = Receipt(operation_id=operation_id, step=step, tool=tool.name, request_hash=rhash, idempotency_key=key)
    created = insert_new(receipt)
    if not created:  # stored by an earlier claim of this step's generation, by this worker or one that died
        receipt = Receipt.objects.get(pk=operation_id)
    mismatch = not created and (receipt.request_hash != rhash or receipt.idempotency_key != key)
    return receipt, mismatch


def unsafe_retry_stop(run: Run, step: Step, receipt: Receipt, advance: Advance) -> bool:
    """The same operation with another request or key: stop, send nothing (SPEC §9)."""
    with transaction.atomic(savepoint=False):
        Receipt.objects.filter(pk=receipt.pk).update(verdict=V.UNSAFE_RETRY,
                                                     evidence="stored with another request hash or key")
        step.error = "unsafe_retry: the operation was stored with another request"
        step_status_set(step, Step.Status.FAILED)
        event_append(run.thread_id, EventType.STEP, {"step": step.index, "tool": step.tool, "status": step.status,
                                                     "error": step.error})
        _unhealthy(run, V.UNSAFE_RETRY)
        steps_cancel(run, from_index=step.index + 1)
        run_status_set(run, Run.Status.DONE)
    advance.held = None  # later steps were cancelled in the database only: the answer reads them back
    advance.lines.append(text(run.language, "unsafe_retry", tool=step.tool))
    return False


def outcome_unknown(run: Run, step: Step, tool: Tool | None, advance: Advance, error: str) -> None:
    """A write that may or may not have taken effect waits for a person."""
    step.error = error
    pause_open(run=run, step=step, kind=Interrupt.Kind.OUTCOME_UNKNOWN, tool=step.tool, advance=advance, payload={
        "question": text(run.language, "waiting_outcome", tool=step.tool),
        "arguments": shown(step.arguments, tool) if tool else step.arguments,
        "reasons": ["outcome_unknown"],
        "irreversible": bool(tool and tool.irreversible),
    })
    advance.lines.append(text(run.language, "waiting_outcome", tool=step.tool))


def step_refuse(run: Run, step: Step, rule: str, sentence: str, advance: Advance) -> None:
    with transaction.atomic(savepoint=False):
        step_status_set(step, Step.Status.REFUSED, rule=rule, sentence=sentence)
        event_append(run.thread_id, EventType.REFUSED,
                     {"step": step.index, "tool": step.tool, "rule": step.rule, "sentence": step.sentence})
    advance.lines.append(sentence)


def step_data(step: Step, agent: AgentSpec | None = None) -> dict[str, Any]:
    """A step as its events show it: arguments marked secret never appear."""
    secret = agent.secrets.get(step.tool, frozenset()) if agent else frozenset()
    arguments = [{**a, "value": SECRET_SHOWN} if a.get("name") in secret else a for a in step.arguments]
    return {"step": step.index, "tool": step.tool, "status": step.status, "arguments": arguments,
            "result": step.result, "error": step.error or None}
