"""The engine's doors: the few functions a view, a command, the console, the
Python API or another protocol's gateway calls (``threads.engine`` exports
them; ``approvals`` and ``stalwart_site`` may import nothing else of the
engine, an import-linter contract says so).

Each one does its work in the engine's units of work and returns an
``Answer`` (``threads.engine.views``: the message answer of docs/http-api.md
as typed values), **read after its last commit** (``reads.run_answer``) with
``not_notified`` filled from the notices its units stored. A door that may
see the same call twice names it with a ``ReplayKey``: its row in the replay
journal is taken in the call's own unit (``replays.replay_take``), and the
same call again does nothing and answers what the first became
(``Answer.replayed``). A resume with
``approve``, walked:

1. ``pause_answer``'s first unit locks the thread, reads the pause with its
   run and the run's steps (``decisions.pause_with_steps``: one statement),
   checks it (deadline, open, token, decision, answer, four eyes) and claims
   it (``decisions.pause_claim``), applies the decision (``decision_apply``,
   which says what follows), and takes the run's next steps up to the call
   to send: that step approved and claimed ``running`` under this worker's
   lease in one write, its receipt stored (``advance.advance_segment``).
   Commit.
2. The call is sent, outside any transaction (``advance.run_advance``).
3. Its unit locks the thread, reads the run and its steps, records the
   outcome by its verdict (``execute.sent_record``), decides the steps after
   it, writes the reply. Commit.
4. The answer is read (``reads.run_answer``) and returned to the view.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from django.utils import translation

from catalogue import registry
from catalogue.plan import Argument, Call, Plan
from threads.engine.advance import advance_segment, next_step, run_advance
from threads.engine.decisions import DETAIL_NO_PAUSE, Follow, decision_apply, pause_claim, pause_find, pause_with_steps
from threads.engine.delegate import delegate_run
from threads.engine.edits import pause_edit_in
from threads.engine.execute import Prepared
from threads.engine.lifecycle import step_status_set
from threads.engine.notify import not_notified
from threads.engine.progress import Progress, new_id
from threads.engine.proposers import Proposer
from threads.engine.reads import replayed_answer, run_answer
from threads.engine.replays import Replayed, ReplayKey, replay_release, replay_take_new
from threads.engine.replies import reply_write
from threads.engine.saga import saga_run
from threads.engine.steps import run_taint_carry
from threads.engine.storable import proposal_refusal, storable
from threads.engine.turns import run_start, thread_open
from threads.engine.turns import turn_submit as _turn
from threads.engine.unit import unit
from threads.engine.views import Answer
from threads.errors import (
    DETAIL_NOT_STORABLE,
    DETAIL_THREAD_TOO_LONG,
    ApprovalRecorded,
    BadRequest,
    CallRefused,
    InvalidAnswer,
    InvalidDecision,
    NotAnApprover,
    NotFound,
    Stale,
)
from threads.models import Interrupt, Run, Step

MAX_THREAD_KEY = 160  # the thread's stored key: its id (at most 128) and its session's tail


def answer_of(progress: Progress) -> Answer:
    """The ``Answer`` for what ``progress`` did, read now."""
    answer = run_answer(progress.run, reply=progress.reply, not_notified=not_notified(progress.notices))
    return replace(answer, replay_id=progress.replay_id) if progress.replay_id is not None else answer


def given_checked(*, thread_id: str, context: dict[str, Any] | None, text: str) -> None:
    """What a caller hands the engine is what the run store can hold (``storable``), refused before
    anything is stored (a door's parser refused it already; the Python API's caller has none)."""
    if len(thread_id) > MAX_THREAD_KEY:
        raise BadRequest(DETAIL_THREAD_TOO_LONG)
    if not all(storable(value) for value in (context, thread_id, text) if value is not None):
        raise BadRequest(DETAIL_NOT_STORABLE)


def turn_submit(*, thread_id: str, session_hash: str, text: str, language: str | None = None,
                context: dict[str, Any] | None = None, privileges: list[str] | tuple[str, ...] = (),
                agent: str | None = None, replay: ReplayKey | None = None,
                if_nothing_waits: bool = False, proposer: Proposer | None = None) -> Answer:
    """A person's turn (``POST /threads/{id}/messages``). ``replay``: the turn
    may come again (an ``Idempotency-Key``, an AG-UI message id);
    ``if_nothing_waits``: refused with ``PausesPending`` while a pause of the
    thread waits (AG-UI), instead of setting it aside."""
    text = text.replace("\x00", " ")  # a NUL in what a person wrote is noise, read as a space
    given_checked(thread_id=thread_id, context=context, text=text)
    try:
        return answer_of(_turn(thread_id=thread_id, session_hash=session_hash, text_=text, language=language,
                               context=context, privileges=privileges, agent_name=agent, replay=replay,
                               if_nothing_waits=if_nothing_waits, proposer=proposer))
    except Replayed as again:
        return replayed_answer(again.row)


def call_propose(*, thread_id: str, session_hash: str, tool: str, arguments: dict[str, Any],
                 origin: str = "agent", agent: str | None = None, language: str | None = None,
                 context: dict[str, Any] | None = None, privileges: list[str] | tuple[str, ...] = (),
                 text: str = "", session_taint: bool = False, replay: ReplayKey | None = None,
                 proposer: Proposer | None = None) -> Answer:
    """One call another agent (or a model) proposes, as a run of one step:
    the same check, pauses, receipts and console as a turn's call, with every
    argument of ``origin``, but for those the ``context`` gives (origin
    ``context``, and they win: the caller's context is its own, the proposer's
    arguments are not). Unlike a person's turn, it sets nothing aside: earlier
    calls that wait go on waiting. ``session_taint``: a ``reads_outside`` tool that ran
    earlier in the thread taints this call too (a gateway's session is its
    thread). ``text`` is what the thread's trace shows as the turn.
    ``replay``: the call's row in the replay journal, taken with the run (of
    two identical proposals at once, one run and one pause; the other is
    answered with it, ``Answer.replayed``). ``proposer``: who proposed it (an MCP
    client's name, a graph's agent), which the console shows."""
    spec = registry.get_agent(agent)
    with translation.override(spec.default_language):
        refusal = proposal_refusal(spec, tool, arguments)
    if refusal is not None:  # nothing to keep a trace of: refused before anything is stored
        raise CallRefused(*refusal)
    given_checked(thread_id=thread_id, context=context, text=text)
    lang = registry.choose_language(spec, language)
    withdrawn = registry.withdrawn_tools(spec)
    found = spec.tool(tool)
    given = dict(arguments)
    origins = {name: origin for name in given}
    for name, value in (context or {}).items():
        if found is not None and name in found.properties:
            given[name], origins[name] = value, "context"
    call = Call(step=1, tool=tool, arguments=tuple(Argument(str(k), v, origins[k]) for k, v in sorted(given.items())))
    plan = Plan(language=lang, read=True, calls=(call,))
    try:
        with unit(thread_id, lock=False) as u:
            thread, created = thread_open(thread_id=thread_id, session_hash=session_hash, agent=spec.name)
            run_id = new_id("r")
            taken = replay_take_new(replay, thread_id=thread_id, run_id=run_id) if replay is not None else None
            progress, steps, _ = run_start(u, thread=thread, agent=spec, text_=text or f"{tool} {arguments}",
                                        language=lang, plan=plan, calls=[call], context=context or {},
                                        privileges=list(privileges), new_thread=created, supersede=False,
                                        run_id=run_id, proposer=proposer)
            progress.replay_id = taken.pk if taken is not None else None
            if session_taint and not created:
                run_taint_carry(progress.run)
            prepared = advance_segment(u, progress, spec, withdrawn, steps)
            if prepared is None:
                reply_write(u, progress)
    except Replayed as again:
        return replayed_answer(again.row)
    if prepared is not None:
        try:
            run_advance(progress, prepared=prepared)
        except BaseException:
            if progress.replay_id is not None:  # stored, then failed: the same call again gets what it became
                replay_release(progress.replay_id)
            raise
    return answer_of(progress)


def pause_answer(*, thread_id: str, pause_id: str | None, decision: str, token: str, answer: Any = None,
                 by: str = "", via: str = "", check_token: bool = True,
                 session_hash: str | None = None) -> Answer:
    """Answer one pause of the thread; the others stay open (docs/http-api.md). A
    refused answer (409, 422) still commits what its checks closed (a pause
    found past its deadline) and changes nothing else. ``pause_id`` None: the
    thread's oldest open pause not past its deadline, found in the answer's
    unit (the Python API's ``Desk.confirm``); ``session_hash``: the thread
    must be that session's, checked in the same read (else a 404)."""
    error: Stale | InvalidDecision | InvalidAnswer | NotAnApprover | ApprovalRecorded | None = None
    follow, prepared = Follow.REPLY, None
    with unit(thread_id) as u:
        pause, steps = pause_with_steps(thread_id, pause_id, session_hash)
        progress = Progress(run=pause.run, notices=u.notices)
        try:
            value = pause_claim(u, pause, decision=decision, token=token, answer=answer, by=by, via=via,
                                check_token=check_token)
        except (Stale, InvalidDecision, InvalidAnswer, NotAnApprover, ApprovalRecorded) as err:
            error = err  # raised after the commit: an approval short of a quorum is kept
        else:
            follow, prepared = answer_apply(u, progress, pause, steps, decision, value)
    if error is not None:
        raise error
    carry_on(progress, follow, prepared)
    return answer_of(progress)


def answer_apply(u: Any, progress: Progress, pause: Interrupt, steps: list[Step], decision: str,
                 value: Any) -> tuple[Follow, Prepared | None]:
    """Inside the answer's unit, after its claim: the decision applied, and the
    run's next steps taken up to the call to send where they follow in this unit."""
    follow = decision_apply(u, progress, pause, decision, value)
    prepared = None
    if follow in (Follow.STEPS, Follow.CLAIM):  # the next steps in this unit: the claim commits with the
        # call's receipt; the steps are the ones read with the pause, kept current as the unit changed them
        prepared = _steps_next(u, progress, steps, approved=pause.step if follow is Follow.CLAIM else None)
    elif follow is Follow.REPLY:
        reply_write(u, progress)
    return follow, prepared


def _steps_next(u: Any, progress: Progress, steps: list[Step], approved: Step | None) -> Prepared | None:
    """The run's next steps, in the answer's unit. ``approved``: the step a
    person just approved, still stored ``waiting``; the run's next step, it is
    claimed from there in one write (``advance_segment``), else its approval
    is written now and it waits its turn."""
    spec = registry.get_agent(progress.run.agent)
    if approved is not None and approved is not next_step(steps):
        step_status_set(approved, Step.Status.APPROVED)
        approved = None
    prepared = advance_segment(u, progress, spec, registry.withdrawn_tools(spec), steps, approved=approved)
    if prepared is None:
        reply_write(u, progress)
    return prepared


def carry_on(progress: Progress, follow: Follow, prepared: Prepared | None) -> None:
    """After the answer's commit: what ``decision_apply`` said follows."""
    if follow in (Follow.STEPS, Follow.CLAIM) and prepared is not None:
        run_advance(progress, prepared=prepared)
    elif follow is Follow.FLOW:
        run_advance(progress)
    elif follow is Follow.SAGA:
        saga_run(progress)  # undo what the run did (docs/http-api.md, rollback), after the claim
    elif follow is Follow.MODEL:
        delegate_run(progress)


def pause_edit(*, pause_id: str, token: str, values: dict[str, str], by: str, via: str = Interrupt.Via.CONSOLE,
               origin: str = "staff") -> Answer:
    """Change argument values of an open confirm (the console): checked
    first; taken, the old pause closes as ``edited`` and the call waits again
    as a new proposal, the changed values of ``origin``."""
    thread_id = Interrupt.objects.filter(pk=pause_id).values_list("thread_id", flat=True).first()
    if thread_id is None:
        raise NotFound(DETAIL_NO_PAUSE)
    with unit(thread_id) as u:
        progress, prepared = pause_edit_in(u, pause_find(thread_id, pause_id), token=token, values=values, by=by,
                                           via=via, origin=origin)
    if prepared is not None:
        run_advance(progress, prepared=prepared)
    return answer_of(progress)


def run_read(run_id: str) -> Answer:
    """A run's ``Answer`` as it stands (no reply of its own); else the 404 of a run that does not exist."""
    run = Run.objects.filter(pk=run_id).first()
    if run is None:
        raise NotFound()
    return run_answer(run)

