"""Running one step's call, and what its outcome means (docs/http-api.md, "Receipts and verdicts").

A write's receipt is stored, and its step claimed ``running`` under this
worker's lease, *before* the call is sent (``step_prepare``, in the caller's
unit of work, committed before anything goes out); the call is sent outside
any transaction (``prepared_send``); its outcome is recorded in a second unit
(``sent_record``), and only while the worker still holds the lease (a sweep
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

from django.db.models import F
from django.utils import timezone

from catalogue import registry
from catalogue.agentfile import AgentSpec
from catalogue.bindings import Outcome, invoke
from catalogue.check import SENTENCE_UNKNOWN
from catalogue.tools import Tool
from threads import verdicts as V
from threads.engine.inserts import insert_new
from threads.engine.lease import lease_release
from threads.engine.lifecycle import run_status_set, step_claim, step_status_set, steps_status_set
from threads.engine.pauses import pause_open
from threads.engine.progress import Progress
from threads.engine.unit import Unit, unit
from threads.engine.values import coerce, compensation_resolve, jsonable, resolve, shown
from threads.models import Event, Interrupt, Receipt, Run, Step
from threads.texts import describe_result, error_of, labels_of, refusal, said, text
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


def step_execute(progress: Progress, step: Step, agent: AgentSpec) -> bool:
    """Run one step's call in three parts: claim it and store its receipt
    (one unit), send it (no transaction), record its outcome (another unit).
    True to go on with the next step."""
    run = progress.run
    with unit(run.thread_id, notices=progress.notices) as u:
        prepared = step_prepare(u, progress, step, agent)
    if not isinstance(prepared, Prepared):
        return prepared
    sent = prepared_send(agent, prepared)
    with unit(run.thread_id, notices=progress.notices) as u:
        return sent_record(u, progress, agent, sent)


def step_prepare(u: Unit, progress: Progress, step: Step, agent: AgentSpec) -> Prepared | bool:
    """Inside the caller's unit: claim ``step`` (of two workers carrying the
    same run on, one wins) and store a write's receipt, both made durable by
    the unit's commit, before anything is sent. The claimed step, or True to
    go on (the step was refused) / False to stop."""
    run = progress.run
    tool = agent.tool(step.tool)
    if tool is None:  # gone from the agent file since it was planned
        step_refuse(u, progress, step, "unknown_tool", refusal(progress.run, SENTENCE_UNKNOWN, tool=step.tool))
        return True
    values = call_values(run, step, tool)
    if not step_claim(step):
        log.warning("step %s of run %s was started elsewhere; not sent again", step.index, run.id)
        return False
    receipt = None
    key = None
    if tool.is_write:
        # The step is ours (its row locked until commit): no other worker stores this receipt now.
        receipt, mismatch = receipt_before_send(run, step, tool, values, agent)
        if mismatch:
            return unsafe_retry_stop(u, progress, step, receipt)
        key = receipt.idempotency_key or None
        if key and tool.idempotency and tool.idempotency.get("argument"):
            values[str(tool.idempotency["argument"])] = key
    u.event(Event.Type.STEP, step_data(step, agent))
    return Prepared(step=step, tool=tool, values=values, receipt=receipt, key=key)


def prepared_send(agent: AgentSpec, prepared: Prepared) -> Sent:
    """Send the call, outside any transaction, and ask a write's probe about it."""
    outcome, attempts = send(prepared.tool, prepared.values, prepared.key)
    return probed(agent, prepared, outcome, attempts)


def probed(agent: AgentSpec, prepared: Prepared, outcome: Outcome, attempts: int) -> Sent:
    """The outcome of a sent (or presumed lost) call with, for a write with a
    ``verify`` probe, what the probe says: outside any transaction."""
    matches, evidence = None, outcome.transport
    if prepared.receipt is not None and prepared.tool.verify and (outcome.ok or outcome.ambiguous):
        matches, evidence = probe(agent, prepared.tool, prepared.values, jsonable(outcome.result))
    return Sent(prepared, outcome, attempts, matches, evidence)


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


def sent_record(u: Unit, progress: Progress, agent: AgentSpec, sent: Sent) -> bool:
    """Inside the caller's unit: what the sent call did, by its verdict. True
    to go on with the next step."""
    run, step, tool = progress.run, sent.prepared.step, sent.prepared.tool
    values, receipt, outcome = sent.prepared.values, sent.prepared.receipt, sent.outcome
    lang, evidence = run.language, sent.evidence
    verdict = V.verdict(transport=outcome.transport, matches=sent.matches) if receipt is not None else None
    if receipt is not None:
        Receipt.objects.filter(pk=receipt.pk).update(
            attempts=F("attempts") + sent.attempts, transport=outcome.transport, verdict=verdict or "",
            evidence=evidence[:200], updated_at=timezone.now())
        receipt.transport, receipt.verdict, receipt.evidence = outcome.transport, verdict or "", evidence[:200]
    # The plain outcomes give the lease up with the step's own save (``_finished``);
    # the others first make sure this worker still holds it.
    plain = verdict == V.VERIFIED_APPLIED or (verdict in (None, V.VERIFIED_NOT_APPLIED) and not outcome.ambiguous)
    if not plain and not lease_release(step):
        _taken_over(run, step)
        return False
    if verdict is None:  # a read
        if outcome.ambiguous:
            outcome_unknown(u, progress, step, tool, outcome.error)
            return False
        return _finished(u, progress, step, tool, agent, outcome, values, release=True)
    if verdict in (V.VERIFIED_APPLIED, V.DUPLICATE_EFFECT):
        lead = None
        if not outcome.ok:
            outcome = Outcome("ok", result={"reconciled": evidence})
            lead = text(lang, "reconciled", tool=said(run, tool.name), evidence=evidence)
        go_on = _finished(u, progress, step, tool, agent, outcome, values, quiet=verdict != V.VERIFIED_APPLIED,
                          release=plain, lead=lead)
        if verdict == V.DUPLICATE_EFFECT:
            _unhealthy(run, verdict)
            steps_status_set(run, Step.Status.CANCELLED, from_index=step.index + 1)
            run_status_set(run, Run.Status.DONE)
            progress.lines.append(text(lang, "duplicate_effect", tool=said(run, tool.name), evidence=evidence))
            return False
        return go_on
    if verdict == V.FALSE_SUCCESS:
        _unhealthy(run, verdict)
        progress.lines.append(text(lang, "false_success", tool=said(run, tool.name), evidence=evidence))
        return _finished(u, progress, step, tool, agent, Outcome("error", error=f"false success: {evidence}"),
                         values, quiet=True)
    if verdict == V.VERIFIED_NOT_APPLIED and outcome.ambiguous:
        # The probe says it did not happen: a retry is a person's decision (a new confirm).
        step.error = evidence
        step.generation += 1
        step_status_set(step, Step.Status.PLANNED)
        progress.lines.append(text(lang, "not_applied_retry", tool=said(run, tool.name), evidence=evidence))
        return True
    if verdict == V.INDETERMINATE:
        outcome_unknown(u, progress, step, tool, outcome.error)
        return False
    return _finished(u, progress, step, tool, agent, outcome, values, release=True)  # refused or failed


def _taken_over(run: Run, step: Step) -> None:
    # A sweep took this step over (our heartbeat lapsed): it decides, not us.
    log.warning("step %s of run %s was taken over while its call ran; its outcome is left to the sweep",
                step.index, run.id)


def _finished(u: Unit, progress: Progress, step: Step, tool: Tool, agent: AgentSpec, outcome: Outcome,
              values: dict[str, Any], quiet: bool = False, release: bool = False, lead: str | None = None) -> bool:
    """The step succeeded or failed, as ``outcome`` says. ``release``: the save
    also gives up this worker's lease, and happens only while it holds it
    (False, nothing recorded, when a sweep took the step over). ``lead``: a
    line said before the step's own."""
    run = progress.run
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
        Run.objects.filter(pk=run.pk).update(tainted_by=run.tainted_by, updated_at=timezone.now())
    if lead:
        progress.lines.append(lead)
    u.event(Event.Type.STEP, step_data(step, agent))
    if quiet:
        return True
    if outcome.ok:
        key_ = "done_write" if tool.is_write else "done_read"
        progress.lines.append(text(run.language, key_, tool=said(run, tool.name), result=describe_result(step.result, run, tool)))
    else:
        progress.lines.append(text(run.language, "failed", tool=said(run, tool.name),
                                   error=error_of(run, outcome.error)))
    return True


def _unhealthy(run: Run, verdict: str) -> None:
    Run.objects.filter(pk=run.pk, health="").update(health=verdict, updated_at=timezone.now())
    run.health = run.health or verdict


def receipt_before_send(run: Run, step: Step, tool: Tool, values: dict[str, Any], agent: AgentSpec,
                        operation_id: str | None = None) -> tuple[Receipt, bool]:
    """Store the intent before the write is sent (docs/http-api.md, "Receipts
    and verdicts"); the operation id and idempotency key are stable for the
    step across retries. True with it when the same operation was stored before
    with another request hash or key."""
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


def unsafe_retry_stop(u: Unit, progress: Progress, step: Step, receipt: Receipt) -> bool:
    """The same operation with another request or key: stop, send nothing (``unsafe_retry``)."""
    run = progress.run
    Receipt.objects.filter(pk=receipt.pk).update(verdict=V.UNSAFE_RETRY,
                                                 evidence="stored with another request hash or key")
    step.error = "unsafe_retry: the operation was stored with another request"
    step_status_set(step, Step.Status.FAILED)
    u.event(Event.Type.STEP, {"step": step.index, "tool": step.tool, "status": step.status, "error": step.error})
    _unhealthy(run, V.UNSAFE_RETRY)
    steps_status_set(run, Step.Status.CANCELLED, from_index=step.index + 1)
    run_status_set(run, Run.Status.DONE)
    progress.lines.append(text(run.language, "unsafe_retry", tool=said(run, step.tool)))
    return False


def outcome_unknown(u: Unit, progress: Progress, step: Step, tool: Tool | None, error: str) -> None:
    """A write that may or may not have taken effect waits for a person."""
    run = progress.run
    step.error = error
    pause_open(u, run=run, step=step, kind=Interrupt.Kind.OUTCOME_UNKNOWN, tool=step.tool, payload={
        "question": text(run.language, "waiting_outcome", tool=said(run, step.tool)),
        "arguments": shown(step.arguments, tool) if tool else step.arguments,
        "labels": labels_of(run, tool, step.arguments) if tool else {},
        "reasons": ["outcome_unknown"],
        "irreversible": bool(tool and tool.irreversible),
    })
    progress.lines.append(text(run.language, "waiting_outcome", tool=said(run, step.tool)))


def step_refuse(u: Unit, progress: Progress, step: Step, rule: str, sentence: str) -> None:
    step.rule, step.sentence = rule, sentence
    step_status_set(step, Step.Status.REFUSED)
    u.event(Event.Type.REFUSED, {"step": step.index, "tool": step.tool, "rule": step.rule, "sentence": step.sentence})
    progress.lines.append(sentence)


def step_data(step: Step, agent: AgentSpec | None = None) -> dict[str, Any]:
    """A step as its events show it: arguments marked secret never appear."""
    secret = agent.secrets.get(step.tool, frozenset()) if agent else frozenset()
    arguments = [{**a, "value": SECRET_SHOWN} if a.get("name") in secret else a for a in step.arguments]
    # ``run``: step numbers count from 1 in every run, so a page tells one run's step 1 from another's.
    return {"step": step.index, "run": step.run_id, "tool": step.tool, "status": step.status, "arguments": arguments,
            "result": step.result, "error": step.error or None}
