"""A person's decision on a pause: checked, claimed, applied (docs/http-api.md, "The pause" and
"POST /threads/{id}/resume").

An answer goes, inside one unit of work (the thread locked first): find the
pause in the thread (else 404) -> a pause past its deadline closes as the
sweep would -> it must be open and the token the one shown, compared in
constant time (else 409) -> the decision one its kind takes (else 422) ->
the answer itself (a question's shape, text a database can store; else 422)
-> four eyes (an editor may not approve their own edit from the console) ->
a policy's approvers (``approvals``: in its group, not the proposer, else 403;
an approval short of its quorum recorded, the pause left open, 202) ->
**claim** it (``pauses.pause_close``: one conditional UPDATE, rowcount 1
wins) -> apply the decision to the run. The loser of two simultaneous answers,
on one worker or two, gets ``409 interrupt_stale`` with what became of the
pause and changes nothing.

``decision_apply`` says, once, what follows the answer (``Follow``): the
run's next steps in this same unit, up to the first call to send (claimed,
its receipt stored; an approved call's approval is written with its claim);
a team's steps replayed, an undo carried on or the model told, after the
commit; or nothing but the reply. The carrying on after the commit is
``services.pause_answer``'s.
"""

from __future__ import annotations

import enum
import logging
import secrets
from typing import Any

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from catalogue import registry
from catalogue.questions import AnswerError, QuestionError, validate_answer
from threads.engine.approvals import approval_take
from threads.engine.deadlines import pause_expire_in
from threads.engine.lease import run_lease_take
from threads.engine.lifecycle import run_status_set, step_status_set, steps_status_set
from threads.engine.pauses import overdue, pause_choices, pause_close, run_pauses_close, token_for
from threads.engine.progress import Progress
from threads.engine.reads import pause_steps_read, stale_body
from threads.engine.reconcile import happened_record, not_happened_record
from threads.engine.saga import saga_abandon, saga_done_by_hand, saga_retry, saga_start
from threads.engine.storable import encodable
from threads.engine.unit import Unit
from threads.errors import InvalidAnswer, InvalidDecision, NotFound, Stale
from threads.models import Event, Interrupt, Run, Step
from threads.texts import said, text
from threads.tokens import token_matches

security = logging.getLogger("stalwart.security")

DETAIL_STALE = _("That pause is no longer open, or the answer does not match what was shown.")
DETAIL_DECISION = _("A {kind} pause takes {choices}, not '{decision}'.")
DETAIL_NO_PAUSE = _("This thread has no pause with that id.")
DETAIL_ANSWER_SHAPE = _('An answer is {"kind": "choice", "index": N} or {"kind": "open", "text": ...}.')
DETAIL_UNENCODABLE = _("The answer holds text that cannot be stored (a lone surrogate or a NUL character).")
DETAIL_FOUR_EYES = _("You edited this call, so another person approves it.")
DETAIL_EDIT_ARGUMENTS = _('An edit carries the call\'s new arguments ({"args": {...}}): it is checked as a new '
                          'proposal, never taken as an approval.')
DETAIL_RESPOND = _('A respond decision carries the answer\'s text: {"message": "..."}, not empty.')


class Follow(enum.Enum):
    """What carries the run on once an answer is applied."""

    STEPS = "steps"  # the run's next planned steps, in the answer's own unit
    CLAIM = "claim"  # the same, the approved step first: its approval written with its claim, one UPDATE
    FLOW = "flow"  # a team's steps function, replayed after the commit
    SAGA = "saga"  # the run's undos (cancel_all, saga_stuck), after the commit
    MODEL = "model"  # the model is told (a delegate approved, or its question answered), after the commit
    REPLY = "reply"  # nothing more: the reply says what the answer did
    HANDBACK = "handback"  # nothing here: the system that asked carries on (threads.engine.handback)


def pause_find(thread_id: str, pause_id: str) -> Interrupt:
    """The pause, in this thread, with its step and run (else the 404 of a pause that does not exist)."""
    pause = Interrupt.objects.select_related("step", "run").filter(pk=pause_id, thread_id=thread_id).first()
    if pause is None:
        raise NotFound(DETAIL_NO_PAUSE)
    return pause


def pause_with_steps(thread_id: str, pause_id: str | None,
                     session_hash: str | None = None) -> tuple[Interrupt, list[Step]]:
    """The pause, in this thread (``None``: its oldest open one not past its
    deadline), with its run and the run's steps, in one read
    (``reads.pause_steps_read``): what an answer's unit goes on with, the
    pause's step one of those steps. Else the 404 of a pause that does not
    exist. ``session_hash``: the thread must be that session's (else the 404
    of a thread that does not exist, ``selectors.thread_access``'s)."""
    found = pause_steps_read(thread_id, pause_id)
    if found is None:
        raise NotFound(DETAIL_NO_PAUSE)
    pause, steps, owner = found
    if session_hash is not None and not secrets.compare_digest(str(owner), session_hash):
        raise NotFound()
    return pause, steps


def pause_claim(u: Unit, pause: Interrupt, *, decision: str, token: str, answer: Any, by: str, via: str,
                check_token: bool = True) -> Any:
    """Inside ``u``: the checks in their order, then the claim. The answer's
    value for the run (a question's validated answer), or the error that
    refuses it; a pause found past its deadline is closed even so."""
    if overdue([pause]):
        pause_expire_in(u, pause, timezone.now())  # closed as the sweep would close it (docs/operating.md, "Deadlines")
    if pause.status != Interrupt.Status.OPEN:
        raise Stale(DETAIL_STALE, **stale_body(pause, pause.thread_id))
    if check_token and not token_matches(token_for(pause), token):
        security.warning("pause answer with a token other than the one shown (thread %s)", pause.thread_id)
        raise Stale(DETAIL_STALE, **stale_body(pause, pause.thread_id))
    choices = pause_choices(pause)
    if decision not in choices:
        raise InvalidDecision(DETAIL_DECISION.format(kind=pause.kind, choices=", ".join(choices), decision=decision))
    if not encodable(answer):  # refused before the claim: a bad answer never strands the run
        raise InvalidAnswer(DETAIL_UNENCODABLE)
    value = _answer_value(pause, answer) if pause.kind == Interrupt.Kind.ASK else None
    if pause.payload.get("handback"):
        _mirrored_answer(decision, answer)
    if via == Interrupt.Via.CONSOLE and pause.kind == Interrupt.Kind.CONFIRM and decision == "approve" \
            and pause.payload.get("approvals") is None and by in edited_by(pause.step_id):
        raise InvalidAnswer(DETAIL_FOUR_EYES)
    payload = None
    if pause.kind == Interrupt.Kind.CONFIRM and pause.payload.get("approvals") is not None:
        # Under a policy: who may answer, and the quorum (threads.engine.approvals). Short of it, the
        # approval is stored and ApprovalRecorded raised: the pause stays open. The approval that meets
        # it is stored by the claim.
        payload = approval_take(u, pause, decision=decision, token=token, by=by, via=via)
    if not pause_close(u, pause, status=Interrupt.Status.ANSWERED, decision=decision, answer=answer, by=by, via=via,
                       payload=payload):
        # Lost the race: another answer (on this worker or another) took the claim first.
        raise Stale(DETAIL_STALE, **stale_body(pause, pause.thread_id))
    return value


def _mirrored_answer(decision: str, answer: Any) -> None:
    """A mirrored pause's answer is handed back as what it says, or refused:
    an edit comes with its arguments (``handback_edit``), a response with its text."""
    if decision == "edit":
        raise InvalidAnswer(DETAIL_EDIT_ARGUMENTS)
    if decision == "respond":
        message = answer.get("message") if isinstance(answer, dict) else answer
        if not isinstance(message, str) or not message.strip():
            raise InvalidAnswer(DETAIL_RESPOND)


def edited_by(step_id: int | None) -> set[str]:
    """Who edited this step's call in the console (four eyes: they may not approve it)."""
    if step_id is None or not settings.STALWART_FOUR_EYES:
        return set()
    return set(Interrupt.objects.filter(step_id=step_id, status=Interrupt.Status.EDITED)
               .values_list("answered_by", flat=True))


def _answer_value(pause: Interrupt, answer: Any) -> Any:
    """The answer to a question, validated against the question shown (docs/http-api.md, "Questions (ask)")."""
    if not isinstance(answer, dict):
        raise InvalidAnswer(DETAIL_ANSWER_SHAPE)
    try:
        return validate_answer(pause.payload.get("ask") or {}, answer)
    except (AnswerError, QuestionError) as exc:
        raise InvalidAnswer(str(exc)) from exc


def decision_apply(u: Unit, progress: Progress, pause: Interrupt, decision: str, value: Any) -> Follow:
    """Inside ``u``, after the claim: apply the decision to the run, and say what follows."""
    run = progress.run
    run_status_set(run, Run.Status.RUNNING)
    if pause.payload.get("handback"):
        return _handback(u, progress, pause, decision, value)
    if pause.kind == Interrupt.Kind.CONFIRM:
        return _confirm(u, progress, pause.step, decision)
    if pause.kind == Interrupt.Kind.OUTCOME_UNKNOWN:
        return _outcome(progress, pause.step, decision)
    if pause.kind == Interrupt.Kind.ASK:
        return _ask(run, pause, value)
    if pause.kind == Interrupt.Kind.SAGA_STUCK:
        return _saga(u, progress, pause, decision)
    if decision == "decline":  # a delegate declined
        run_status_set(run, Run.Status.DONE)
        progress.lines.append(text(run.language, "declined"))
        return Follow.REPLY
    run_lease_take(run)  # a delegate approved: this worker asks the model after the commit, holding the run
    return Follow.MODEL


def _handback(u: Unit, progress: Progress, pause: Interrupt, decision: str, value: Any) -> Follow:
    """A mirrored pause (``threads.engine.handback``): nothing runs here. The
    decision is kept on its step, handed back (or skipped, for a refusal) for
    the system that asked to run; the run waits while any pause of it is open."""
    step, run = pause.step, progress.run
    assert step is not None
    refused = decision in ("reject", "skip")
    step.result = {"decision": decision, "answer": value if pause.kind == Interrupt.Kind.ASK else pause.answer}
    step_status_set(step, Step.Status.SKIPPED if refused else Step.Status.HANDED_BACK)
    u.event(Event.Type.STEP, {"step": step.index, "tool": step.tool, "status": step.status})
    still = Interrupt.objects.filter(run=run, status=Interrupt.Status.OPEN).exists()
    run_status_set(run, Run.Status.WAITING if still else Run.Status.DONE)
    return Follow.HANDBACK


def _planned(run: Run) -> Follow:
    return Follow.FLOW if run.plan.get("steps") else Follow.STEPS


def _confirm(u: Unit, progress: Progress, step: Step | None, decision: str) -> Follow:
    assert step is not None
    run = progress.run
    if decision == "approve":
        if _planned(run) is Follow.STEPS:
            return Follow.CLAIM  # approved and claimed in one write (services._steps_next)
        step_status_set(step, Step.Status.APPROVED)
        return Follow.FLOW
    if decision == "skip":
        step_status_set(step, Step.Status.SKIPPED)
        u.event(Event.Type.STEP, {"step": step.index, "tool": step.tool, "status": "skipped"})
        progress.lines.append(text(run.language, "skipped", tool=said(run, step.tool)))
        return _planned(run)
    # cancel_all: this and every later call are left out, and what the run did is undone.
    step_status_set(step, Step.Status.CANCELLED)
    steps_status_set(run, Step.Status.CANCELLED, from_index=step.index)
    # A team's steps may wait on several pauses at once (docs/agent-file.md,
    # "Team steps (steps:)"): a run that ends waits on nothing, so the others
    # close too; then it undoes what it did.
    run_pauses_close(u, run, status=Interrupt.Status.CANCELLED)
    saga_start(run, then=Run.Status.CANCELLED)
    u.event(Event.Type.STEP, {"step": step.index, "tool": step.tool, "status": "cancelled"})
    progress.lines.append(text(run.language, "cancelled"))
    return Follow.SAGA


def _outcome(progress: Progress, step: Step | None, decision: str) -> Follow:
    assert step is not None
    run = progress.run
    if decision == "happened":
        happened_record(step)  # the effect, its undo registered, the receipt's verdict
        step_status_set(step, Step.Status.SUCCEEDED)
        progress.lines.append(text(run.language, "happened", tool=said(run, step.tool)))
        return _planned(run)
    # did_not_happen: back to the check, so a retry is a person's decision.
    not_happened_record(step)
    step.generation += 1
    step_status_set(step, Step.Status.PLANNED)
    return _planned(run)


def _ask(run: Run, pause: Interrupt, value: Any) -> Follow:
    step = pause.step
    if step is None:  # the model's own question: this worker tells the model after the commit
        run_lease_take(run)
        return Follow.MODEL
    argument = pause.payload.get("argument")
    if argument:
        if isinstance(value, str):
            value = registry.selector_for(registry.get_agent(run.agent)).typed_answer(
                step.tool, argument, value, language=run.language)
        step.arguments = [*(a for a in step.arguments if a["name"] != argument),
                          {"name": argument, "value": value, "origin": "reply"}]
    elif pause.payload.get("tools"):
        step.tool = str(value)
        tool = registry.get_agent(run.agent).tool(step.tool)
        step.kind = tool.kind if tool else Step.Kind.WRITE
    step_status_set(step, Step.Status.PLANNED)
    return _planned(run)


def _saga(u: Unit, progress: Progress, pause: Interrupt, decision: str) -> Follow:
    """``saga_stuck`` (docs/http-api.md, "The pause"): ``retry`` tries the undo again; ``done_by_hand``
    records it undone by a person; ``abandon`` leaves it, reported as not
    undone. Either way the saga then goes on with the older writes."""
    undo = pause.step
    assert undo is not None and undo.undo_of_id is not None
    {"retry": saga_retry, "done_by_hand": saga_done_by_hand, "abandon": saga_abandon}[decision](u, progress, undo)
    return Follow.SAGA
