"""Advancing a run: its steps in order, each checked, run, refused or paused."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction

from catalogue import registry
from catalogue.agentfile import AgentSpec
from catalogue.check import SENTENCE_WITHDRAWN, check_call
from threads.engine.events import events_batched
from threads.engine.execute import Prepared, Sent, prepared_send, sent_record, step_prepare, step_refuse
from threads.engine.lifecycle import FINISHED, Advance, Held, run_status_set
from threads.engine.pauses import pause_open
from threads.engine.teamsteps import flow_advance
from threads.engine.values import resolve, shown
from threads.engine.views import reply_and_view, steps_read
from threads.models import Interrupt, Receipt, Run, Step
from threads.texts import text


def run_advance(run_id: str, *, advance: Advance | None = None, withdrawn: frozenset[str] | None = None,
                run: Run | None = None, prepared: Prepared | None = None) -> Advance:
    """Take the run's steps in order until one waits or all are done.

    One transaction per call sent: what a call did is recorded together with
    the decisions that follow it (the next step refused, paused, or claimed
    with its receipt stored), and the reply is written in the last one. Calls
    are sent between transactions, never inside one. ``prepared`` is a step
    the caller claimed in its own transaction (already committed): it is sent
    first.
    """
    run = run or Run.objects.get(pk=run_id)
    if run.plan.get("steps"):  # a team's own steps function (SPEC §7.3), replayed from its journal
        return flow_advance(run_id, advance=advance, withdrawn=withdrawn, run=run)
    advance = advance or Advance(run=run)
    advance.run = run
    agent = registry.get_agent(run.agent)
    if withdrawn is None:
        withdrawn = registry.withdrawn_tools(agent)
    if prepared is None:
        with transaction.atomic(), events_batched():
            prepared = advance_segment(run, agent, withdrawn, advance)
            if prepared is None:
                reply_and_view(advance)
                return advance
    while True:
        advance.sent = True
        sent = prepared_send(agent, prepared)
        with transaction.atomic(), events_batched():
            # One read: the run (a new turn or a cancel may have come while the call
            # ran) and its steps, kept current in memory for the next step and the answer.
            held = sent_held(run, sent)
            prepared = None
            if sent_record(run, agent, sent, advance):
                receipt = sent.prepared.receipt
                if receipt is not None and receipt.verdict not in ("", Receipt.Verdict.PENDING):
                    held.verdicts[sent.prepared.step.pk] = receipt.verdict
                advance.held = held
                prepared = advance_segment(run, agent, withdrawn, advance, steps=held.steps)
            if prepared is None:
                reply_and_view(advance)
                return advance
            advance.held = None


def sent_held(run: Run, sent: Sent) -> Held:
    """The run made current and its steps read in one statement, the sent step
    among them as this worker holds it in memory."""
    steps, verdicts = steps_read(run, run_too=True)
    mine = sent.prepared.step
    for i, step in enumerate(steps):
        if step.pk == mine.pk:
            steps[i] = mine
    return Held(steps, verdicts)


def advance_segment(run: Run, agent: AgentSpec, withdrawn: frozenset[str], advance: Advance,
                    steps: list[Step] | None = None, first: Step | None = None,
                    first_from: str | None = None) -> Prepared | None:
    """Inside the caller's transaction: decide the run's next steps until one
    waits, all are done, or one must be sent; that one is returned claimed,
    its receipt stored (``execute.step_prepare``). ``steps`` are the run's
    steps when the caller holds them all (a run just made); ``first`` is the
    step the run waited on, just answered (every earlier one is finished);
    ``first_from``: the status ``first`` still has in the database when the
    caller changed it in memory only (an approval, saved by the claim)."""
    while True:
        if run.status in (Run.Status.CANCELLED, Run.Status.SUPERSEDED):
            return None
        stored = None
        if first is not None and first.status not in FINISHED:
            step, first, stored = first, None, first_from
        elif steps is not None:
            step = min((s for s in steps if s.status not in FINISHED), key=lambda s: s.index, default=None)
        else:
            step = run.steps.exclude(status__in=FINISHED).order_by("index").first()
        if step is None:
            run_status_set(run, Run.Status.DONE)
            return None
        if step.status == Step.Status.WAITING:
            return None  # something waits for a person
        if step.status == Step.Status.RUNNING:
            # Its worker carries it on; if that worker died, the sweep finds its
            # lapsed lease (threads.engine.reconcile). Never resent from here.
            return None
        if step.status == Step.Status.APPROVED:
            if step.tool in withdrawn:
                # Withdrawn while it waited: refused before anything else, even an approval.
                step_refuse(run, step, "withdrawn", SENTENCE_WITHDRAWN.format(tool=step.tool), advance)
                continue
            go = step_prepare(run, step, agent, advance, stored=stored)
        else:
            go = step_decide(run, step, agent, withdrawn, advance)
        if isinstance(go, Prepared):
            return go
        if not go:
            return None


@dataclass
class Decision:
    """What the check made of a planned step, before anything is written:
    ``ask`` (``payload``), ``refuse`` (``rule``, ``sentence``), ``confirm``
    (``payload``) or ``go``."""

    action: str
    payload: dict[str, Any] | None = None
    rule: str = ""
    sentence: str = ""

    @property
    def pauses(self) -> bool:
        return self.action in ("ask", "confirm")


def step_decide(run: Run, step: Step, agent: AgentSpec, withdrawn: frozenset[str],
                advance: Advance) -> Prepared | bool:
    """Check a planned step; claim it to run, refuse it or pause it. True to go on."""
    return step_apply(run, step, agent, advance, step_check(run, step, agent, withdrawn))


def step_check(run: Run, step: Step, agent: AgentSpec, withdrawn: frozenset[str]) -> Decision:
    """The check of a planned step, writing nothing; a step that passes it (to
    run or to confirm) has its resolved arguments, reasons and irreversibility
    set on it in memory. Reads the database only for results of earlier steps."""
    lang = run.language
    tool = agent.tool(step.tool)
    # An argument the turn left out: ask for it first (SPEC §5, §7.5).
    ask = pending_ask(run, step, agent)
    if ask is not None:
        return Decision("ask", payload=ask)
    arguments, missing_from = resolve(run, step, tool)
    if missing_from is not None:
        return Decision("refuse", rule="dependency",
                        sentence=text(lang, "dependency", tool=step.tool, step=missing_from))
    untrusted: set[int] = set()
    if run.tainted_by:  # results of reads_outside tools exist only once the run is tainted
        untrusted = set(
            run.steps.filter(status=Step.Status.SUCCEEDED, tool__in=run.tainted_by).values_list("index", flat=True)
        )
    verdict = check_call(
        name=step.tool, tool=tool, arguments=arguments, withdrawn=withdrawn, privileges=run.privileges,
        tainted_by=run.tainted_by, untrusted_steps=untrusted,
    )
    if verdict.action == "refuse":
        return Decision("refuse", rule=verdict.rule, sentence=verdict.sentence)
    step.arguments = [a.to_json() for a in arguments]
    step.reasons = list(verdict.reasons)
    step.irreversible = verdict.irreversible
    if verdict.action == "confirm":
        assert tool is not None
        return Decision("confirm", payload={
            "question": tool.confirm or text(lang, "confirm_question", tool=step.tool),
            "arguments": shown(step.arguments, tool),
            "reasons": list(verdict.reasons),
            "irreversible": verdict.irreversible,
        })
    return Decision("go")


def step_apply(run: Run, step: Step, agent: AgentSpec, advance: Advance, decision: Decision,
               stored_waiting: bool = False) -> Prepared | bool:
    """Carry out ``decision`` on the step: a pause opened, a refusal, or the
    step claimed to run. ``stored_waiting``: the run and step rows were
    inserted already waiting (a new run's first pause, ``turns.run_create``)."""
    lang = run.language
    if decision.action == "refuse":
        step_refuse(run, step, decision.rule, decision.sentence, advance)
        return True
    if decision.pauses:
        assert decision.payload is not None
        kind = Interrupt.Kind.ASK if decision.action == "ask" else Interrupt.Kind.CONFIRM
        pause_open(run=run, step=step, kind=kind, tool=step.tool, payload=decision.payload,
                   fresh=advance.steps is not None, advance=advance, stored_waiting=stored_waiting)
        advance.lines.append(text(lang, "waiting_ask", prompt=decision.payload["question"]) if decision.action == "ask"
                             else text(lang, "waiting_confirm", tool=step.tool))
        return False
    return step_prepare(run, step, agent, advance)


def pending_ask(run: Run, step: Step, agent: AgentSpec) -> dict[str, Any] | None:
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
        return ask_payload(dict(ask["question"]), ask.get("argument"), list(ask.get("tools") or []))
    if step.tool and agent.tool(step.tool) is not None:
        missing = registry.selector_for(agent).questions_for(step.tool, have, language=run.language)
        if missing:
            argument, question = missing[0]
            return ask_payload(question, argument, [])
    return None


def ask_payload(question: dict[str, Any], argument: str | None, tools: list[str]) -> dict[str, Any]:
    return {"question": question.get("prompt", ""), "ask": question, "argument": argument, "tools": tools,
            "arguments": [], "reasons": ["ask"], "irreversible": False}
