"""A run's ``command.resume`` as answers through the engine (docs/langgraph.md, "The Agent
Server API"): each value mapped to the pause it answers (``answers_of``) and given as any door's
answer is (``answers.resume``: the interrupt still pending with the same value, the claim, who
answered), token-free because the caller holds no token: bound instead to the interrupt pending
now. A stale one is ``409 interrupt_stale`` and changes nothing; every value is checked before
any is given. Under an approval policy (docs/policies.md) the engine decides who may answer: an
approval short of the quorum is kept and the run ends with the graph still interrupted, its
interrupt showing the approvals (``server.shown``); an answer the policy refuses is ``403
not_an_approver`` and changes nothing, the other answers of the same resume included.

| resume value | decision |
|---|---|
| a ``HumanResponse`` (Agent Inbox's; a list where it asked with one) | ``accept`` -> ``approve``, ``ignore`` -> ``skip``, ``response`` -> ``respond``, ``edit`` -> ``edit`` |
| ``{"decisions": [...]}`` (``HumanInTheLoopMiddleware``) or one decision (``tool_approval``) | ``approve``, ``reject``, ``respond``, ``edit`` |
| anything else, for a question | its answer (a string, one of its choices, or ``{"kind", ...}``) |
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext_lazy as _

from doors.langgraph import answers
from doors.langgraph.bridge import Bridge
from doors.langgraph.values import is_hitl, is_human_interrupt, is_tool_approval, jsonable
from threads.engine import PauseView, approvals_check
from threads.errors import ApprovalRecorded, BadRequest, InvalidAnswer, Stale

DETAIL_NOTHING_WAITS = _("Nothing of this thread waits on an answer: it went on without this one.")
DETAIL_SEVERAL = _("Several interrupts of this thread wait: resume with {interrupt id: value} for each.")
DETAIL_RESPONSES = _("This interrupt asks about {n} calls: resume it with one answer for each.")
DETAIL_RESPONSE = _('An answer here is a HumanResponse: {"type": "accept" | "ignore" | "response" | "edit", '
                    '"args": ...}.')
DETAIL_DECISION = _('An answer here is a decision: {"type": "approve" | "reject" | "respond" | "edit", ...}.')
DETAIL_NOT_SHOWN = _("That accept names arguments other than those that wait now: read the thread again, "
                     "and accept what it shows.")
DETAIL_EDIT_TOOL = _("An edit keeps the call's tool ({tool}); to call another, answer this one and ask again.")


def resume_command(bridge: Bridge, graph_thread: str, resume: Any, *, by: str, via: str) -> dict[str, Any]:
    """``command.resume`` as answers to what waits now (see the module's docstring)."""
    bridge.sync(graph_thread)
    with bridge.lock(graph_thread):
        pending = bridge.pending(graph_thread)
        live = {str(r.meta["interrupt"]): r for r in bridge.rows(graph_thread, ("open",))
                if bridge.still_pending(r, pending)}
        if isinstance(resume, Mapping) and resume and all(str(k) in live for k in resume):
            chosen = {k: resume[k] for k in resume}
        elif not live:
            raise Stale(DETAIL_NOTHING_WAITS, interrupt={"status": "stale"})
        elif len(live) > 1:
            raise BadRequest(DETAIL_SEVERAL)
        else:
            chosen = {next(iter(live)): resume}
        waiting = bridge.waiting(graph_thread)
        given: list[tuple[PauseView, str, Any]] = []
        for interrupt, value in chosen.items():
            row = live[str(interrupt)]
            pauses = sorted((p for p in waiting if p.run == row.run), key=lambda p: p.step or 0)
            given += answers_of(pending[str(interrupt)][0], value, pauses)  # all checked before any is given
        # Under a policy, none is given when the policy would refuse one of them (403 not_an_approver).
        approvals_check(bridge.thread_of(graph_thread), [(p.id, d) for p, d, _a in given], by=by, via=via)
        outcome: dict[str, Any] = bridge.answer(graph_thread, resumed=False)
        recorded = False
        for pause, decision, answer in given:
            try:
                outcome = answers.resume(bridge, graph_thread, {"interrupt_id": pause.id, "decision": decision,
                                                                "token": pause.token, "answer": answer},
                                         by=by, via=via)
            except ApprovalRecorded:
                # Short of an approval policy's quorum: kept, and the pause still waits; the run ends with the
                # graph interrupted as it was (its interrupt showing the approvals), as when it stops again.
                recorded = True
        if recorded:
            outcome = bridge.answer(graph_thread, resumed=False)
        return outcome


def answers_of(value: Any, resume: Any, pauses: list[PauseView]) -> list[tuple[PauseView, str, Any]]:
    """What a resume value says of each of an interrupt's open pauses: (pause, decision, answer)."""
    if not pauses:  # its pauses were answered already (another door): this answer comes too late
        raise Stale(DETAIL_NOTHING_WAITS, interrupt={"status": "stale"})
    if is_human_interrupt(value):
        responses = resume if isinstance(resume, list) else [resume]
        return _per_pause(pauses, responses, _human_response)
    if is_hitl(value):
        decisions = resume.get("decisions") if isinstance(resume, Mapping) else None
        if not isinstance(decisions, list):
            raise InvalidAnswer(DETAIL_DECISION)
        return _per_pause(pauses, decisions, _hitl_decision)
    if is_tool_approval(value):
        return _per_pause(pauses, [resume], _hitl_decision)
    pause = pauses[0]
    ask = pause.extra.get("ask") or {}
    if isinstance(resume, Mapping) and resume.get("kind") in ("open", "choice"):
        return [(pause, "answer", dict(resume))]
    if ask.get("kind") == "choice" and resume in (ask.get("choices") or []):
        return [(pause, "answer", {"kind": "choice", "index": ask["choices"].index(resume)})]
    text = resume if isinstance(resume, str) else jsonable(resume)
    return [(pause, "answer", {"kind": "open", "text": text if isinstance(text, str) else str(text)})]


def _per_pause(pauses: list[PauseView], given: list[Any], one: Any) -> list[tuple[PauseView, str, Any]]:
    if len(given) != len(pauses):
        raise InvalidAnswer(str(DETAIL_RESPONSES).format(n=len(pauses)))
    return [(p, *one(p, g)) for p, g in zip(pauses, given, strict=True)]


def _human_response(pause: PauseView, response: Any) -> tuple[str, Any]:
    """A ``HumanResponse`` as a decision: accept -> approve, ignore -> skip, response -> respond, edit -> edit."""
    if not isinstance(response, Mapping):
        raise InvalidAnswer(DETAIL_RESPONSE)
    kind, args = response.get("type"), response.get("args")
    if kind == "accept":
        # Agent Inbox sends what it showed with an accept: approved only if that is what waits now.
        if isinstance(args, Mapping) and isinstance(args.get("args"), Mapping) and dict(args["args"]) != pause.values:
            raise Stale(DETAIL_NOT_SHOWN, interrupt={"id": pause.id, "status": "open"})
        return "approve", None
    if kind == "ignore":
        return "skip", None
    if kind == "response" and isinstance(args, str):
        return "respond", {"message": args}
    if kind == "edit" and isinstance(args, Mapping) and isinstance(args.get("args"), Mapping):
        if args.get("action") not in (None, pause.tool):
            raise InvalidAnswer(str(DETAIL_EDIT_TOOL).format(tool=pause.tool))
        return "edit", {"args": dict(args["args"])}
    raise InvalidAnswer(DETAIL_RESPONSE)


def _hitl_decision(pause: PauseView, decision: Any) -> tuple[str, Any]:
    """A ``HumanInTheLoopMiddleware`` decision as the pause's."""
    if not isinstance(decision, Mapping):
        raise InvalidAnswer(DETAIL_DECISION)
    kind, message = decision.get("type"), decision.get("message")
    if kind == "approve":
        return "approve", None
    if kind == "reject":
        return "reject", {"message": message} if isinstance(message, str) and message else None
    if kind == "respond":
        return "respond", {"message": message}
    if kind == "edit":
        action = decision.get("edited_action")
        if not isinstance(action, Mapping) or not isinstance(action.get("args"), Mapping):
            raise InvalidAnswer(DETAIL_DECISION)
        if action.get("name") not in (None, pause.tool):
            raise InvalidAnswer(str(DETAIL_EDIT_TOOL).format(tool=pause.tool))
        return "edit", {"args": dict(action["args"])}
    raise InvalidAnswer(DETAIL_DECISION)
