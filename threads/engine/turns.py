"""A person's turn: the thread opened (or found), what waited set aside, the
turn planned into a new run, and the run advanced (docs/http-api.md, "POST /threads/{id}/messages").

The turn's first unit of work stores it whole: the thread (its upsert also
takes the thread's lock), the pauses a new turn supersedes, the run, the
person's message, the steps and what the check makes of them up to the first
call to send (claimed, its receipt stored) or the reply. A call to send is
sent after that commit (``advance.run_advance``).
"""

from __future__ import annotations

import secrets
from typing import Any

from django.db import connection
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from catalogue import registry
from catalogue.agentfile import AgentSpec
from catalogue.plan import Call, Plan
from threads.engine.advance import Decision, advance_segment, run_advance, step_apply, step_check
from threads.engine.deadlines import pause_expire_in
from threads.engine.execute import Prepared
from threads.engine.lifecycle import run_status_set, step_status_set, steps_status_set
from threads.engine.pauses import overdue, pause_close, pause_open, present, thread_pauses
from threads.engine.progress import Progress, new_id
from threads.engine.proposers import Proposer
from threads.engine.replays import ReplayKey, replay_release, replay_take_new
from threads.engine.replies import reply_write
from threads.engine.steps import steps_build
from threads.engine.unit import Unit, unit
from threads.errors import NotFound, PausesPending
from threads.keys import thread_name
from threads.models import Event, Interrupt, Message, Run, Step, Thread
from threads.texts import text

DETAIL_PENDING = _("Calls in this thread wait for an answer ({ids}): answer each of them before writing a "
                   "new message.")


def thread_open(*, thread_id: str, session_hash: str, agent: str) -> tuple[Thread, bool]:
    """The thread, opened by this session now or before (True when new now);
    another session's is a 404 (a door gives a key, ``threads.keys``, that
    another session's thread cannot have). One statement, the first of the turn's unit
    (an INSERT ... ON CONFLICT DO UPDATE that returns the row), which also
    locks the thread's row: two turns of one thread take their turns, and two
    sessions opening the same new id at once get one thread and one 404.

    Whether this statement inserted the row must not be read from the row's
    ``created_at`` on PostgreSQL: two turns opening one new thread at once
    may take the same ``now`` (to the microsecond), and the second, which
    waited on the first's insert and then updated the row, would find its own
    stamp there and believe it had made the thread, skipping what a turn on
    an existing thread checks (``if_nothing_waits``, the supersede). The row
    version an ON CONFLICT update writes keeps the updater's row lock in its
    ``xmax``; an inserted one has none. SQLite's IMMEDIATE transactions take
    their turns from BEGIN, so a later turn's ``now`` is taken after the
    earlier one committed, and the stamp tells."""
    now = timezone.now()
    table = connection.ops.quote_name(Thread._meta.db_table)
    stamp = connection.ops.adapt_datetimefield_value(now)
    if connection.vendor == "postgresql":
        inserted, params = "xmax = 0", []
    else:
        inserted, params = "CASE WHEN created_at = %s THEN 1 ELSE 0 END", [stamp]
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (id, name, session_hash, agent, event_seq, created_at, updated_at) "
            "VALUES (%s, %s, %s, %s, 0, %s, %s) ON CONFLICT (id) DO UPDATE SET updated_at = excluded.updated_at "
            f"RETURNING session_hash, agent, event_seq, {inserted}",
            [thread_id, thread_name(thread_id), session_hash, agent, stamp, stamp, *params],
        )
        stored_hash, stored_agent, seq, created = cursor.fetchone()
    if not secrets.compare_digest(str(stored_hash), session_hash):
        raise NotFound()
    thread = Thread(id=thread_id, name=thread_name(thread_id), session_hash=stored_hash, agent=stored_agent, event_seq=seq, updated_at=now)
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
    replay: ReplayKey | None = None,
    if_nothing_waits: bool = False,
    proposer: Proposer | None = None,
) -> Progress:
    """A turn: planned, then stored and decided in one unit; a call the turn
    must send is claimed in it and sent after (``run_advance``). ``replay``:
    the turn's row in the replay journal, taken in the same unit (``Replayed``
    when the same turn was taken before: nothing is stored). ``if_nothing_waits``:
    refused (``PausesPending``) while a pause of the thread waits, checked under
    the thread's lock, instead of setting what waits aside."""
    agent = registry.get_agent(agent_name)
    lang = registry.choose_language(agent, language)
    withdrawn = registry.withdrawn_tools(agent)
    if agent.steps:  # the team's own steps replace the selector (docs/agent-file.md, "Team steps (steps:)")
        plan = Plan(language=lang, read=True)
    else:
        plan = registry.selector_for(agent).plan(text_, language=lang, context=context or {}, exclude=withdrawn)
    with unit(thread_id, lock=False) as u:
        thread, created = thread_open(thread_id=thread_id, session_hash=session_hash, agent=agent.name)
        run_id = new_id("r")
        taken = replay_take_new(replay, thread_id=thread_id, run_id=run_id) if replay is not None else None
        if if_nothing_waits and not created:
            nothing_waits(u, thread_id)
        taken_up = plan.read and not agent.steps  # its steps taken up in this unit
        progress, steps, first = run_start(
            u, thread=thread, agent=agent, text_=text_, language=lang, plan=plan, calls=list(plan.calls),
            context=context or {}, privileges=list(privileges), new_thread=created,
            withdrawn=withdrawn if taken_up else None, run_id=run_id, proposer=proposer)
        progress.replay_id = taken.pk if taken is not None else None
        prepared = None
        if not plan.read:
            unread_answer(u, progress, agent)
        elif taken_up:
            go = True if first is None else step_apply(u, progress, min(steps, key=lambda s: s.index), agent, first)
            prepared = go if isinstance(go, Prepared) else None
            if go is True:
                prepared = advance_segment(u, progress, agent, withdrawn, steps)
            if prepared is None:
                reply_write(u, progress)
    if progress.reply is not None:
        return progress
    try:
        return run_advance(progress, prepared=prepared)  # a call to send, or a team's steps to replay
    except BaseException:
        if progress.replay_id is not None:  # stored, then failed: the same turn again gets what it became
            replay_release(progress.replay_id)
        raise


def run_start(u: Unit, *, thread: Thread, agent: AgentSpec, text_: str, language: str, plan: Plan,
              calls: list[Call], context: dict[str, Any], privileges: list[str],
              new_thread: bool = False, supersede: bool = True, withdrawn: frozenset[str] | None = None,
              run_id: str | None = None,
              proposer: Proposer | None = None) -> tuple[Progress, list[Step], Decision | None]:
    """Inside ``u``: what waited in the thread set aside (a person's new turn;
    ``supersede=False`` for a call an agent proposes, which waits beside the
    others), then the run, the message, its ``turn`` event and the calls as
    planned steps.

    ``withdrawn`` (a turn that takes its steps up at once): the first step is
    checked before any row is stored, and its decision returned for the
    caller to carry out (``advance.step_apply``). One the check pauses is
    carried out here: the step is stored ``waiting``, its pause opened, and
    the run stored after it, already ``waiting`` (transitions from nothing,
    ``lifecycle.NOTHING``: the pause's row may name the run before the run's
    row is there, the foreign keys are checked at commit), so neither is
    updated after; nothing is then returned to carry out."""
    superseded = [] if new_thread or not supersede else thread_supersede(u, thread)
    run = Run(
        id=run_id or new_id("r"), thread=thread, agent=agent.name, language=language, text=text_,
        plan={**plan.to_json(), **({"steps": agent.steps} if agent.steps else {})}, context=context,
        privileges=sorted(set(privileges)),
        proposed_via=proposer.door if proposer else "", proposed_by=(proposer.name if proposer else "")[:200],
    )
    message = Message(id=new_id("m"), thread=thread, run=run, role=Message.Role.PERSON, text=text_,
                      language=language)
    u.event(Event.Type.TURN, {"run": run.id, "message": message.id, "text": text_, "language": language,
                              "superseded": superseded})
    steps = steps_build(run, calls, agent.tool_map, offset=0)
    progress = Progress(run=run, notices=u.notices)
    if superseded:
        progress.lines.append(text(language, "superseded"))
    first = None
    if withdrawn is not None and steps:
        step = min(steps, key=lambda s: s.index)  # a new run's first step reads no earlier result
        first = (step, step_check(run, step, agent, withdrawn))
    if first is not None and first[1].pauses:
        step_status_set(first[0], Step.Status.WAITING)
        Step.objects.bulk_create(steps)
        step_apply(u, progress, first[0], agent, first[1])  # the pause; the run is given ``waiting``
        first = None
    elif steps:
        Step.objects.bulk_create(steps)
    run.save(force_insert=True)
    message.save(force_insert=True)
    return progress, steps, first[1] if first else None


def nothing_waits(u: Unit, thread_id: str) -> None:
    """Inside a unit holding the thread's lock: refuse new input while a pause
    of the thread waits (those past their deadline are closed first)."""
    pauses = thread_pauses(thread_id)
    late = overdue(pauses)
    now = timezone.now()
    for pause in late:
        pause_expire_in(u, pause, now)
    waiting = [p for p in pauses if p not in late]
    if waiting:
        raise PausesPending(str(DETAIL_PENDING).format(ids=", ".join(p.id for p in waiting)),
                            waiting=[present(p) for p in waiting])


def thread_supersede(u: Unit, thread: Thread) -> list[str]:
    """A new turn closes what waits (docs/http-api.md, "POST /threads/{id}/messages"): answering it later is stale."""
    closed = []
    for pause in Interrupt.objects.filter(thread=thread, status=Interrupt.Status.OPEN).order_by("created_at"):
        if not pause_close(u, pause, status=Interrupt.Status.SUPERSEDED):
            continue
        closed.append(pause.id)
        steps_status_set(pause.run_id, Step.Status.SUPERSEDED)
        run_status_set(pause.run_id, Run.Status.SUPERSEDED, expect=Run.Status.WAITING)
    return closed


def unread_answer(u: Unit, progress: Progress, agent: AgentSpec) -> None:
    """A turn nothing reads: a ``delegate`` pause (``on_unread: ask``), else a
    plain "unread" reply (``on_unread``: docs/agent-file.md, "An agent")."""
    run = progress.run
    if agent.on_unread == "ask":
        pause_open(u, run=run, step=None, kind=Interrupt.Kind.DELEGATE, tool="", payload={
            "question": text(run.language, "delegate"), "arguments": [], "reasons": ["unread"],
            "irreversible": False,
        })
        progress.lines.append(text(run.language, "delegate"))
    else:
        run_status_set(run, Run.Status.DONE)
        progress.lines.append(text(run.language, "unread"))
    reply_write(u, progress)
