"""The model hand-off of an unread turn, once a person said ``approve``.

The turn, the conversation so far and the catalogue minus withdrawn tools go
to the agent's model (``catalogue.llm.delegate``). What comes back:
calls -> steps whose arguments have origin ``model``, decided by the same
check (so a write pauses with ``argument_origin`` reasons); a ``clarify``
question -> an ``ask`` pause whose answer goes back to the model; plain text
-> the reply; an error (no model, no key, a model that fails or times out)
-> its one sentence as the reply, and nothing lost.

The worker asking the model holds the run's lease (taken with the answer's
claim, ``lease.run_lease_take``); what the model said is recorded only while
it still does. If it died meanwhile, a sweep takes the lease over and asks the
model again (``reconcile.stranded_runs``): asking has no effect of its own.
"""

from __future__ import annotations

import logging
from typing import Any

from catalogue import registry
from catalogue.llm import delegate
from threads.engine.advance import run_advance
from threads.engine.lease import run_lease_forget, run_lease_release
from threads.engine.lifecycle import run_status_set
from threads.engine.pauses import pause_open
from threads.engine.progress import Progress
from threads.engine.replies import reply_write
from threads.engine.steps import steps_create
from threads.engine.unit import unit
from threads.models import Interrupt, Message, Run

log = logging.getLogger("stalwart.engine")

HISTORY_MESSAGES = 20


def delegate_run(progress: Progress) -> Progress:
    """Ask the model, holding the run's lease, and carry the run on with what it said."""
    try:
        return _delegate(progress)
    finally:
        run_lease_forget(progress.run)


def _delegate(progress: Progress) -> Progress:
    run = progress.run
    agent = registry.get_agent(run.agent)
    withdrawn = registry.withdrawn_tools(agent)
    tools = [t for t in agent.tools if t.name not in withdrawn]
    config = agent.model
    history, turn = _history(run), run.text
    asked = _asked(run)
    if asked:  # the turn, each question and answer in order; the last answer is said last
        history, turn = [*history, {"role": "user", "content": run.text}, *asked[:-1]], asked[-1]["content"]
    answer = delegate(config, turn=turn, history=history, tools=tools, language=run.language)
    if not answer.ok or (answer.question is None and not answer.calls):  # a sentence, and the run is done
        with unit(run.thread_id, notices=progress.notices) as u:
            if not run_lease_release(run):
                return _taken_over(progress)
            run_status_set(run, Run.Status.DONE)
            progress.lines.append(answer.detail if not answer.ok else answer.text or answer.detail)
            return reply_write(u, progress)
    if answer.question is not None:
        question = dict(answer.question)
        with unit(run.thread_id, notices=progress.notices) as u:
            if not run_lease_release(run):
                return _taken_over(progress)
            asked_before = run.interrupts.filter(kind=Interrupt.Kind.ASK).count()
            pause_open(u, run=run, step=None, kind=Interrupt.Kind.ASK, tool="", generation=asked_before, payload={
                "question": question.get("prompt", ""), "ask": question, "argument": None, "tools": [],
                "delegate": True, "arguments": [], "reasons": ["ask"], "irreversible": False,
            })
            progress.lines.append(str(question.get("prompt", "")))
            return reply_write(u, progress)
    with unit(run.thread_id, notices=progress.notices):
        if not run_lease_release(run):
            return _taken_over(progress)
        steps_create(run, list(answer.calls), agent.tool_map)
    if answer.detail:
        progress.lines.append(answer.detail)
    return run_advance(progress)


def _taken_over(progress: Progress) -> Progress:
    """A sweep took the run over while the model was asked (this worker's
    heartbeat lapsed): the sweep asks again and replies; this answer says nothing."""
    log.warning("run %s was taken over while its model was asked; what the model said is left out",
                progress.run.id)
    return progress


def _asked(run: Run) -> list[dict[str, str]]:
    """The model's earlier questions in this run, each with the person's answer."""
    out = []
    for pause in run.interrupts.filter(kind=Interrupt.Kind.ASK, status=Interrupt.Status.ANSWERED).order_by("answered_at"):
        if pause.payload.get("delegate"):
            answer = pause.answer or {}
            said = answer.get("text") if answer.get("kind") == "open" else _choice(pause.payload, answer)
            out += [{"role": "assistant", "content": str(pause.payload.get("question", ""))},
                    {"role": "user", "content": str(said)}]
    return out


def _choice(payload: dict[str, Any], answer: dict[str, Any]) -> str:
    choices = (payload.get("ask") or {}).get("choices") or []
    index = answer.get("index")
    return str(choices[index]) if isinstance(index, int) and 0 <= index < len(choices) else ""


def _history(run: Run) -> list[dict[str, str]]:
    """The conversation before this run's turn, oldest first."""
    earlier = (
        Message.objects.filter(thread_id=run.thread_id, created_at__lt=run.created_at)
        .order_by("-created_at")[:HISTORY_MESSAGES]
    )
    roles = {Message.Role.PERSON: "user", Message.Role.ASSISTANT: "assistant"}
    return [{"role": roles[m.role], "content": m.text} for m in reversed(list(earlier))]
