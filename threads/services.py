"""The run engine: every state change of a thread goes through here.

``turn_submit`` plans a person's turn and advances the new run;
``run_advance`` takes the run's steps in order, each to its end, until one
waits for a person (a pause) or all are done; ``interrupt_resume`` (in
``threads.pauses``) claims an answer and calls ``run_advance`` again. Nothing
lives in the process between a question and its answer: a run is carried on
from its rows alone, by whichever worker receives the answer.

Transactions: each state change (with its events) commits on its own. A
tool's effect cannot be rolled back with the database, so the engine marks a
step ``running`` and stores the write's receipt *before* sending it, and
records the outcome in a second transaction after.
"""

from __future__ import annotations

import logging
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from approvals.tokens import request_hash
from catalogue import registry
from catalogue.agentfile import AgentSpec
from catalogue.bindings import invoke
from catalogue.check import SENTENCE_UNKNOWN, SENTENCE_WITHDRAWN, check_call
from catalogue.plan import Argument, Call, Plan
from catalogue.tools import Tool
from stalwart_site.errors import NotFound
from threads.models import Event, Interrupt, Message, Receipt, Run, Step, Thread
from threads.texts import describe_result, text

log = logging.getLogger("stalwart.engine")

IDEMPOTENT_RETRIES = 2
RETRY_BACKOFF_SECONDS = 0.2
FINISHED = {
    Step.Status.SUCCEEDED, Step.Status.FAILED, Step.Status.REFUSED, Step.Status.SKIPPED,
    Step.Status.CANCELLED, Step.Status.SUPERSEDED, Step.Status.OUTCOME_UNKNOWN,
}


def new_id(prefix: str) -> str:
    return f"{prefix}-{secrets.token_hex(12)}"


@dataclass
class Advance:
    """What one call into the engine did, for the reply."""

    run: Run
    lines: list[str] = field(default_factory=list)
    reply: Message | None = None


# --- events -----------------------------------------------------------------------


def event_append(thread_id: str, type_: str, data: dict[str, Any]) -> Event:
    """Append to the thread's trace; call inside the transaction that made the change.

    The per-thread sequence comes from the thread row (an UPDATE ... +1 takes
    its lock), so event ids are gap-free and ordered even across workers.
    """
    Thread.objects.filter(pk=thread_id).update(event_seq=F("event_seq") + 1)
    seq = Thread.objects.values_list("event_seq", flat=True).get(pk=thread_id)
    event = Event.objects.create(thread_id=thread_id, seq=seq, type=type_, data=data)
    transaction.on_commit(lambda: _publish(thread_id, event))
    return event


def _publish(thread_id: str, event: Event) -> None:
    """Tell live listeners (SSE, WebSocket) after commit: a stream never shows
    a step that rolled back."""
    try:
        from asgiref.sync import async_to_sync
        from channels.layers import get_channel_layer

        layer = get_channel_layer()
        if layer is None:
            return
        group = "thread." + "".join(c if c.isalnum() or c in "-_." else "_" for c in thread_id)[:90]
        async_to_sync(layer.group_send)(
            group, {"type": "thread.event", "seq": event.seq, "event": event.type, "data": event.data}
        )
    except Exception:  # a listener never fails the run
        log.warning("could not publish event %s of thread %s", event.seq, thread_id, exc_info=True)


# --- threads ----------------------------------------------------------------------


def thread_open(*, thread_id: str, session_hash: str, agent: str) -> Thread:
    """The thread, opened by this session now or before; another session's is a 404."""
    try:
        with transaction.atomic():
            thread, _ = Thread.objects.get_or_create(
                id=thread_id, defaults={"session_hash": session_hash, "agent": agent}
            )
    except IntegrityError:  # two sessions opened the same new id at once: the other won
        thread = Thread.objects.get(pk=thread_id)
    if not secrets.compare_digest(thread.session_hash, session_hash):
        raise NotFound()
    return thread


# --- turns ------------------------------------------------------------------------


def turn_submit(
    *,
    thread_id: str,
    session_hash: str,
    text_: str,
    language: str | None = None,
    context: dict[str, Any] | None = None,
    agent_name: str | None = None,
) -> Advance:
    agent = registry.get_agent(agent_name)
    thread = thread_open(thread_id=thread_id, session_hash=session_hash, agent=agent.name)
    lang = registry.choose_language(agent, language)
    withdrawn = registry.withdrawn_tools(agent)
    plan: Plan = registry.selector_for(agent).plan(text_, language=lang, context=context or {}, exclude=withdrawn)
    run, superseded = _run_create(thread=thread, agent=agent, text_=text_, language=lang, plan=plan,
                                  context=context or {})
    advance = Advance(run=run)
    if superseded:
        advance.lines.append(text(lang, "superseded"))
    if not plan.read:
        return _unread(advance, agent)
    return run_advance(run.id, advance=advance, withdrawn=withdrawn)


@transaction.atomic
def _run_create(
    *, thread: Thread, agent: AgentSpec, text_: str, language: str, plan: Plan, context: dict[str, Any]
) -> tuple[Run, list[str]]:
    superseded = _supersede_open(thread)
    run = Run.objects.create(
        id=new_id("r"), thread=thread, agent=agent.name, language=language, text=text_,
        plan=plan.to_json(), context=context,
    )
    message = Message.objects.create(
        id=new_id("m"), thread=thread, run=run, role=Message.Role.PERSON, text=text_, language=language
    )
    event_append(thread.id, "turn", {"run": run.id, "message": message.id, "text": text_, "language": language,
                                     "superseded": superseded})
    steps_create(run, list(plan.calls), agent.tool_map)
    return run, superseded


def steps_create(run: Run, calls: list[Call], tools: dict[str, Tool]) -> None:
    """The plan's (or the model's) calls as steps, numbered after any the run has."""
    offset = run.steps.count()
    for call in calls:
        tool = tools.get(call.tool)
        Step.objects.create(
            run=run, index=offset + call.step, tool=call.tool, kind=tool.kind if tool else "write",
            arguments=[_renumbered(a.to_json(), offset) for a in call.arguments],
        )


def _renumbered(arg: dict[str, Any], offset: int) -> dict[str, Any]:
    origin = str(arg.get("origin", ""))
    if offset and origin.startswith("result:") and origin[7:].isdigit():
        arg["origin"] = f"result:{int(origin[7:]) + offset}"
    return arg


def _supersede_open(thread: Thread) -> list[str]:
    """A new turn closes what waits (SPEC §7.2): answering it later is stale."""
    open_ = list(Interrupt.objects.select_for_update().filter(thread=thread, status=Interrupt.Status.OPEN))
    now = timezone.now()
    closed = []
    for pause in open_:
        claimed = Interrupt.objects.filter(pk=pause.pk, status=Interrupt.Status.OPEN).update(
            status=Interrupt.Status.SUPERSEDED, answered_at=now
        )
        if not claimed:
            continue
        closed.append(pause.id)
        Step.objects.filter(run_id=pause.run_id, status__in=[Step.Status.WAITING, Step.Status.PLANNED]).update(
            status=Step.Status.SUPERSEDED
        )
        Run.objects.filter(pk=pause.run_id, status=Run.Status.WAITING).update(status=Run.Status.SUPERSEDED)
        event_append(thread.id, "answered", {"interrupt": pause.id, "status": "superseded"})
    return closed


def _unread(advance: Advance, agent: AgentSpec) -> Advance:
    run = advance.run
    if agent.on_unread == "ask":
        from threads.pauses import pause_open

        with transaction.atomic():
            pause_open(run=run, step=None, kind=Interrupt.Kind.DELEGATE, tool="", payload={
                "question": text(run.language, "delegate"), "arguments": [], "reasons": ["unread"],
                "irreversible": False,
            })
            Run.objects.filter(pk=run.id).update(status=Run.Status.WAITING)
        advance.lines.append(text(run.language, "delegate"))
    else:
        _run_finish(run, Run.Status.DONE)
        advance.lines.append(text(run.language, "unread"))
    return reply_write(advance)


# --- advancing --------------------------------------------------------------------


def run_advance(run_id: str, *, advance: Advance | None = None, withdrawn: frozenset[str] | None = None) -> Advance:
    """Take the run's steps in order until one waits or all are done."""
    run = Run.objects.get(pk=run_id)
    advance = advance or Advance(run=run)
    advance.run = run
    agent = registry.get_agent(run.agent)
    if withdrawn is None:
        withdrawn = registry.withdrawn_tools(agent)
    first = True
    while True:
        if not first:
            run.refresh_from_db()
        first = False
        if run.status in (Run.Status.CANCELLED, Run.Status.SUPERSEDED):
            break
        step = run.steps.exclude(status__in=FINISHED).order_by("index").first()
        if step is None:
            _run_finish(run, Run.Status.DONE)
            break
        if step.status == Step.Status.WAITING:
            break  # something waits for a person
        if step.status == Step.Status.RUNNING:
            # A worker died mid-call: the effect is unknown. Never resend blindly.
            _outcome_unknown(run, step, agent.tool(step.tool), advance, "the worker stopped mid-call")
            break
        if step.status == Step.Status.APPROVED:
            if step.tool in withdrawn:
                # Withdrawn while it waited: refused before anything else, even an approval.
                _refuse(run, step, "withdrawn", SENTENCE_WITHDRAWN.format(tool=step.tool), advance)
                continue
            if not _execute(run, step, agent, advance):
                break
            continue
        if not _decide(run, step, agent, withdrawn, advance):
            break
    return reply_write(advance)


def _decide(run: Run, step: Step, agent: AgentSpec, withdrawn: frozenset[str], advance: Advance) -> bool:
    """Check a planned step; run it, refuse it or pause it. True to go on."""
    from threads.pauses import pause_open

    lang = run.language
    tool = agent.tool(step.tool)
    # An argument the turn left out: ask for it first (SPEC §5, §7.5).
    ask = _pending_ask(run, step, agent)
    if ask is not None:
        with transaction.atomic():
            pause_open(run=run, step=step, kind=Interrupt.Kind.ASK, tool=step.tool, payload=ask)
            _step_set(step, Step.Status.WAITING)
            Run.objects.filter(pk=run.id).update(status=Run.Status.WAITING)
        advance.lines.append(text(lang, "waiting_ask", prompt=ask["question"]))
        return False
    arguments, missing_from = _resolve(run, step, tool)
    if missing_from is not None:
        _refuse(run, step, "dependency", text(lang, "dependency", tool=step.tool, step=missing_from), advance)
        return True
    untrusted: set[int] = set()
    if run.tainted_by:  # results of reads_outside tools exist only once the run is tainted
        untrusted = set(
            run.steps.filter(status=Step.Status.SUCCEEDED, tool__in=run.tainted_by).values_list("index", flat=True)
        )
    verdict = check_call(
        name=step.tool, tool=tool, arguments=arguments, withdrawn=withdrawn,
        tainted_by=run.tainted_by, untrusted_steps=untrusted,
    )
    if verdict.action == "refuse":
        _refuse(run, step, verdict.rule, verdict.sentence, advance)
        return True
    step.arguments = [a.to_json() for a in arguments]
    step.reasons = list(verdict.reasons)
    step.irreversible = verdict.irreversible
    if verdict.action == "confirm":
        assert tool is not None
        with transaction.atomic():
            pause_open(run=run, step=step, kind=Interrupt.Kind.CONFIRM, tool=step.tool, payload={
                "question": tool.confirm or text(lang, "confirm_question", tool=step.tool),
                "arguments": _shown(step.arguments, tool),
                "reasons": list(verdict.reasons),
                "irreversible": verdict.irreversible,
            })
            _step_set(step, Step.Status.WAITING)
            Run.objects.filter(pk=run.id).update(status=Run.Status.WAITING)
        advance.lines.append(text(lang, "waiting_confirm", tool=step.tool))
        return False
    return _execute(run, step, agent, advance)


def _shown(arguments: list[dict[str, Any]], tool: Tool) -> list[dict[str, Any]]:
    """The arguments a person sees: sorted by name, without engine-filled ones."""
    hidden = {tool.idempotency.get("argument")} if tool.idempotency else set()
    shown = [{"name": a["name"], "value": a.get("value"), "origin": a.get("origin", "typed")}
             for a in arguments if a["name"] not in hidden]
    return sorted(shown, key=lambda a: a["name"])


def _pending_ask(run: Run, step: Step, agent: AgentSpec) -> dict[str, Any] | None:
    """The first unanswered question for this step: the plan's, then, once a
    person picked the tool, one for each required argument it still lacks."""
    have = {a["name"] for a in step.arguments}
    for ask in run.plan.get("asks", []):
        if ask.get("step") != step.index:
            continue
        if ask.get("argument") is None and step.tool:
            continue  # a choice between tools, already answered
        if ask.get("argument") is not None and ask["argument"] in have:
            continue
        return _ask_payload(dict(ask["question"]), ask.get("argument"), list(ask.get("tools") or []))
    if step.tool and agent.tool(step.tool) is not None:
        missing = registry.selector_for(agent).questions_for(step.tool, have, language=run.language)
        if missing:
            argument, question = missing[0]
            return _ask_payload(question, argument, [])
    return None


def _ask_payload(question: dict[str, Any], argument: str | None, tools: list[str]) -> dict[str, Any]:
    return {"question": question.get("prompt", ""), "ask": question, "argument": argument, "tools": tools,
            "arguments": [], "reasons": ["ask"], "irreversible": False}


def _resolve(run: Run, step: Step, tool: Tool | None) -> tuple[list[Argument], int | None]:
    """Arguments with ``result:<step>`` values filled from earlier results.

    Returns the step whose result is missing, if any.
    """
    out = []
    for raw in step.arguments:
        arg = Argument.from_json(raw)
        if arg.origin.startswith("result:") and arg.value is None:
            try:
                source_index = int(arg.origin.split(":", 1)[1])
            except ValueError:
                return [], 0
            source = run.steps.filter(index=source_index).first()
            if source is None or source.status != Step.Status.SUCCEEDED:
                return [], source_index
            value = _field(source.result, arg.field or arg.name)
            if value is None:
                return [], source_index
            # An earlier result's "99.90" takes this schema's type (a number: 99.9).
            value = _coerce(tool, [Argument(arg.name, value)])[arg.name]
            arg = Argument(arg.name, value, arg.origin, arg.field)
        out.append(arg)
    return out, None


def _field(result: Any, name: str) -> Any:
    for part in name.split("."):
        if not isinstance(result, dict):
            return None
        result = result.get(part)
    return result


def _coerce(tool: Tool | None, arguments: list[Argument]) -> dict[str, Any]:
    """Values as the schema types them (a total "40.00" becomes 40.0 for a number)."""
    props = tool.properties if tool else {}
    values: dict[str, Any] = {}
    for arg in arguments:
        value = arg.value
        kind = (props.get(arg.name) or {}).get("type")
        if kind in ("number", "integer") and isinstance(value, str):
            try:
                num = float(value)
                value = int(num) if kind == "integer" or num.is_integer() else num
            except ValueError:
                pass
        elif kind == "string" and isinstance(value, (int, float)) and not isinstance(value, bool):
            value = str(value)
        values[arg.name] = value
    return values


# --- executing ----------------------------------------------------------------------


def _execute(run: Run, step: Step, agent: AgentSpec, advance: Advance) -> bool:
    """Run one step's call. True to go on with the next step."""
    lang = run.language
    tool = agent.tool(step.tool)
    if tool is None:  # gone from the agent file since it was planned
        _refuse(run, step, "unknown_tool", SENTENCE_UNKNOWN.format(tool=step.tool), advance)
        return True
    arguments, _ = _resolve(run, step, tool)
    values = _coerce(tool, arguments)
    receipt = None
    key = None
    if tool.is_write:
        receipt = _receipt_before_send(run, step, tool, values, agent)
        key = receipt.idempotency_key or None
        if key and tool.idempotency and tool.idempotency.get("argument"):
            values[str(tool.idempotency["argument"])] = key
    with transaction.atomic():
        _step_set(step, Step.Status.RUNNING)
        event_append(run.thread_id, "step", _step_data(step))
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
        _outcome_unknown(run, step, tool, advance, outcome.error)
        return False
    with transaction.atomic():
        if outcome.ok:
            step.result = _jsonable(outcome.result)
            step.compensation = _compensation(tool, values, step.result)
            _step_set(step, Step.Status.SUCCEEDED)
            if tool.reads_outside and tool.name not in run.tainted_by:
                run.tainted_by = [*run.tainted_by, tool.name]
                run.save(update_fields=["tainted_by", "updated_at"])
        else:
            step.error = outcome.error
            _step_set(step, Step.Status.FAILED)
        event_append(run.thread_id, "step", _step_data(step))
    if outcome.ok:
        key_ = "done_write" if tool.is_write else "done_read"
        advance.lines.append(text(lang, key_, tool=tool.name, result=describe_result(step.result)))
    else:
        advance.lines.append(text(lang, "failed", tool=tool.name, error=outcome.error))
    return True


def _receipt_before_send(run: Run, step: Step, tool: Tool, values: dict[str, Any], agent: AgentSpec) -> Receipt:
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


def _outcome_unknown(run: Run, step: Step, tool: Tool | None, advance: Advance, error: str) -> None:
    from threads.pauses import pause_open

    with transaction.atomic():
        step.error = error
        _step_set(step, Step.Status.WAITING)
        pause_open(run=run, step=step, kind=Interrupt.Kind.OUTCOME_UNKNOWN, tool=step.tool, payload={
            "question": text(run.language, "waiting_outcome", tool=step.tool),
            "arguments": _shown(step.arguments, tool) if tool else step.arguments,
            "reasons": ["outcome_unknown"],
            "irreversible": bool(tool and tool.irreversible),
        })
        Run.objects.filter(pk=run.id).update(status=Run.Status.WAITING)
    advance.lines.append(text(run.language, "waiting_outcome", tool=step.tool))


def _compensation(tool: Tool, values: dict[str, Any], result: Any) -> dict[str, Any] | None:
    """Register the undo with ``$args.<name>`` and ``$result.<name>`` resolved now (SPEC §8)."""
    comp = tool.compensation
    if not comp:
        return None
    resolved = {}
    for name, ref in dict(comp.get("arguments") or {}).items():
        if isinstance(ref, str) and ref.startswith("$args."):
            resolved[name] = values.get(ref[len("$args."):])
        elif isinstance(ref, str) and ref.startswith("$result."):
            resolved[name] = _field(result, ref[len("$result."):])
        else:
            resolved[name] = ref
    return {"tool": comp["tool"], "arguments": resolved}


def _jsonable(value: Any) -> Any:
    import json

    return json.loads(json.dumps(value, default=str))


# --- state helpers ------------------------------------------------------------------


def _step_set(step: Step, status: str, *, rule: str = "", sentence: str = "") -> None:
    step.status = status
    fields = ["status", "arguments", "reasons", "irreversible", "updated_at"]
    if rule:
        step.rule, step.sentence = rule, sentence
        fields += ["rule", "sentence"]
    if step.result is not None:
        fields.append("result")
    if step.error:
        fields.append("error")
    if step.compensation is not None:
        fields.append("compensation")
    step.save(update_fields=fields)


def _run_finish(run: Run, status: str) -> None:
    with transaction.atomic():
        Run.objects.filter(pk=run.id).update(status=status, updated_at=timezone.now())
        run.status = status


def _refuse(run: Run, step: Step, rule: str, sentence: str, advance: Advance) -> None:
    with transaction.atomic():
        _step_set(step, Step.Status.REFUSED, rule=rule, sentence=sentence)
        event_append(run.thread_id, "refused", _refusal(step))
    advance.lines.append(sentence)


def _refusal(step: Step) -> dict[str, Any]:
    return {"step": step.index, "tool": step.tool, "rule": step.rule, "sentence": step.sentence}


def _step_data(step: Step) -> dict[str, Any]:
    return {"step": step.index, "tool": step.tool, "status": step.status, "arguments": step.arguments,
            "result": step.result, "error": step.error or None}


@transaction.atomic
def reply_write(advance: Advance) -> Advance:
    """The assistant's message for what this call did (SPEC §10's ``reply``)."""
    run = advance.run
    lines = advance.lines or [text(run.language, "nothing")]
    message = Message.objects.create(
        id=new_id("m"), thread_id=run.thread_id, run=run, role=Message.Role.ASSISTANT,
        text="\n".join(lines), language=run.language,
    )
    event_append(run.thread_id, "reply", {"run": run.id, "message": message.id, "text": message.text})
    advance.reply = message
    return advance
