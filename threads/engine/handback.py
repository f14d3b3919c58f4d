"""Mirrored pauses: another system's question kept as Stalwart pauses, its
answer handed back (docs/langgraph.md: a LangGraph graph's interrupt).

A graph run elsewhere stops at an interrupt; its bridge mirrors it here as a
**run of its own** whose id it derives (the thread, the interrupt, the
value's digest and a generation), one step per thing asked (an action
request, or the question), each waiting on a pause. Nothing runs here: the
pause is answered through the same claim, token and audit as any other
(``services.pause_answer``), and ``decisions._handback`` keeps the decision
on its step, ``handed_back`` (or ``skipped``, for a refusal), for the bridge
to hand back to the graph once every pause of the run is answered. A
step's life::

    waiting --an answer--> handed_back | skipped
            --an edit--> waiting (a new generation: a new id and token)
            --the interrupt went away--> superseded

``pause_mirror`` is idempotent: mirroring the same interrupt again (another
call, another process) finds the run and changes nothing, so its pauses
keep their ids. ``handback_edit`` is an edit: the old pause closes as
``edited`` and the same step pauses again under the new arguments, a new id
and token; it never names another tool. ``handback_close`` closes what still
waits of a mirror whose interrupt is no longer pending.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from django.db import IntegrityError
from django.utils.translation import gettext_lazy as _

from threads.engine.approvals import approval_refused
from threads.engine.checks import mirror_policy
from threads.engine.decisions import DETAIL_STALE, pause_find
from threads.engine.lifecycle import run_status_set, step_status_set
from threads.engine.pauses import pause_close, pause_open, run_pauses_close, token_for
from threads.engine.progress import Progress, new_id
from threads.engine.proposers import Proposer
from threads.engine.reads import replayed_answer, run_answer, stale_body
from threads.engine.replays import Replayed, ReplayKey, replay_take_new
from threads.engine.storable import storable_copy
from threads.engine.turns import thread_open
from threads.engine.unit import unit
from threads.engine.views import Answer
from threads.errors import InvalidAnswer, Stale
from threads.models import Event, Interrupt, Message, Run, Step
from threads.tokens import token_matches

DETAIL_OTHER_TOOL = _("An edit changes the arguments of {tool}; it cannot name another tool ({other}).")
DETAIL_NOT_MIRRORED = _("Only a mirrored call waiting for approval can be edited this way.")
DETAIL_EDIT_UNCHANGED = _("No value changed: approve or reject it instead.")
DETAIL_EDIT_SHAPE = _('An edit is {"name"?: <the same tool>, "args": {...}} with the new arguments.')


def _arguments(values: dict[str, Any], origin: str) -> list[dict[str, Any]]:
    return [{"name": str(k), "value": v, "origin": origin} for k, v in sorted(values.items())]


def pause_mirror(*, thread_id: str, session_hash: str, agent: str, run_id: str, text: str,
                 asks: list[dict[str, Any]], source: dict[str, Any], language: str = "en",
                 replay: ReplayKey | None = None, proposer: Proposer | None = None) -> Answer:
    """Mirror one interrupt as the run ``run_id`` of ``thread_id``: one step
    and one open pause per entry of ``asks`` (``{"kind": "confirm" | "ask",
    "tool", "arguments": {...}, "origin", "choices", "question", "ask"?,
    "description"?}``), in their order. ``source`` is kept on the run's plan
    (where the interrupt came from). ``replay``: the mirror's row in the
    replay journal, taken with the run (of two processes mirroring the same
    interrupt at once, one mirrors it and the other gets its run,
    ``Answer.replayed``). ``proposer``: the door and the graph, kept on the run
    (the console says who asked). Mirrored already: the run as it is."""
    if replay is None and Run.objects.filter(pk=run_id).exists():
        return run_answer(Run.objects.get(pk=run_id))
    # The graph's own values, shown to a person: what PostgreSQL cannot hold is shown as U+FFFD, never a failure
    # that would leave the graph's thread unmirrorable.
    text, asks, source = storable_copy(text), storable_copy(asks), storable_copy(source)
    try:
        with unit(thread_id, lock=False) as u:
            thread, created = thread_open(thread_id=thread_id, session_hash=session_hash, agent=agent)
            taken = replay_take_new(replay, thread_id=thread_id, run_id=run_id) if replay is not None else None
            run = Run.objects.create(id=run_id, thread=thread, agent=agent, language=language, text=text,
                                     plan={"handback": source, "calls": []},
                                     proposed_via=proposer.door if proposer else "",
                                     proposed_by=(proposer.name if proposer else "")[:200])
            message = Message.objects.create(id=new_id("m"), thread=thread, run=run, role=Message.Role.PERSON,
                                             text=text, language=language)
            u.event(Event.Type.TURN, {"run": run.id, "message": message.id, "text": text, "language": language,
                                      "superseded": []})
            progress = Progress(run=run, notices=u.notices, replay_id=taken.pk if taken is not None else None)
            for index, ask in enumerate(asks, start=1):
                arguments = _arguments(dict(ask.get("arguments") or {}), str(ask.get("origin") or "model"))
                tool = str(ask.get("tool") or "")
                policy = mirror_policy(source, tool, arguments) if ask.get("kind") != "ask" else {}
                step = Step.objects.create(run=run, index=index, tool=tool, kind=Step.Kind.WRITE,
                                           arguments=arguments,
                                           reasons=[*(ask.get("reasons") or []), *policy.get("reasons", [])])
                _open(u, run, step, ask, policy)
    except Replayed as again:
        return replayed_answer(again.row)
    except IntegrityError:  # mirrored by another process at the same moment, without a journal row: its run
        return run_answer(Run.objects.get(pk=run_id))
    answer = run_answer(progress.run, not_notified=_not_notified(progress))
    return replace(answer, replay_id=progress.replay_id)


def _not_notified(progress: Progress) -> list[dict[str, Any]]:
    from threads.engine.notify import not_notified

    return not_notified(progress.notices)


def _open(u: Any, run: Run, step: Step, ask: dict[str, Any], policy: dict[str, Any]) -> Interrupt:
    """``step``'s pause; ``policy``: what the bridge's policies make of its call (``checks.mirror_policy``),
    the approvals it needs and the deadline it got, as a pause of the run's own steps keeps them."""
    kind = Interrupt.Kind.ASK if ask.get("kind") == "ask" else Interrupt.Kind.CONFIRM
    payload: dict[str, Any] = {
        "question": str(ask.get("question") or ""), "arguments": step.arguments, "reasons": step.reasons,
        "irreversible": False, "handback": True,
        **{k: policy[k] for k in ("approvals", "policy") if k in policy},
    }
    if ask.get("description"):
        payload["description"] = str(ask["description"])
    if kind == Interrupt.Kind.ASK:
        payload["ask"] = ask.get("ask")
        payload["value"] = ask.get("value")
        payload["argument"] = None
    choices = None if kind == Interrupt.Kind.ASK else [str(c) for c in ask.get("choices") or ["approve", "reject"]]
    return pause_open(u, run=run, step=step, kind=kind, tool=step.tool, payload=payload, choices=choices)


def handback_edit(*, thread_id: str, pause_id: str, token: str, edit: Any, by: str, via: str) -> Answer:
    """An edit of a mirrored call: the same tool, new arguments (origin
    ``person``), paused again under a new id and token; the old pause closes
    as ``edited``. Another tool, or an edit of another shape, is 422; a pause
    no longer open, or another token, 409."""
    with unit(thread_id) as u:
        pause = pause_find(thread_id, pause_id)
        if not pause.payload.get("handback") or pause.kind != Interrupt.Kind.CONFIRM or pause.step is None:
            raise InvalidAnswer(DETAIL_NOT_MIRRORED)
        if pause.status != Interrupt.Status.OPEN or not token_matches(token_for(pause), token):
            raise Stale(DETAIL_STALE, **stale_body(pause, thread_id))
        refused = approval_refused(pause, decision="edit", by=by, via=via)  # a policy's group edits it, or no one
        if refused is not None:
            raise refused
        if not isinstance(edit, dict) or not isinstance(edit.get("args"), dict):
            raise InvalidAnswer(DETAIL_EDIT_SHAPE)
        name = edit.get("name", pause.tool)
        if name != pause.tool:
            raise InvalidAnswer(str(DETAIL_OTHER_TOOL).format(tool=pause.tool, other=name), rule="edit_tool")
        step, run = pause.step, pause.run
        before = {a["name"]: a.get("value") for a in step.arguments}
        after = dict(edit["args"])
        changed = {k: v for k, v in after.items() if before.get(k, object()) != v}
        if not changed and set(after) == set(before):
            raise InvalidAnswer(DETAIL_EDIT_UNCHANGED)
        if not pause_close(u, pause, status=Interrupt.Status.EDITED, decision="edit", answer={"arguments": changed},
                           by=by, via=via, arguments=changed):
            raise Stale(DETAIL_STALE, **stale_body(pause, thread_id))
        step.arguments = [{"name": k, "value": v, "origin": "person" if k in changed else
                           next((a.get("origin", "model") for a in step.arguments if a["name"] == k), "model")}
                          for k, v in sorted(after.items())]
        step.generation += 1
        # An edit is a new proposal: the policies are asked again of the new arguments, with no approvals.
        policy = mirror_policy((run.plan or {}).get("handback") or {}, step.tool, step.arguments)
        step.reasons = [*(r for r in step.reasons if not r.startswith("policy:")), *policy.get("reasons", [])]
        step_status_set(step, Step.Status.PLANNED)
        run_status_set(run, Run.Status.RUNNING)
        ask = {"kind": "confirm", "tool": step.tool, "question": pause.payload.get("question", ""),
               "choices": pause.payload.get("choices"), "description": pause.payload.get("description")}
        _open(u, run, step, ask, policy)
        progress = Progress(run=run, notices=u.notices)
    return run_answer(progress.run, not_notified=_not_notified(progress))


def handback_close(*, run_id: str, by: str = "") -> list[str]:
    """The interrupt ``run_id`` mirrors is no longer pending (the graph went
    on without Stalwart, or was answered elsewhere): what still waits of it
    closes as superseded, its steps too. The ids closed."""
    run = Run.objects.select_related("thread").get(pk=run_id)
    with unit(run.thread_id) as u:
        closed = run_pauses_close(u, run, status=Interrupt.Status.SUPERSEDED, by=by)  # their steps: cancelled
        run_status_set(run, Run.Status.SUPERSEDED, expect=(Run.Status.WAITING, Run.Status.RUNNING))
    return closed


def handback_said(*, run_ids: list[str], text: str) -> None:
    """What the system that asked did once it was handed its answers (a graph's
    output, in words), kept as each mirrored run's reply: the console shows it
    on the pause's page. A run stored no more (``reset-demo``) is passed over."""
    said = storable_copy(text)
    for run in Run.objects.filter(pk__in=run_ids).order_by("created_at"):
        with unit(run.thread_id) as u:
            message = Message.objects.create(id=new_id("m"), thread_id=run.thread_id, run=run,
                                             role=Message.Role.ASSISTANT, text=said, language=run.language)
            u.event(Event.Type.REPLY, {"run": run.id, "message": message.id, "text": message.text})
