"""Answering a pause (SPEC §7): the checks, the claim, and the decision applied.

An answer goes: find the pause in the thread -> it must be open -> the token
must be the one shown (constant time) -> the decision must be one the kind
takes (else 422) -> **claim** it with one conditional UPDATE
(``... SET status='answered' WHERE id=? AND status='open'``; rowcount 1
wins) in the same transaction that applies the decision to the step. The
loser of two simultaneous answers, on one worker or two, updates nothing and
gets ``409 interrupt_stale`` with what became of the pause. Only then,
outside the claim's transaction, does the winner carry the run on
(``threads.engine.run_advance``), so no tool is called inside a transaction.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from approvals.errors import InvalidAnswer, InvalidDecision, Stale
from catalogue import registry
from catalogue.questions import AnswerError, QuestionError, validate_answer
from threads.engine import (
    Advance,
    EventType,
    delegate_run,
    event_append,
    expire_questions,
    happened_record,
    not_happened_record,
    open_pauses,
    reply_write,
    run_advance,
    run_pauses_close,
    run_status_set,
    saga_run,
    saga_start,
    step_status_set,
    steps_cancel,
    token_for,
)
from threads.engine.advance import advance_segment
from threads.engine.events import events_batched
from threads.engine.execute import Prepared
from threads.engine.lease import run_lease_take
from threads.engine.views import reply_and_view
from threads.errors import NotFound, StalwartError
from threads.models import PAUSE_ANSWERS, Interrupt, Run, Step, Thread
from threads.texts import text
from threads.tokens import token_matches

security = logging.getLogger("stalwart.security")

DETAIL_STALE = _("That pause is no longer open, or the answer does not match what was shown.")
DETAIL_DECISION = _("A {kind} pause takes {choices}, not '{decision}'.")
DETAIL_NO_PAUSE = _("This thread has no pause with that id.")
DETAIL_ANSWER_SHAPE = _('An answer is {"kind": "choice", "index": N} or {"kind": "open", "text": ...}.')
DETAIL_UNENCODABLE = _("The answer holds text that cannot be stored (a lone surrogate or a NUL character).")


def encodable(value: Any) -> bool:
    """True when every string in ``value`` is valid UTF-8 text a database can hold."""
    if isinstance(value, str):
        if "\x00" in value:
            return False
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return False
        return True
    if isinstance(value, dict):
        return all(encodable(k) and encodable(v) for k, v in value.items())
    if isinstance(value, list):
        return all(encodable(v) for v in value)
    return True


def stale_body(pause: Interrupt | None, thread_id: str) -> dict[str, Any]:
    """What a client that lost the race (or retried after a lost reply) needs."""
    body: dict[str, Any] = {"waiting": open_pauses(thread_id)}
    if pause is not None:
        pause.refresh_from_db()
        body["interrupt"] = {
            "id": pause.id,
            "status": pause.status,
            "decision": pause.decision or None,
            "answered_at": pause.answered_at.isoformat() if pause.answered_at else None,
            "answered_by": pause.answered_by or None,
        }
    return body


def interrupt_answer(
    *,
    thread: Thread,
    interrupt_id: str,
    decision: str,
    token: str,
    answer: Any = None,
    answered_by: str = "",
    check_token: bool = True,
    pause: Interrupt | None = None,
) -> Advance:
    """Answer one pause of ``thread``; the others stay open.

    The checks, the claim, the decision and what follows it up to the first
    call to send (claimed, its receipt stored) commit together; the call is
    sent after, and its outcome and the reply commit in the next transaction
    (``run_advance``). A refused answer still commits what its checks closed
    (a question past its time). ``pause``: the pause as the caller just read
    it, with its step and run (the claim below still decides)."""
    error: StalwartError | None = None
    with transaction.atomic(), events_batched():
        try:
            advance, pause, go_on, prepared = _answer_unit(thread, interrupt_id, decision, token, answer,
                                                           answered_by, check_token, pause)
        except (NotFound, Stale, InvalidDecision, InvalidAnswer) as err:
            error = err
    if error is not None:
        raise error
    if advance.reply is not None:
        return advance
    if pause.kind == Interrupt.Kind.DELEGATE and decision == "approve":
        return delegate_run(pause.run, advance)
    if pause.kind == Interrupt.Kind.ASK and pause.payload.get("delegate"):
        # The model asked: its questions and the person's answers go back to it.
        return delegate_run(pause.run, advance)
    if pause.kind == Interrupt.Kind.SAGA_STUCK or (pause.kind == Interrupt.Kind.CONFIRM and decision == "cancel_all"):
        return saga_run(pause.run_id, advance=advance)  # undo what the run did (SPEC §8), after the claim
    if go_on:
        return run_advance(pause.run_id, advance=advance, run=pause.run, prepared=prepared)
    return reply_write(advance)


def _answer_unit(thread: Thread, interrupt_id: str, decision: str, token: str, answer: Any, answered_by: str,
                 check_token: bool, pause: Interrupt | None) -> tuple[Advance, Interrupt, bool, Prepared | None]:
    """Inside the answer's transaction: the checks, the claim, the decision,
    and for a run of planned steps the steps that follow up to the first call
    to send, or the reply when nothing is to be sent."""
    if pause is None or pause.pk != interrupt_id or pause.thread_id != thread.pk:
        pause = Interrupt.objects.select_related("step", "run").filter(pk=interrupt_id, thread=thread).first()
    if pause is None:
        raise NotFound(DETAIL_NO_PAUSE)
    # A question past its deadline closes as the sweep would close it (SPEC §7.5).
    if pause.status == Interrupt.Status.OPEN:
        expire_questions(thread.id, [pause])
    if pause.status != Interrupt.Status.OPEN:
        raise Stale(DETAIL_STALE, **stale_body(pause, thread.id))
    if check_token and not token_matches(token_for(pause), token):
        security.warning("pause answer with a token other than the one shown (thread %s)", thread.id)
        raise Stale(DETAIL_STALE, **stale_body(pause, thread.id))
    choices = PAUSE_ANSWERS[pause.kind]
    if decision not in choices:
        raise InvalidDecision(DETAIL_DECISION.format(kind=pause.kind, choices=", ".join(choices), decision=decision))
    if not encodable(answer):  # refused before the claim: a bad answer never strands the run
        raise InvalidAnswer(DETAIL_UNENCODABLE)
    value = _answer_value(pause, answer) if pause.kind == Interrupt.Kind.ASK else None

    run = pause.run
    advance = Advance(run=run, view_wanted=True)
    if not interrupt_claim(pause=pause, decision=decision, answer=answer, answered_by=answered_by):
        # Lost the race: another answer (on this worker or another) took the claim first.
        raise Stale(DETAIL_STALE, **stale_body(pause, thread.id))
    event_append(thread.id, EventType.ANSWERED, {"interrupt": pause.id, "status": "answered",
                                                 "decision": decision, "by": answered_by or None})
    planned = pause.kind in (Interrupt.Kind.CONFIRM, Interrupt.Kind.OUTCOME_UNKNOWN) or (
        pause.kind == Interrupt.Kind.ASK and not pause.payload.get("delegate"))
    # The run's next steps are taken in this transaction: an approval need not
    # be saved on its own, the step's claim to run saves it (``first_from``).
    here = planned and not run.plan.get("steps") and not (pause.kind == Interrupt.Kind.CONFIRM
                                                          and decision == "cancel_all")
    go_on = _apply(pause, decision, value, advance, save_approval=not here)
    prepared = None
    if here:
        if go_on:
            agent = registry.get_agent(run.agent)
            unsaved = pause.kind == Interrupt.Kind.CONFIRM and decision == "approve"
            prepared = advance_segment(run, agent, registry.withdrawn_tools(agent), advance, first=pause.step,
                                       first_from=Step.Status.WAITING if unsaved else None)
        if prepared is None:
            reply_and_view(advance)
    return advance, pause, go_on, prepared


def interrupt_claim(*, pause: Interrupt, decision: str, answer: Any, answered_by: str) -> bool:
    """The claim: one conditional UPDATE; True for the one answer that wins."""
    return Interrupt.objects.filter(pk=pause.pk, status=Interrupt.Status.OPEN).update(
        status=Interrupt.Status.ANSWERED, decision=decision, answer=answer,
        answered_by=answered_by[:200], answered_at=timezone.now(),
    ) == 1


def _answer_value(pause: Interrupt, answer: Any) -> Any:
    """The answer to a question, validated against the question shown (SPEC §7.5)."""
    if not isinstance(answer, dict):
        raise InvalidAnswer(DETAIL_ANSWER_SHAPE)
    try:
        return validate_answer(pause.payload.get("ask") or {}, answer)
    except (AnswerError, QuestionError) as exc:
        raise InvalidAnswer(str(exc)) from exc


def _apply(pause: Interrupt, decision: str, value: Any, advance: Advance, save_approval: bool = True) -> bool:
    """Apply a claimed decision to the run (inside the claim's transaction).
    True when the run goes on. ``save_approval`` False: an approved step is
    marked in memory only, for the caller to claim in this transaction."""
    run = pause.run
    run_status_set(run, Run.Status.RUNNING)
    if pause.kind == Interrupt.Kind.CONFIRM:
        return _apply_confirm(run, pause.step, decision, advance, save_approval)
    if pause.kind == Interrupt.Kind.OUTCOME_UNKNOWN:
        return _apply_outcome(run, pause.step, decision, advance)
    if pause.kind == Interrupt.Kind.ASK:
        return _apply_ask(run, pause, value)
    if pause.kind == Interrupt.Kind.SAGA_STUCK:
        return _apply_saga(run, pause, decision, advance)
    if pause.kind == Interrupt.Kind.DELEGATE and decision == "decline":
        run_status_set(run, Run.Status.DONE)
        advance.lines.append(text(run.language, "declined"))
        return False
    run_lease_take(run)  # delegate approve: this worker asks the model after the claim commits
    return False


def _apply_confirm(run: Run, step: Step | None, decision: str, advance: Advance, save_approval: bool = True) -> bool:
    assert step is not None
    if decision == "approve":
        if save_approval:
            step_status_set(step, Step.Status.APPROVED)
        else:
            step.status = Step.Status.APPROVED
        return True
    if decision == "skip":
        step_status_set(step, Step.Status.SKIPPED)
        event_append(run.thread_id, EventType.STEP, {"step": step.index, "tool": step.tool, "status": "skipped"})
        advance.lines.append(text(run.language, "skipped", tool=step.tool))
        return True
    # cancel_all: this and every later call are left out, and what the run did is undone.
    steps_cancel(run, from_index=step.index)
    # A team's steps may wait on several pauses at once (SPEC §7.3): a run that
    # ends waits on nothing, so the others close too; then it undoes what it did.
    run_pauses_close(run, status=Interrupt.Status.CANCELLED)
    saga_start(run, then=Run.Status.CANCELLED)
    event_append(run.thread_id, EventType.STEP, {"step": step.index, "tool": step.tool, "status": "cancelled"})
    advance.lines.append(text(run.language, "cancelled"))
    return False


def _apply_outcome(run: Run, step: Step | None, decision: str, advance: Advance) -> bool:
    assert step is not None
    if decision == "happened":
        happened_record(step)  # the effect, its undo registered, the receipt's verdict
        step_status_set(step, Step.Status.SUCCEEDED)
        advance.lines.append(text(run.language, "happened", tool=step.tool))
        return True
    # did_not_happen: back to the check, so a retry is a person's decision.
    not_happened_record(step)
    step.generation += 1
    step.save(update_fields=["generation", "updated_at"])
    step_status_set(step, Step.Status.PLANNED)
    return True


def _apply_ask(run: Run, pause: Interrupt, value: Any) -> bool:
    step = pause.step
    if step is None:  # the model's own question: this worker tells the model after the claim commits
        run_lease_take(run)
        return False
    argument = pause.payload.get("argument")
    if argument:
        if isinstance(value, str):
            value = registry.selector_for(registry.get_agent(run.agent)).typed_answer(
                step.tool, argument, value, language=run.language)
        args = [a for a in step.arguments if a["name"] != argument]
        args.append({"name": argument, "value": value, "origin": "reply"})
        step.arguments = args
    elif pause.payload.get("tools"):
        step.tool = str(value)
        tool = registry.get_agent(run.agent).tool(step.tool)
        step.kind = tool.kind if tool else "write"
        step.save(update_fields=["tool", "kind", "updated_at"])
    step_status_set(step, Step.Status.PLANNED)
    return True


def _apply_saga(run: Run, pause: Interrupt, decision: str, advance: Advance) -> bool:
    """``saga_stuck`` (SPEC §7.1): ``retry`` tries the undo again; ``done_by_hand``
    records it undone by a person; ``abandon`` leaves it, reported as not
    undone. Either way the saga then goes on with the older writes."""
    undo = pause.step
    assert undo is not None and undo.undo_of_id is not None
    write = Step.objects.get(pk=undo.undo_of_id)
    report = dict(run.rollback or {"undone": [], "not_undoable": [], "stuck": []})
    stuck = [e for e in report.get("stuck", []) if e.get("step") != write.index]
    entry = next((e for e in report.get("stuck", []) if e.get("step") == write.index),
                 {"step": write.index, "tool": write.tool, "undo": undo.tool, "undo_step": undo.index})
    if decision == "retry":
        report["stuck"] = stuck
        undo.generation += 1  # stuck again, it pauses under a new id
        undo.save(update_fields=["generation", "updated_at"])
        step_status_set(undo, Step.Status.FAILED)
    elif decision == "done_by_hand":
        report["stuck"] = stuck
        report["undone"] = [*report.get("undone", []),
                            {k: v for k, v in entry.items() if k != "error"} | {"by": "hand"}]
        step_status_set(undo, Step.Status.SKIPPED)
        step_status_set(write, Step.Status.UNDONE)
        event_append(run.thread_id, EventType.STEP, {"step": write.index, "tool": write.tool, "status": "undone",
                                                     "by": "hand"})
        advance.lines.append(text(run.language, "done_by_hand", tool=write.tool))
    else:  # abandon
        step_status_set(undo, Step.Status.CANCELLED)
        advance.lines.append(text(run.language, "abandoned", tool=write.tool))
    Run.objects.filter(pk=run.pk).update(rollback=report)
    run.rollback = report
    return True
