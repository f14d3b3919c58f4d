"""Pauses (SPEC §7): opening them, showing them, and answering them.

An answer goes: find the pause in the thread -> it must be open -> the token
must be the one shown (constant time) -> the decision must be one the kind
takes (else 422) -> **claim** it with one conditional UPDATE
(``... SET status='answered' WHERE id=? AND status='open'``; rowcount 1
wins) in the same transaction that applies the decision to the step. The
loser of two simultaneous answers, on one worker or two, updates nothing and
gets ``409 interrupt_stale`` with what became of the pause. Only then, outside
the claim's transaction, does the winner carry the run on.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from approvals.questions import AnswerError, QuestionError, validate_answer
from approvals.tokens import pause_id, pause_token, token_matches
from catalogue import registry
from stalwart_site.errors import InvalidAnswer, InvalidDecision, NotFound, Stale
from threads.models import Interrupt, Run, Step, Thread
from threads.services import Advance, _step_set, event_append, reply_write, run_advance
from threads.texts import text

security = logging.getLogger("stalwart.security")

CHOICES: dict[str, list[str]] = {
    Interrupt.Kind.CONFIRM: ["approve", "skip", "cancel_all"],
    Interrupt.Kind.OUTCOME_UNKNOWN: ["happened", "did_not_happen"],
    Interrupt.Kind.SAGA_STUCK: ["retry", "done_by_hand", "abandon"],
    Interrupt.Kind.ASK: ["answer"],
    Interrupt.Kind.DELEGATE: ["approve", "decline"],
}

DETAIL_STALE = "That pause is no longer open, or the answer does not match what was shown."
DETAIL_DECISION = "A {kind} pause takes {choices}, not '{decision}'."
DETAIL_NO_PAUSE = "This thread has no pause with that id."
DETAIL_ANSWER_SHAPE = 'An answer is {"kind": "choice", "index": N} or {"kind": "open", "text": ...}.'


def pause_open(
    *, run: Run, step: Step | None, kind: str, tool: str, payload: dict[str, Any], generation: int = 0
) -> Interrupt:
    """Open a pause (inside the caller's transaction). Its id is derived: the
    same call paused for the same reason at the same point has the same id."""
    index = step.index if step else None
    generation = step.generation if step else generation
    # A question's identity is also what it asks (which argument, or which tools):
    # two questions on one step are two pauses.
    asked = [payload.get("argument"), payload.get("tools")] if kind == Interrupt.Kind.ASK else []
    pid = pause_id(run_id=run.id, step=index, kind=kind, generation=generation,
                   arguments=[payload.get("arguments"), *asked])
    expires = None
    if kind == Interrupt.Kind.ASK:
        expires = timezone.now() + timedelta(seconds=settings.STALWART_ASK_TIMEOUT)
    pause, created = Interrupt.objects.get_or_create(
        id=pid,
        defaults={"thread_id": run.thread_id, "run": run, "step": step, "agent": run.agent, "kind": kind,
                  "tool": tool, "payload": {**payload, "choices": CHOICES[kind]}, "expires_at": expires},
    )
    if created:
        event_append(run.thread_id, "waiting", present(pause))
        transaction.on_commit(lambda: _notify(pause))
    return pause


def _notify(pause: Interrupt) -> None:
    from approvals.notify import notify_pause

    notify_pause(pause)


def token_for(pause: Interrupt) -> str:
    return pause_token(
        settings.SECRET_KEY, pause=pause.id, tool=pause.tool, arguments=pause.payload.get("arguments"),
        run_id=pause.run_id, step=_step_index(pause),
    )


def _step_index(pause: Interrupt) -> int | None:
    return pause.step.index if pause.step_id else None


def present(pause: Interrupt) -> dict[str, Any]:
    """A PAUSE as SPEC §10 shows it."""
    p = pause.payload
    out: dict[str, Any] = {
        "id": pause.id,
        "kind": pause.kind,
        "tool": pause.tool,
        "question": p.get("question", ""),
        "arguments": p.get("arguments", []),
        "reasons": p.get("reasons", []),
        "irreversible": bool(p.get("irreversible")),
        "choices": p.get("choices", CHOICES[pause.kind]),
        "token": token_for(pause),
        "step": _step_index(pause),
    }
    if pause.kind == Interrupt.Kind.ASK:
        out["ask"] = p.get("ask")
        out["argument"] = p.get("argument")
    return out


def expire_questions(thread_id: str, open_: list[Interrupt] | None = None) -> bool:
    """Close questions past their timeout as ``timed_out`` (SPEC §7.5).
    True when any closed."""
    now = timezone.now()
    if open_ is None:
        open_ = list(Interrupt.objects.filter(thread_id=thread_id, status=Interrupt.Status.OPEN))
    due = [p for p in open_ if p.expires_at is not None and p.expires_at < now]
    for pause in due:
        with transaction.atomic():
            if not Interrupt.objects.filter(pk=pause.pk, status=Interrupt.Status.OPEN).update(
                status=Interrupt.Status.TIMED_OUT, answered_at=now
            ):
                continue
            Step.objects.filter(pk=pause.step_id).update(status=Step.Status.CANCELLED)
            Run.objects.filter(pk=pause.run_id).update(status=Run.Status.DONE)
            event_append(thread_id, "answered", {"interrupt": pause.id, "status": "timed_out"})
        run = Run.objects.get(pk=pause.run_id)
        reply_write(Advance(run=run, lines=[text(run.language, "timed_out")]))
    return bool(due)


def open_pauses(thread_id: str) -> list[dict[str, Any]]:
    def query() -> list[Interrupt]:
        return list(Interrupt.objects.filter(thread_id=thread_id, status=Interrupt.Status.OPEN)
                    .select_related("step").order_by("created_at", "id"))

    pauses = query()
    if expire_questions(thread_id, pauses):
        pauses = query()
    return [present(p) for p in pauses]


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


def interrupt_resume(
    *,
    thread: Thread,
    interrupt_id: str,
    decision: str,
    token: str,
    answer: Any = None,
    answered_by: str = "",
    check_token: bool = True,
) -> Advance:
    expire_questions(thread.id)
    pause = Interrupt.objects.select_related("step").filter(pk=interrupt_id, thread=thread).first()
    if pause is None:
        raise NotFound(DETAIL_NO_PAUSE)
    if pause.status != Interrupt.Status.OPEN:
        raise Stale(DETAIL_STALE, **stale_body(pause, thread.id))
    if check_token and not token_matches(token_for(pause), token):
        security.warning("pause answer with a token other than the one shown (thread %s)", thread.id)
        raise Stale(DETAIL_STALE, **stale_body(pause, thread.id))
    choices = CHOICES[pause.kind]
    if decision not in choices:
        raise InvalidDecision(DETAIL_DECISION.format(kind=pause.kind, choices=", ".join(choices), decision=decision))
    value = _answer_value(pause, answer) if pause.kind == Interrupt.Kind.ASK else None

    advance = Advance(run=pause.run)
    go_on = False
    with transaction.atomic():
        claimed = Interrupt.objects.filter(pk=pause.pk, status=Interrupt.Status.OPEN).update(
            status=Interrupt.Status.ANSWERED, decision=decision, answer=answer,
            answered_by=answered_by[:200], answered_at=timezone.now(),
        )
        if claimed == 1:
            event_append(thread.id, "answered", {"interrupt": pause.id, "status": "answered",
                                                 "decision": decision, "by": answered_by or None})
            go_on = _apply(pause, decision, value, advance)
    if claimed != 1:
        # Lost the race: another answer (on this worker or another) took the claim first.
        raise Stale(DETAIL_STALE, **stale_body(pause, thread.id))
    if pause.kind == Interrupt.Kind.DELEGATE and decision == "approve":
        from threads.delegate import delegate_run

        return delegate_run(pause.run, advance)
    if pause.kind == Interrupt.Kind.ASK and pause.payload.get("delegate"):
        from threads.delegate import delegate_run

        # The model asked: its questions and the person's answers go back to it.
        return delegate_run(pause.run, advance)
    if go_on:
        return run_advance(pause.run_id, advance=advance)
    return reply_write(advance)


def _answer_value(pause: Interrupt, answer: Any) -> Any:
    """The answer to a question, validated against the question shown (SPEC §7.5)."""
    if not isinstance(answer, dict):
        raise InvalidAnswer(DETAIL_ANSWER_SHAPE)
    try:
        return validate_answer(pause.payload.get("ask") or {}, answer)
    except (AnswerError, QuestionError) as exc:
        raise InvalidAnswer(str(exc)) from exc


def _apply(pause: Interrupt, decision: str, value: Any, advance: Advance) -> bool:
    """Apply a claimed decision to the run (inside the claim's transaction).
    True when the run goes on."""
    run = pause.run
    step = pause.step
    lang = run.language
    Run.objects.filter(pk=run.id).update(status=Run.Status.RUNNING)
    if pause.kind == Interrupt.Kind.CONFIRM:
        assert step is not None
        if decision == "approve":
            _step_set(step, Step.Status.APPROVED)
            return True
        if decision == "skip":
            _step_set(step, Step.Status.SKIPPED)
            event_append(run.thread_id, "step", {"step": step.index, "tool": step.tool, "status": "skipped"})
            advance.lines.append(text(lang, "skipped", tool=step.tool))
            return True
        # cancel_all: this and every later call are left out.
        run.steps.filter(index__gte=step.index).exclude(
            status__in=[Step.Status.SUCCEEDED, Step.Status.FAILED, Step.Status.REFUSED, Step.Status.SKIPPED]
        ).update(status=Step.Status.CANCELLED)
        Run.objects.filter(pk=run.id).update(status=Run.Status.CANCELLED)
        event_append(run.thread_id, "step", {"step": step.index, "tool": step.tool, "status": "cancelled"})
        advance.lines.append(text(lang, "cancelled"))
        return False
    if pause.kind == Interrupt.Kind.OUTCOME_UNKNOWN:
        assert step is not None
        if decision == "happened":
            step.result = {"recorded_by_person": True}
            _step_set(step, Step.Status.SUCCEEDED)
            advance.lines.append(text(lang, "happened", tool=step.tool))
            return True
        # did_not_happen: back to the check, so a retry is a person's decision.
        step.generation += 1
        step.save(update_fields=["generation", "updated_at"])
        _step_set(step, Step.Status.PLANNED)
        return True
    if pause.kind == Interrupt.Kind.ASK:
        if step is None:  # the model's own question: answered after the claim commits
            return False
        argument = pause.payload.get("argument")
        if argument:
            if isinstance(value, str):
                value = registry.selector_for(registry.get_agent(run.agent)).typed_answer(
                    step.tool, argument, value, language=lang)
            args = [a for a in step.arguments if a["name"] != argument]
            args.append({"name": argument, "value": value, "origin": "reply"})
            step.arguments = args
        elif pause.payload.get("tools"):
            step.tool = str(value)
            tool = registry.get_agent(run.agent).tool(step.tool)
            step.kind = tool.kind if tool else "write"
            step.save(update_fields=["tool", "kind", "updated_at"])
        _step_set(step, Step.Status.PLANNED)
        return True
    if pause.kind == Interrupt.Kind.DELEGATE:
        if decision == "decline":
            Run.objects.filter(pk=run.id).update(status=Run.Status.DONE)
            advance.lines.append(text(lang, "declined"))
            return False
        return False  # approve: the model hand-off runs after the claim commits
    return False
