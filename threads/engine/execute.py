"""Running one step's call (SPEC §9).

A write's receipt is stored, and its step marked ``running``, *before* the
call is sent; the outcome is recorded in a second transaction after. An
ambiguous failure of a tool with idempotency is sent again with the same key;
any other ambiguous failure pauses as ``outcome_unknown``: never resent
blindly.
"""

from __future__ import annotations

import time
from typing import Any

from django.db import transaction
from django.db.models import F

from catalogue import registry
from catalogue.agentfile import AgentSpec
from catalogue.bindings import invoke
from catalogue.check import SENTENCE_UNKNOWN
from catalogue.tools import Tool
from threads.engine.events import EventType, event_append
from threads.engine.lifecycle import Advance, step_status_set
from threads.engine.pauses import pause_open
from threads.engine.values import coerce, compensation_resolve, jsonable, resolve, shown
from threads.models import Interrupt, Receipt, Run, Step
from threads.texts import describe_result, text
from threads.tokens import request_hash

IDEMPOTENT_RETRIES = 2
RETRY_BACKOFF_SECONDS = 0.2


def step_execute(run: Run, step: Step, agent: AgentSpec, advance: Advance) -> bool:
    """Run one step's call. True to go on with the next step."""
    lang = run.language
    tool = agent.tool(step.tool)
    if tool is None:  # gone from the agent file since it was planned
        step_refuse(run, step, "unknown_tool", SENTENCE_UNKNOWN.format(tool=step.tool), advance)
        return True
    arguments, _ = resolve(run, step, tool)
    values = coerce(tool, arguments)
    receipt = None
    key = None
    if tool.is_write:
        receipt = receipt_before_send(run, step, tool, values, agent)
        key = receipt.idempotency_key or None
        if key and tool.idempotency and tool.idempotency.get("argument"):
            values[str(tool.idempotency["argument"])] = key
    with transaction.atomic():
        step_status_set(step, Step.Status.RUNNING)
        event_append(run.thread_id, EventType.STEP, step_data(step))
    attempts = 0
    while True:
        attempts += 1
        outcome = invoke(tool, values, idempotency_key=key, base_dir=str(registry.agent_file().folder))
        if outcome.ambiguous and key and attempts <= IDEMPOTENT_RETRIES:
            # Same key, same request: the tool answers a replay without a second effect.
            time.sleep(RETRY_BACKOFF_SECONDS * attempts)
            continue
        break
    if receipt is not None:
        receipt.attempts = F("attempts") + attempts
        receipt.transport = outcome.transport
        if outcome.ok:
            receipt.verdict = Receipt.Verdict.VERIFIED_APPLIED
        elif outcome.ambiguous:
            receipt.verdict = Receipt.Verdict.INDETERMINATE
        else:
            receipt.verdict = Receipt.Verdict.NOT_APPLIED
        receipt.save(update_fields=["attempts", "transport", "verdict", "updated_at"])
    if outcome.ambiguous:
        outcome_unknown(run, step, tool, advance, outcome.error)
        return False
    with transaction.atomic():
        if outcome.ok:
            step.result = jsonable(outcome.result)
            step.compensation = compensation_resolve(tool, values, step.result)
            step_status_set(step, Step.Status.SUCCEEDED)
            if tool.reads_outside and tool.name not in run.tainted_by:
                run.tainted_by = [*run.tainted_by, tool.name]
                run.save(update_fields=["tainted_by", "updated_at"])
        else:
            step.error = outcome.error
            step_status_set(step, Step.Status.FAILED)
        event_append(run.thread_id, EventType.STEP, step_data(step))
    if outcome.ok:
        key_ = "done_write" if tool.is_write else "done_read"
        advance.lines.append(text(lang, key_, tool=tool.name, result=describe_result(step.result)))
    else:
        advance.lines.append(text(lang, "failed", tool=tool.name, error=outcome.error))
    return True


def receipt_before_send(run: Run, step: Step, tool: Tool, values: dict[str, Any], agent: AgentSpec) -> Receipt:
    """Store the intent before the write is sent (SPEC §9); the operation id
    and idempotency key are stable for the step across retries."""
    operation_id = f"op-{run.id}-{step.index}-{step.generation}"
    secret = agent.secrets.get(tool.name, frozenset())
    rhash = request_hash(tool.name, values, secret | {str((tool.idempotency or {}).get("argument"))})
    receipt, created = Receipt.objects.get_or_create(
        operation_id=operation_id,
        defaults={"step": step, "tool": tool.name, "request_hash": rhash,
                  "idempotency_key": operation_id if tool.idempotency else ""},
    )
    if not created and receipt.request_hash != rhash:
        receipt.verdict = Receipt.Verdict.UNSAFE_RETRY
        receipt.save(update_fields=["verdict", "updated_at"])
        raise RuntimeError(f"operation {operation_id} was sent with another request: stopped (unsafe_retry)")
    return receipt


def outcome_unknown(run: Run, step: Step, tool: Tool | None, advance: Advance, error: str) -> None:
    """A write that may or may not have taken effect waits for a person."""
    step.error = error
    pause_open(run=run, step=step, kind=Interrupt.Kind.OUTCOME_UNKNOWN, tool=step.tool, payload={
        "question": text(run.language, "waiting_outcome", tool=step.tool),
        "arguments": shown(step.arguments, tool) if tool else step.arguments,
        "reasons": ["outcome_unknown"],
        "irreversible": bool(tool and tool.irreversible),
    })
    advance.lines.append(text(run.language, "waiting_outcome", tool=step.tool))


def step_refuse(run: Run, step: Step, rule: str, sentence: str, advance: Advance) -> None:
    with transaction.atomic():
        step_status_set(step, Step.Status.REFUSED, rule=rule, sentence=sentence)
        event_append(run.thread_id, EventType.REFUSED,
                     {"step": step.index, "tool": step.tool, "rule": step.rule, "sentence": step.sentence})
    advance.lines.append(sentence)


def step_data(step: Step) -> dict[str, Any]:
    return {"step": step.index, "tool": step.tool, "status": step.status, "arguments": step.arguments,
            "result": step.result, "error": step.error or None}
