"""Advancing a run: its steps in order, each checked, then run, refused or paused.

``run_advance`` is one call's carrying on of a run of planned steps: one unit
of work per stretch between two calls sent. In each, ``advance_segment`` takes
the run's next steps in order (the check decides each: refuse it, pause it, or
claim it to run with its receipt stored) until one waits, all are done, or one
must be sent; the claimed one is sent after the unit commits, and its outcome
is recorded in the next unit with the decisions that follow it. The reply is
written in the last one. A team's own steps function (docs/agent-file.md, "Team
steps (steps:)") is carried on by ``teamsteps.flow_advance`` instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from catalogue import registry
from catalogue.agentfile import AgentSpec
from catalogue.check import SENTENCE_WITHDRAWN
from threads.engine.checks import call_check, confirm_line, confirm_payload
from threads.engine.execute import Prepared, prepared_send, sent_record, step_prepare, step_refuse
from threads.engine.lifecycle import FINISHED, run_status_set
from threads.engine.pauses import pause_open
from threads.engine.progress import Progress
from threads.engine.reads import steps_read
from threads.engine.replies import reply_write
from threads.engine.teamsteps import flow_advance
from threads.engine.unit import Unit, unit
from threads.engine.values import resolve
from threads.models import Interrupt, Run, Step
from threads.texts import refusal, said, text


def run_advance(progress: Progress, *, prepared: Prepared | None = None) -> Progress:
    """Take the run's steps in order until one waits or all are done.

    ``prepared``: a step the caller claimed in its own unit (committed): it
    is sent first. Calls are sent between units, never inside one."""
    run = progress.run
    if run.plan.get("steps"):  # a team's own steps function (docs/agent-file.md), replayed from its journal
        return flow_advance(progress)
    agent = registry.get_agent(run.agent)
    withdrawn = registry.withdrawn_tools(agent)
    if prepared is None:
        with unit(run.thread_id, notices=progress.notices) as u:
            steps, _ = steps_read(run, run_too=True)
            prepared = advance_segment(u, progress, agent, withdrawn, steps)
            if prepared is None:
                reply_write(u, progress)
                return progress
    while True:
        sent = prepared_send(agent, prepared)
        with unit(run.thread_id, notices=progress.notices) as u:
            # The run made current (a new turn or a cancel may have come while the call
            # ran) and its steps, the sent one as this worker holds it (under its lease).
            mine = sent.prepared.step
            steps = [mine if s.pk == mine.pk else s for s in steps_read(run, run_too=True)[0]]
            prepared = None
            if sent_record(u, progress, agent, sent):
                prepared = advance_segment(u, progress, agent, withdrawn, steps)
            if prepared is None:
                reply_write(u, progress)
                return progress


def next_step(steps: list[Step]) -> Step | None:
    """The run's first step that needs something more."""
    return min((s for s in steps if s.status not in FINISHED), key=lambda s: s.index, default=None)


def advance_segment(u: Unit, progress: Progress, agent: AgentSpec, withdrawn: frozenset[str],
                    steps: list[Step], *, approved: Step | None = None) -> Prepared | None:
    """Inside ``u``: decide the run's next steps until one waits, all are
    done, or one must be sent; that one is returned claimed, its receipt
    stored (``execute.step_prepare``). ``steps``: the run's steps as this unit
    read (or made) them; they are kept current as the unit changes them.
    ``approved``: the run's next step, which a person approved in this unit
    and which is still stored ``waiting``: taken as approved, its approval
    written with its claim (or its refusal), one UPDATE."""
    run = progress.run
    while True:
        if run.status in (Run.Status.CANCELLED, Run.Status.SUPERSEDED):
            return None
        step = next_step(steps)
        if step is None:
            run_status_set(run, Run.Status.DONE)
            return None
        if step.status == Step.Status.WAITING and step is not approved:
            return None  # something waits for a person
        if step.status == Step.Status.RUNNING:
            # Its worker carries it on; if that worker died, the sweep finds its
            # lapsed lease (threads.engine.reconcile). Never resent from here.
            return None
        if step.status == Step.Status.APPROVED or step is approved:
            approved = None
            if step.tool in withdrawn:
                # Withdrawn while it waited: refused before anything else, even an approval.
                step_refuse(u, progress, step, "withdrawn", refusal(run, SENTENCE_WITHDRAWN, tool=step.tool))
                continue
            outcome = step_prepare(u, progress, step, agent)
        else:
            outcome = step_apply(u, progress, step, agent, step_check(run, step, agent, withdrawn))
        if isinstance(outcome, Prepared):
            return outcome
        if not outcome:
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


def step_check(run: Run, step: Step, agent: AgentSpec, withdrawn: frozenset[str]) -> Decision:
    """The check of a planned step, writing nothing; a step that passes it (to
    run or to confirm) has its resolved arguments, reasons and irreversibility
    set on it in memory. Reads the database only for results of earlier steps."""
    lang = run.language
    tool = agent.tool(step.tool)
    # An argument the turn left out: ask for it first (docs/http-api.md, "Questions (ask)").
    ask = pending_ask(run, step, agent)
    if ask is not None:
        return Decision("ask", payload=ask)
    arguments, missing_from = resolve(run, step, tool)
    if missing_from is not None:
        return Decision("refuse", rule="dependency",
                        sentence=text(lang, "dependency", tool=said(run, step.tool), step=missing_from))
    untrusted: set[int] = set()
    if run.tainted_by:  # results of reads_outside tools exist only once the run is tainted
        untrusted = set(
            run.steps.filter(status=Step.Status.SUCCEEDED, tool__in=run.tainted_by).values_list("index", flat=True)
        )
    verdict = call_check(run, step, agent, arguments, withdrawn, untrusted)
    if verdict.action == "refuse":
        return Decision("refuse", rule=verdict.rule, sentence=refusal(run, verdict.message, **verdict.params))
    step.arguments = [a.to_json() for a in arguments]
    step.reasons = list(verdict.reasons)
    step.irreversible = verdict.irreversible
    if verdict.action == "confirm":
        assert tool is not None
        return Decision("confirm", payload=confirm_payload(run, tool, step, verdict))
    return Decision("go")


def step_apply(u: Unit, progress: Progress, step: Step, agent: AgentSpec, decision: Decision) -> Prepared | bool:
    """Carry out the check's ``decision`` on a planned step: a pause opened, a
    refusal, or the step claimed to run. True to go on with the next step."""
    run = progress.run
    if decision.action == "refuse":
        step_refuse(u, progress, step, decision.rule, decision.sentence)
        return True
    if decision.pauses:
        assert decision.payload is not None
        kind = Interrupt.Kind.ASK if decision.action == "ask" else Interrupt.Kind.CONFIRM
        pause_open(u, run=run, step=step, kind=kind, tool=step.tool, payload=decision.payload)
        question = decision.payload["question"]
        progress.lines.append(text(run.language, "waiting_ask", prompt=question) if decision.action == "ask"
                              else confirm_line(run, decision.payload, question))
        return False
    return step_prepare(u, progress, step, agent)


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
