"""A person's turn: the thread opened (or found), what waited set aside, the
turn planned into a new run, and the run advanced (SPEC §5, §7.2)."""

from __future__ import annotations

import secrets
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from catalogue import registry
from catalogue.agentfile import AgentSpec
from catalogue.plan import Plan
from threads.engine.advance import Decision, advance_segment, run_advance, step_apply, step_check
from threads.engine.events import EventType, event_append, events_batched
from threads.engine.execute import Prepared
from threads.engine.lifecycle import Advance, new_id, run_status_set, steps_supersede
from threads.engine.pauses import pause_open
from threads.engine.steps import steps_build
from threads.engine.views import reply_and_view
from threads.errors import NotFound
from threads.models import Interrupt, Message, Run, Step, Thread
from threads.texts import text


def thread_open(*, thread_id: str, session_hash: str, agent: str) -> tuple[Thread, bool]:
    """The thread, opened by this session now or before (True when new now);
    another session's is a 404. One statement inside the turn's transaction
    (an INSERT ... ON CONFLICT DO UPDATE that returns the row), which also
    locks the thread's row: two turns of one thread take their turns, and two
    sessions opening the same new id at once get one thread and one 404."""
    now = timezone.now()
    table = connection.ops.quote_name(Thread._meta.db_table)
    stamp = connection.ops.adapt_datetimefield_value(now)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (id, session_hash, agent, event_seq, created_at, updated_at) "
            "VALUES (%s, %s, %s, 0, %s, %s) ON CONFLICT (id) DO UPDATE SET updated_at = excluded.updated_at "
            "RETURNING session_hash, agent, event_seq, CASE WHEN created_at = %s THEN 1 ELSE 0 END",
            [thread_id, session_hash, agent, stamp, stamp, stamp],
        )
        stored_hash, stored_agent, seq, created = cursor.fetchone()
    if not secrets.compare_digest(str(stored_hash), session_hash):
        raise NotFound()
    thread = Thread(id=thread_id, session_hash=stored_hash, agent=stored_agent, event_seq=seq, updated_at=now)
    thread._state.adding = False
    return thread, bool(created)


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
    """A turn: planned, then the thread, run, steps, what they decide (a pause,
    a refusal) and the reply written in one transaction; a call the turn must
    send is claimed in it and sent after (``run_advance``)."""
    agent = registry.get_agent(agent_name)
    lang = registry.choose_language(agent, language)
    withdrawn = registry.withdrawn_tools(agent)
    if agent.steps:  # the team's own steps replace the selector (SPEC §7.3)
        plan = Plan(language=lang, read=True)
    else:
        plan = registry.selector_for(agent).plan(text_, language=lang, context=context or {}, exclude=withdrawn)
    with transaction.atomic(), events_batched():
        advance, prepared = _turn_unit(thread_id, session_hash, text_, lang, plan, agent, withdrawn,
                                       context or {}, list(privileges))
    if advance.reply is not None:
        return advance
    return run_advance(advance.run.id, advance=advance, withdrawn=withdrawn, run=advance.run, prepared=prepared)


def _turn_unit(thread_id: str, session_hash: str, text_: str, lang: str, plan: Plan, agent: AgentSpec,
               withdrawn: frozenset[str], context: dict[str, Any],
               privileges: list[str]) -> tuple[Advance, Prepared | None]:
    thread, created = thread_open(thread_id=thread_id, session_hash=session_hash, agent=agent.name)
    run, superseded, steps, first = run_create(thread=thread, agent=agent, text_=text_, language=lang, plan=plan,
                                               context=context, privileges=privileges, new_thread=created,
                                               withdrawn=withdrawn)
    advance = Advance(run=run, steps=steps, waiting=[], view_wanted=True)
    if superseded:
        advance.lines.append(text(lang, "superseded"))
    if not plan.read:
        return _unread(advance, agent), None
    if run.plan.get("steps"):  # a team's steps function: replayed by run_advance, its pauses read back
        advance.steps = advance.waiting = None
        return advance, None
    # The first step was checked before the rows were stored: carry that out, then go on.
    go = True if first is None else step_apply(run, first[0], agent, advance, first[1],
                                               stored_waiting=first[1].pauses)
    if go is True:
        prepared = advance_segment(run, agent, withdrawn, advance, steps=steps)
    else:
        prepared = go if isinstance(go, Prepared) else None
    if prepared is None:
        reply_and_view(advance)
    return advance, prepared


@transaction.atomic(savepoint=False)
def run_create(
    *, thread: Thread, agent: AgentSpec, text_: str, language: str, plan: Plan, context: dict[str, Any],
    privileges: list[str] | None = None, new_thread: bool = False, withdrawn: frozenset[str] | None = None,
) -> tuple[Run, list[str], list[Step], tuple[Step, Decision] | None]:
    """The run, the person's message, its ``turn`` event and its steps.

    With ``withdrawn`` (a turn that will advance the run at once), the first
    step is checked before the rows are stored and the decision returned for
    the caller to carry out (``advance.step_apply``); when it pauses, the run
    and that step are stored already waiting, which saves updating them."""
    superseded = [] if new_thread else _supersede_open(thread)
    run = Run(
        id=new_id("r"), thread=thread, agent=agent.name, language=language, text=text_,
        plan={**plan.to_json(), **({"steps": agent.steps} if agent.steps else {})}, context=context,
        privileges=sorted(set(privileges or [])),
    )
    steps = steps_build(run, list(plan.calls), agent.tool_map, offset=0)
    first = None
    if withdrawn is not None and steps and plan.read and not agent.steps:
        step = min(steps, key=lambda s: s.index)
        first = (step, step_check(run, step, agent, withdrawn))
        if first[1].pauses:
            run.status, step.status = Run.Status.WAITING, Step.Status.WAITING
    run.save(force_insert=True)
    message = Message.objects.create(
        id=new_id("m"), thread=thread, run=run, role=Message.Role.PERSON, text=text_, language=language
    )
    event_append(thread.id, EventType.TURN, {"run": run.id, "message": message.id, "text": text_,
                                             "language": language, "superseded": superseded})
    if steps:
        Step.objects.bulk_create(steps)
    return run, superseded, steps, first


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
        pause_open(run=run, step=None, kind=Interrupt.Kind.DELEGATE, tool="", fresh=True, advance=advance, payload={
            "question": text(run.language, "delegate"), "arguments": [], "reasons": ["unread"],
            "irreversible": False,
        })
        advance.lines.append(text(run.language, "delegate"))
    else:
        run_status_set(run, Run.Status.DONE)
        advance.lines.append(text(run.language, "unread"))
    return reply_and_view(advance)
