"""Advancing a run: its steps in order, each checked, run, refused or paused."""

from __future__ import annotations

from typing import Any

from catalogue import registry
from catalogue.agentfile import AgentSpec
from catalogue.check import SENTENCE_WITHDRAWN, check_call
from threads.engine.execute import step_execute, step_refuse
from threads.engine.lifecycle import FINISHED, Advance, run_status_set
from threads.engine.pauses import pause_open
from threads.engine.replies import reply_write
from threads.engine.teamsteps import flow_advance
from threads.engine.values import resolve, shown
from threads.models import Interrupt, Run, Step
from threads.texts import text


def run_advance(run_id: str, *, advance: Advance | None = None, withdrawn: frozenset[str] | None = None) -> Advance:
    """Take the run's steps in order until one waits or all are done."""
    run = Run.objects.get(pk=run_id)
    if run.plan.get("steps"):  # a team's own steps function (SPEC §7.3), replayed from its journal
        return flow_advance(run_id, advance=advance, withdrawn=withdrawn, run=run)
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
            run_status_set(run, Run.Status.DONE)
            break
        if step.status == Step.Status.WAITING:
            break  # something waits for a person
        if step.status == Step.Status.RUNNING:
            # Its worker carries it on; if that worker died, the sweep finds its
            # lapsed lease (threads.engine.reconcile). Never resent from here.
            break
        if step.status == Step.Status.APPROVED:
            if step.tool in withdrawn:
                # Withdrawn while it waited: refused before anything else, even an approval.
                step_refuse(run, step, "withdrawn", SENTENCE_WITHDRAWN.format(tool=step.tool), advance)
                continue
            if not step_execute(run, step, agent, advance):
                break
            continue
        if not step_decide(run, step, agent, withdrawn, advance):
            break
    return reply_write(advance)


def step_decide(run: Run, step: Step, agent: AgentSpec, withdrawn: frozenset[str], advance: Advance) -> bool:
    """Check a planned step; run it, refuse it or pause it. True to go on."""
    lang = run.language
    tool = agent.tool(step.tool)
    # An argument the turn left out: ask for it first (SPEC §5, §7.5).
    ask = pending_ask(run, step, agent)
    if ask is not None:
        pause_open(run=run, step=step, kind=Interrupt.Kind.ASK, tool=step.tool, payload=ask)
        advance.lines.append(text(lang, "waiting_ask", prompt=ask["question"]))
        return False
    arguments, missing_from = resolve(run, step, tool)
    if missing_from is not None:
        step_refuse(run, step, "dependency", text(lang, "dependency", tool=step.tool, step=missing_from), advance)
        return True
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
        step_refuse(run, step, verdict.rule, verdict.sentence, advance)
        return True
    step.arguments = [a.to_json() for a in arguments]
    step.reasons = list(verdict.reasons)
    step.irreversible = verdict.irreversible
    if verdict.action == "confirm":
        assert tool is not None
        pause_open(run=run, step=step, kind=Interrupt.Kind.CONFIRM, tool=step.tool, payload={
            "question": tool.confirm or text(lang, "confirm_question", tool=step.tool),
            "arguments": shown(step.arguments, tool),
            "reasons": list(verdict.reasons),
            "irreversible": verdict.irreversible,
        })
        advance.lines.append(text(lang, "waiting_confirm", tool=step.tool))
        return False
    return step_execute(run, step, agent, advance)


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
