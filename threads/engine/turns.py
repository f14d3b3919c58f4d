"""A person's turn: the thread opened (or found), what waited set aside, the
turn planned into a new run, and the run advanced (SPEC §5, §7.2)."""

from __future__ import annotations

import secrets
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from catalogue import registry
from catalogue.agentfile import AgentSpec
from catalogue.plan import Plan
from threads.engine.advance import run_advance
from threads.engine.events import EventType, event_append
from threads.engine.lifecycle import Advance, new_id, run_status_set, steps_supersede
from threads.engine.pauses import pause_open
from threads.engine.replies import reply_write
from threads.engine.steps import steps_create
from threads.errors import NotFound
from threads.models import Interrupt, Message, Run, Thread
from threads.texts import text


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


def turn_submit(
    *,
    thread_id: str,
    session_hash: str,
    text_: str,
    language: str | None = None,
    context: dict[str, Any] | None = None,
    privileges: list[str] | tuple[str, ...] = (),
    agent_name: str | None = None,
) -> Advance:
    agent = registry.get_agent(agent_name)
    thread = thread_open(thread_id=thread_id, session_hash=session_hash, agent=agent.name)
    lang = registry.choose_language(agent, language)
    withdrawn = registry.withdrawn_tools(agent)
    if agent.steps:  # the team's own steps replace the selector (SPEC §7.3)
        plan = Plan(language=lang, read=True)
    else:
        plan = registry.selector_for(agent).plan(text_, language=lang, context=context or {}, exclude=withdrawn)
    run, superseded = run_create(thread=thread, agent=agent, text_=text_, language=lang, plan=plan,
                                 context=context or {}, privileges=list(privileges))
    advance = Advance(run=run)
    if superseded:
        advance.lines.append(text(lang, "superseded"))
    if not plan.read:
        return _unread(advance, agent)
    return run_advance(run.id, advance=advance, withdrawn=withdrawn)


@transaction.atomic
def run_create(
    *, thread: Thread, agent: AgentSpec, text_: str, language: str, plan: Plan, context: dict[str, Any],
    privileges: list[str] | None = None,
) -> tuple[Run, list[str]]:
    superseded = _supersede_open(thread)
    run = Run.objects.create(
        id=new_id("r"), thread=thread, agent=agent.name, language=language, text=text_,
        plan={**plan.to_json(), **({"steps": agent.steps} if agent.steps else {})}, context=context,
        privileges=sorted(set(privileges or [])),
    )
    message = Message.objects.create(
        id=new_id("m"), thread=thread, run=run, role=Message.Role.PERSON, text=text_, language=language
    )
    event_append(thread.id, EventType.TURN, {"run": run.id, "message": message.id, "text": text_,
                                             "language": language, "superseded": superseded})
    steps_create(run, list(plan.calls), agent.tool_map)
    return run, superseded


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
        steps_supersede(pause.run_id)
        run_status_set(pause.run_id, Run.Status.SUPERSEDED, only_from=[Run.Status.WAITING])
        event_append(thread.id, EventType.ANSWERED, {"interrupt": pause.id, "status": "superseded"})
    return closed


def _unread(advance: Advance, agent: AgentSpec) -> Advance:
    run = advance.run
    if agent.on_unread == "ask":
        pause_open(run=run, step=None, kind=Interrupt.Kind.DELEGATE, tool="", payload={
            "question": text(run.language, "delegate"), "arguments": [], "reasons": ["unread"],
            "irreversible": False,
        })
        advance.lines.append(text(run.language, "delegate"))
    else:
        run_status_set(run, Run.Status.DONE)
        advance.lines.append(text(run.language, "unread"))
    return reply_write(advance)
