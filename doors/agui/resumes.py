"""An AG-UI resume (``resume[]``, docs/ag-ui.md), mapped onto the engine's
``pauses_answer``: every open pause of the thread answered at once, all or
nothing.

Each entry's payload is read as what the interrupt's ``responseSchema``
offered (the protocol's shape: ``decision``, ``approved``, ``editedArgs``,
``answer``), and becomes a decision, a question's answer or an edit (all the
call's arguments, replacing those shown); the token the interrupt showed
(``metadata.stalwart.token``) goes to the engine as it came. An entry
``cancelled`` abandons its pause: it stays open (as an MCP client's cancel
leaves it), nothing is claimed for it, and the run ends listing it among
the interrupts still open; its id and token are checked all the same, and
the resume still has to speak for every open pause (``covering``).
Whether each pause is still open, past its deadline or shown with that
token is the engine's to decide, in one unit of work with the claims: a
refusal of any entry changes nothing, and comes back as a ``RUN_ERROR``
(``interrupt_stale``, ``expired``, ``pending_interrupts``,
``invalid_answer``, ``not_an_approver``). The resume is named in the replay
journal by the pauses it answers: the same resume again replays its events;
other answers to the same pauses are ``interrupt_stale``. Under an approval
policy (docs/policies.md), an approval short of the quorum is recorded and
its pause stays open: the run ends with it still pending (its
``metadata.stalwart.approvals`` says who approved); a resume that only
recorded approvals keeps nothing to replay, so a later answer to the same
pauses (a skip) is taken.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import jsonschema
from ag_ui.core import BaseEvent
from django.utils.translation import gettext as _

from doors.agui import events as ev
from doors.agui.runs import (
    DOOR,
    AguiError,
    Request,
    answered,
    as_it_stands,
    closing,
    in_progress,
    replayed,
    tool_schema,
)
from threads.engine import (
    Answer,
    Answers,
    PauseAnswer,
    PauseStatus,
    PauseView,
    ReplayKey,
    Via,
    pause_read,
    pauses_answer,
    replay_expire,
    run_read,
)
from threads.errors import InvalidAnswer, InvalidDecision, NotFound, PausesPending, Stale, StalwartError
from threads.tokens import token_matches

BY = "AG-UI client"
# What declining a pause is, by kind ({"approved": false}; an entry cancelled abandons it instead).
DECLINE = {"confirm": "skip", "delegate": "decline", "saga_stuck": "abandon"}


def resume(req: Request, opened: bool) -> list[BaseEvent]:
    data = req.data
    entries = list(data.resume or [])
    ids = [e.interrupt_id for e in entries]
    if len(set(ids)) != len(ids):
        raise AguiError("invalid_answer", _("A resume answers each pause once."))
    if not opened:
        raise AguiError("interrupt_stale", _("No pause of this thread has the id {id}.").format(id=ids[0]))
    name = hashlib.sha256("\n".join(sorted(ids)).encode()).hexdigest()
    asked = ReplayKey(door=DOOR, kind="resume", caller=req.key, identity=f"resume\n{name}", key=name, held=True,
                      fingerprint=[data.thread_id, [e.model_dump(mode="json", by_alias=True) for e in entries]])
    planned = [p for p in (_planned(req, e) for e in entries) if p is not None]
    if not planned:  # every entry abandoned: nothing answered, nothing journaled, the thread as it stands
        try:
            pauses_answer(thread_id=req.key, answers=[], by=BY, via=Via.AGUI, covering=set(ids),
                          session_hash=req.session_hash)
        except StalwartError as err:
            raise _refused(err) from err
        return as_it_stands(req.key, data.thread_id, data.run_id)
    before = {run: run_read(run).steps for run in dict.fromkeys(p.run for _given, p in planned)}
    try:
        done = pauses_answer(thread_id=req.key, answers=[a for a, _pause in planned], by=BY, via=Via.AGUI,
                             covering=set(ids), replay=asked, session_hash=req.session_hash, edit_origin="typed")
    except StalwartError as err:
        raise _refused(err) from err
    if done.replayed is not None:
        return replayed(done.replayed, asked, req, ("interrupt_stale", _(
            "These pauses were answered already, otherwise: what was decided stands.")),
            unkept=lambda: _as_they_stand(req, planned))
    if done.recorded and not done.answers and done.replay_id is not None:
        # Only approvals short of a policy's quorum: nothing was decided, so nothing is kept to replay; the
        # same resume again records nothing new, and another answer to these pauses (a skip) is taken.
        out = answered(None, lambda: _events(req, done, planned, before))
        replay_expire(done.replay_id)
        return out
    return answered(done.replay_id, lambda: _events(req, done, planned, before))


def _planned(req: Request, entry: Any) -> tuple[PauseAnswer, PauseView] | None:
    """An entry's answer, its payload checked against the interrupt's responseSchema first
    (None: a cancelled entry, which abandons its pause and answers nothing)."""
    pause = pause_read(entry.interrupt_id, thread_id=req.key)
    if pause is None:
        raise AguiError("interrupt_stale", _("No pause of this thread has the id {id}.").format(
            id=entry.interrupt_id))
    stalwart = (entry.metadata or {}).get("stalwart") if isinstance(entry.metadata, dict) else None
    token = str((stalwart or {}).get("token") or "") if isinstance(stalwart, dict) else ""
    if entry.status == "cancelled":
        # Abandoned: the pause stays open, as it was shown (its token checked); one closed meanwhile
        # (past its deadline, answered elsewhere) has nothing left to abandon, and is taken as read.
        if pause.status == PauseStatus.OPEN and not token_matches(pause.token, token):
            raise AguiError("interrupt_stale", _("That pause is no longer open, or the answer does not match "
                                                 "what was shown."))
        return None
    payload = entry.payload
    try:
        jsonschema.validate(payload, ev.response_schema(pause, tool_schema(pause)))
    except jsonschema.ValidationError as exc:
        raise AguiError("invalid_answer", _("The answer to {id} does not fit its responseSchema: {reason}").format(
            id=pause.id, reason=exc.message)) from exc
    if "editedArgs" in payload:
        if len(payload) != 1:
            raise AguiError("invalid_answer", _("editedArgs is answered alone: the edited call waits again as a "
                                                "new proposal."))
        values = {k: v if isinstance(v, str) else json.dumps(v) for k, v in payload["editedArgs"].items()}
        return PauseAnswer(pause=pause.id, token=token, edit=values, replace=True), pause
    decision = payload.get("decision")
    if "approved" in payload:
        meant = "approve" if payload["approved"] else DECLINE[pause.kind]
        if decision is not None and decision != meant:
            raise AguiError("invalid_answer", _("decision and approved say different things."))
        decision = meant
    if pause.kind == "ask":
        decision = decision or "answer"
    if decision is None:
        raise AguiError("invalid_answer", _("The answer to {id} names no decision.").format(id=pause.id))
    return PauseAnswer(pause=pause.id, token=token, decision=decision, answer=payload.get("answer")), pause


def _as_they_stand(req: Request, planned: list[tuple[PauseAnswer, PauseView]]) -> list[BaseEvent]:
    """A resume whose first answer was never kept (its worker died mid-call): a
    result for each call it answered, as its run stands now, once each has
    ended (until then, still in progress: the sweep settles a call its worker
    left, and never sends it again)."""
    out: list[BaseEvent] = []
    for _given, pause in planned:
        step = run_read(pause.run).step(pause.step) if pause.step is not None else None
        if step is None:
            continue
        if step.status in ("running", "approved"):
            raise in_progress()
        if step.ended:
            out.append(ev.tool_result(step, pause.run))
    return out + as_it_stands(req.key, req.data.thread_id, req.data.run_id)


def _refused(err: StalwartError) -> AguiError:
    """The engine's refusal, as AG-UI's codes name it."""
    if isinstance(err, Stale):
        closed = (err.extra.get("interrupt") or {}).get("status")
        if closed == PauseStatus.TIMED_OUT:
            return AguiError("expired", _("A pause of this resume passed its deadline and can no longer be "
                                          "answered; cancel it to go on."))
        return AguiError("interrupt_stale", _("That pause is no longer open, or the answer does not match what "
                                              "was shown."))
    if isinstance(err, PausesPending):
        left = ", ".join(p["id"] for p in err.extra.get("waiting", []))
        return AguiError("pending_interrupts", _("A resume answers every open pause of the thread; not answered: "
                                                 "{ids}.").format(ids=left))
    if isinstance(err, NotFound):
        return AguiError("interrupt_stale", _("No pause of this thread has that id."))
    if isinstance(err, InvalidDecision | InvalidAnswer):
        return AguiError("invalid_answer", str(err.detail))
    return AguiError(err.code, str(err.detail))


def _events(req: Request, done: Answers, planned: list[tuple[PauseAnswer, PauseView]],
            before: dict[str, list[Any]]) -> list[BaseEvent]:
    """What the resume did: a result for each call answered that ended, the
    calls it reached since, the replies, then the thread as it stands."""
    answered_steps: dict[str, set[int]] = {}
    for _given, pause in planned:
        if pause.step is not None:
            answered_steps.setdefault(pause.run, set()).add(pause.step)
    replies = [a.reply for a in done.answers if a.reply is not None]
    parent = replies[-1].id if replies else None
    now: dict[str, Answer] = {a.run: a for a in done.answers}
    out: list[BaseEvent] = []
    for run, steps_before in before.items():
        answer = now.get(run) or run_read(run)
        was = {s.step: s.status for s in steps_before}
        mine = answered_steps.get(run, set())
        for step in answer.steps:
            if step.step in mine or was.get(step.step, "planned") != "planned":
                if step.step in mine and step.ended:
                    out.append(ev.tool_result(step, run))
                continue
            if step.status == "planned":
                continue
            out += ev.tool_call(step, run, parent)  # a step the resume reached: a new call
            if step.ended:
                out.append(ev.tool_result(step, run))
    for reply in replies:
        out += ev.text_message(reply.id, reply.text)
    last = done.answers[-1] if done.answers else None
    if last is None:
        return out + as_it_stands(req.key, req.data.thread_id, req.data.run_id)
    return out + closing(req.key, req.data.thread_id, req.data.run_id, last)
