"""An AG-UI request's work, through the engine's facade (``threads.engine``).

A request (``RunAgentInput``) is one of three things, decided in this order:

1. **a resume** (``resume[]`` given): every open pause of the thread must be
   answered (AG-UI's rule: no partial resume). Each entry is checked first,
   all of them before any is claimed: its id names a pause of the thread that
   is still open (else ``interrupt_stale``; past its deadline ``expired``, or
   taken as acknowledged when the entry cancels it), the token in
   ``metadata.stalwart.token`` is the one shown (``interrupt_stale``), its
   payload fits the interrupt's ``responseSchema`` (``invalid_answer``); then
   they are answered through ``pause_answer`` (``editedArgs``: ``pause_edit``,
   a new proposal checked again), oldest pause first.
2. **a turn**: the last ``user`` message, when its id is new in the thread
   (the id is the idempotency key). A thread with open pauses takes no new
   turn (``pending_interrupts``, and nothing closes): the client answers them
   first. Otherwise ``turn_submit``.
3. **nothing new** (no user message, or one already taken): a retried
   request gets the first answer's events again, and starts nothing; without
   one, the thread as it stands (as ``connect`` gives it).

What a turn or a resume did is kept (``approvals.AguiRun``): the same
request again replays its events, under the new request's ``runId``; a resume
of the same pauses with other answers is ``interrupt_stale``. Every error is
a ``RUN_ERROR`` with a ``code`` after ``RUN_STARTED``, and changes nothing.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
from dataclasses import dataclass
from typing import Any

import jsonschema
from ag_ui.core import BaseEvent, Event, RunAgentInput, RunFinishedEvent
from ag_ui.core import Interrupt as AguiInterrupt
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from pydantic import TypeAdapter

from approvals.models import AguiRun
from catalogue import registry
from stalwart_site.agui import events as ev
from threads.engine import open_pauses, pause_answer, pause_edit, run_read, turn_submit
from threads.errors import StalwartError
from threads.keys import thread_key
from threads.models import Interrupt, Message, Run, Step, Thread
from threads.tokens import canonical, token_matches

log = logging.getLogger("stalwart.agui")
security = logging.getLogger("stalwart.security")

BY = "AG-UI client"
HISTORY_RUNS = 50  # the newest runs a messages snapshot shows
_EVENT = TypeAdapter(Event)


class AguiError(Exception):
    """What a ``RUN_ERROR`` says: a code and a sentence."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


def _stalwart_error(err: StalwartError) -> AguiError:
    return AguiError(err.code, str(err.detail))


@dataclass
class Request:
    data: RunAgentInput
    session_hash: str
    agent: str
    context: dict[str, Any]
    privileges: list[str]
    language: str | None = None

    @property
    def key(self) -> str:
        """The session's thread of the client's ``threadId``, by its stored key (``threads.keys``)."""
        return thread_key(self.data.thread_id, self.session_hash)


def run_request(req: Request) -> list[BaseEvent]:
    """The events answering a ``POST /agui/<agent>/``: ``RUN_STARTED``, then what it did."""
    started = ev.run_started(req.data.thread_id, req.data.run_id)
    try:
        return [started, *_work(req)]
    except AguiError as err:
        return [started, ev.run_error(err.code, err.message)]


def connect(req: Request) -> list[BaseEvent]:
    """``POST /agui/<agent>/connect``: the thread as it stands, so a reloaded page shows what waits."""
    thread_id = req.data.thread_id
    started = ev.run_started(thread_id, req.data.run_id)
    try:
        thread = _thread_of(req.key, req.session_hash)
    except AguiError as err:
        return [started, ev.run_error(err.code, err.message)]
    return [started, *as_it_stands(thread.id if thread else None, thread_id, req.data.run_id)]


def _thread_of(thread_id: str, session_hash: str) -> Thread | None:
    """The session's thread by its key (None: not opened yet). A key is the
    session's own, so another's is never found; the check stays, answering
    the same ``not_found`` as the messages route's, never saying which."""
    thread = Thread.objects.filter(pk=thread_id).first()
    if thread is not None and not secrets.compare_digest(thread.session_hash, session_hash):
        security.warning("an AG-UI request for a thread of another session")
        raise AguiError("not_found", _("There is nothing here."))
    return thread


def _work(req: Request) -> list[BaseEvent]:
    data = req.data
    thread = _thread_of(req.key, req.session_hash)
    if data.resume:
        return _resume(req, thread)
    user = next((m for m in reversed(data.messages) if getattr(m, "role", None) == "user"), None)
    if user is None:
        return as_it_stands(thread.id if thread else None, data.thread_id, data.run_id)
    return _turn(req, thread, user.id, text_of(user.content))


def text_of(content: Any) -> str:
    """A user message's text: a string, or its text parts joined (media parts are not read)."""
    if isinstance(content, str):
        text = content
    else:
        text = " ".join(getattr(p, "text", "") for p in content if getattr(p, "type", "") == "text")
    return text.replace("\x00", " ")  # a NUL is noise, as on the messages route


# -- replays ----------------------------------------------------------------

def _fingerprint(*parts: Any) -> str:
    return hashlib.sha256(canonical(list(parts)).encode()).hexdigest()


def _kept(events: list[BaseEvent]) -> list[dict[str, Any]]:
    return [e.model_dump(mode="json", by_alias=True) for e in events]


def _replay(row: AguiRun, run_id: str) -> list[BaseEvent]:
    """The first answer's events again, under this request's run id."""
    out: list[BaseEvent] = []
    for kept in row.events:
        event = _EVENT.validate_python(kept)
        if isinstance(event, RunFinishedEvent):
            event.run_id = run_id
        out.append(event)
    return out


def _claim(thread_id: str, kind: str, key: str, fingerprint: str) -> AguiRun | None:
    """This request's row, now running (None: an earlier one holds the key)."""
    try:
        with transaction.atomic():
            return AguiRun.objects.create(thread_id=thread_id, kind=kind, key=key, fingerprint=fingerprint)
    except IntegrityError:
        return None


def _earlier(thread_id: str, kind: str, key: str, fingerprint: str, run_id: str,
             other: tuple[str, str]) -> list[BaseEvent] | None:
    """The replay of an earlier request with this key, or None when there was none;
    ``other``: the error when the earlier one asked something else."""
    row = AguiRun.objects.filter(thread_id=thread_id, kind=kind, key=key).first()
    if row is None:
        return None
    if row.fingerprint != fingerprint:
        raise AguiError(*other)
    if row.answered_at is None:
        raise AguiError("idempotency_in_progress",
                        _("The same request is still being answered; try again in a moment."))
    return _replay(row, run_id)


def _finish(row: AguiRun, run: str, events: list[BaseEvent]) -> None:
    row.run_id, row.events, row.answered_at = run, _kept(events), timezone.now()
    row.save(update_fields=["run_id", "events", "answered_at"])


# -- a turn -----------------------------------------------------------------

def _turn(req: Request, thread: Thread | None, message_id: str, text: str) -> list[BaseEvent]:
    data = req.data
    fingerprint = _fingerprint(data.thread_id, text)
    mismatch = ("idempotency_mismatch", _("This message id was sent before with other text: a new message "
                                          "takes a new id."))
    kept = _earlier(req.key, AguiRun.Kind.TURN, message_id, fingerprint, data.run_id, mismatch)
    if kept is not None:
        return kept
    if thread is not None:
        waiting = open_pauses(thread.id)
        if waiting:
            raise AguiError("pending_interrupts", _(
                "Calls in this thread wait for an answer ({ids}): answer each of them (a resume) before "
                "writing a new message.").format(ids=", ".join(p["id"] for p in waiting)))
    row = _claim(req.key, AguiRun.Kind.TURN, message_id, fingerprint)
    if row is None:
        kept = _earlier(req.key, AguiRun.Kind.TURN, message_id, fingerprint, data.run_id, mismatch)
        return kept or []
    try:
        answer = turn_submit(thread_id=req.key, session_hash=req.session_hash, text=text,
                             language=req.language, context=req.context, privileges=req.privileges,
                             agent=req.agent)
    except StalwartError as err:
        row.delete()
        raise _stalwart_error(err) from err
    except BaseException:
        row.delete()
        raise
    run = answer["run"]
    row.run_id = run  # before the messages snapshot, which gives the client's own message id back
    row.save(update_fields=["run_id"])
    reply = answer.get("reply")
    out: list[BaseEvent] = []
    for step in answer["steps"]:
        out += ev.tool_call(step, run, reply["id"] if reply else None)
        if step["status"] in ev.ENDED:
            out.append(ev.tool_result(step, run, answer["refusals"]))
    if reply:
        out += ev.text_message(reply["id"], reply["text"])
    out += _closing(req.key, data.thread_id, data.run_id, answer)
    _finish(row, run, out)
    return out


# -- a resume ---------------------------------------------------------------

@dataclass
class Planned:
    pause: dict[str, Any]
    decision: str = ""
    answer: Any = None
    edit: dict[str, Any] | None = None


CANCEL = {"confirm": "skip", "delegate": "decline", "saga_stuck": "abandon"}


def _resume(req: Request, thread: Thread | None) -> list[BaseEvent]:
    data = req.data
    entries = list(data.resume or [])
    ids = [e.interrupt_id for e in entries]
    if len(set(ids)) != len(ids):
        raise AguiError("invalid_answer", _("A resume answers each pause once."))
    if thread is None:
        raise AguiError("interrupt_stale", _("No pause of this thread has the id {id}.").format(id=ids[0]))
    fingerprint = _fingerprint(data.thread_id, [e.model_dump(mode="json", by_alias=True) for e in entries])
    key = hashlib.sha256("\n".join(sorted(ids)).encode()).hexdigest()
    stale = ("interrupt_stale", _("These pauses were answered already, otherwise: what was decided stands."))
    kept = _earlier(thread.id, AguiRun.Kind.RESUME, key, fingerprint, data.run_id, stale)
    if kept is not None:
        return kept
    waiting = {p["id"]: p for p in open_pauses(thread.id)}  # those past their deadline closed first
    rows = {p.id: p for p in Interrupt.objects.filter(thread_id=thread.id, pk__in=ids)}
    planned: list[Planned] = []
    for entry in entries:
        row = rows.get(entry.interrupt_id)
        if row is None:
            raise AguiError("interrupt_stale", _("No pause of this thread has the id {id}.").format(
                id=entry.interrupt_id))
        if row.status == Interrupt.Status.TIMED_OUT:
            if entry.status == "cancelled":
                continue  # what the protocol asks of a client holding an expired interrupt: taken as read
            raise AguiError("expired", _("The pause {id} passed its deadline and can no longer be answered; "
                                         "cancel it to go on.").format(id=row.id))
        pause = waiting.get(row.id)
        stalwart = ((entry.metadata or {}).get("stalwart") or {}) if isinstance(entry.metadata, dict) else {}
        if pause is None or not token_matches(pause["token"], stalwart.get("token")):
            if pause is not None:
                security.warning("an AG-UI resume with a token other than the one shown (thread %s)", thread.id)
            raise AguiError("interrupt_stale", _("That pause is no longer open, or the answer does not match "
                                                 "what was shown."))
        planned.append(_planned(pause, entry.status, entry.payload, row.agent or None))
    left = [pid for pid in waiting if pid not in ids]
    if left:
        raise AguiError("pending_interrupts", _("A resume answers every open pause of the thread; not answered: "
                                                "{ids}.").format(ids=", ".join(left)))
    if not planned:
        return as_it_stands(thread.id, data.thread_id, data.run_id)
    claimed = _claim(thread.id, AguiRun.Kind.RESUME, key, fingerprint)
    if claimed is None:
        return _earlier(thread.id, AguiRun.Kind.RESUME, key, fingerprint, data.run_id, stale) or []
    try:
        return _answer_all(req, thread.id, planned, claimed)
    except BaseException:
        if claimed.answered_at is None:
            claimed.delete()
        raise


def _planned(pause: dict[str, Any], status: str, payload: Any, agent: str | None = None) -> Planned:
    """An entry's decision, its payload checked against the interrupt's schema first."""
    kind = pause["kind"]
    if status == "cancelled":
        if kind not in CANCEL:
            raise AguiError("invalid_answer", _("A {kind} pause cannot be cancelled: it takes {choices}.").format(
                kind=kind, choices=", ".join(pause["choices"])))
        return Planned(pause, decision=CANCEL[kind])
    schema = ev.response_schema(pause, _tool_schema(pause, agent))
    try:
        jsonschema.validate(payload, schema)
    except jsonschema.ValidationError as exc:
        raise AguiError("invalid_answer", _("The answer to {id} does not fit its responseSchema: {reason}").format(
            id=pause["id"], reason=exc.message)) from exc
    if "editedArgs" in payload:
        if len(payload) != 1:
            raise AguiError("invalid_answer", _("editedArgs is answered alone: the edited call waits again as a "
                                                "new proposal."))
        return Planned(pause, edit=payload["editedArgs"])
    decision = payload.get("decision")
    if "approved" in payload:
        meant = "approve" if payload["approved"] else CANCEL[kind]
        if decision is not None and decision != meant:
            raise AguiError("invalid_answer", _("decision and approved say different things."))
        decision = meant
    if kind == "ask":
        decision = decision or "answer"
    if decision is None:
        raise AguiError("invalid_answer", _("The answer to {id} names no decision.").format(id=pause["id"]))
    return Planned(pause, decision=decision, answer=payload.get("answer"))


def _tool_schema(pause: dict[str, Any], agent: str | None = None) -> dict[str, Any] | None:
    """The input schema of the pause's tool (``agent``: its run's, read when not given)."""
    if pause["kind"] != "confirm" or not pause.get("tool"):
        return None
    if agent is None:
        agent = Run.objects.filter(pk=pause["run"]).values_list("agent", flat=True).first()
    try:
        tool = registry.get_agent(agent).tool(pause["tool"])
    except Exception:  # the agent or tool left the file since: the arguments shown are all there is
        return None
    return dict(tool.input_schema) if tool is not None else None


def _answer_all(req: Request, thread_id: str, planned: list[Planned], claimed: AguiRun) -> list[BaseEvent]:
    runs = list(dict.fromkeys(p.pause["run"] for p in planned))
    before: dict[str, dict[int, str]] = {r: {} for r in runs}
    for run_id, index, status in Step.objects.filter(run_id__in=runs).values_list("run_id", "index", "status"):
        before[run_id][index] = status
    answered_steps: dict[str, set[int]] = {r: set() for r in runs}
    replies: list[dict[str, Any]] = []
    error: AguiError | None = None
    answer: dict[str, Any] | None = None
    for plan in planned:
        pause = plan.pause
        if answer is not None and not Interrupt.objects.filter(pk=pause["id"], status=Interrupt.Status.OPEN).exists():
            continue  # closed by an answer before it in this resume (a cancel_all ends its run)
        try:
            if plan.edit is not None:
                answer = pause_edit(pause_id=pause["id"], token=pause["token"], by=BY, via=Interrupt.Via.AGUI,
                                    origin="typed", values={k: _edited(v) for k, v in plan.edit.items()})
            else:
                answer = pause_answer(thread_id=thread_id, pause_id=pause["id"], decision=plan.decision,
                                      token=pause["token"], answer=plan.answer, by=BY, via=Interrupt.Via.AGUI)
        except StalwartError as err:
            if answer is None:  # nothing taken yet: nothing changed
                raise _stalwart_error(err) from err
            error = _stalwart_error(err)  # lost after another was taken: what was taken is told, then this
            break
        if pause.get("step") is not None:
            answered_steps[pause["run"]].add(pause["step"])
        if answer.get("reply"):
            replies.append(answer["reply"])
    out: list[BaseEvent] = []
    last: dict[str, Any] | None = None
    for r in runs:
        now = answer if answer is not None and answer.get("run") == r else run_read(r)
        last = now
        refusals = now["refusals"]
        parent = replies[-1]["id"] if replies else None
        for step in now["steps"]:
            was = before[r].get(step["step"])
            if step["step"] in answered_steps[r] or (was is not None and was != "planned"):
                if step["step"] in answered_steps[r] and step["status"] in ev.ENDED:
                    out.append(ev.tool_result(step, r, refusals))
                continue
            if step["status"] == "planned":
                continue
            out += ev.tool_call(step, r, parent)  # a step the resume reached: a new call
            if step["status"] in ev.ENDED:
                out.append(ev.tool_result(step, r, refusals))
    for reply in replies:
        out += ev.text_message(reply["id"], reply["text"])
    if error is not None:
        out.append(ev.run_error(error.code, error.message))
        _finish(claimed, runs[-1], out)
        return out
    out += _closing(thread_id, req.data.thread_id, req.data.run_id, answer or last or {})
    _finish(claimed, runs[-1], out)
    return out


def _edited(value: Any) -> str:
    """An edited value as the console's form gives it (the selector types it by the schema again)."""
    return value if isinstance(value, str) else json.dumps(value)


# -- the thread as it stands ---------------------------------------------------

def as_it_stands(thread_id: str | None, shown: str, run_id: str) -> list[BaseEvent]:
    """``STATE_SNAPSHOT``, ``MESSAGES_SNAPSHOT`` and ``RUN_FINISHED`` with the pauses still open."""
    latest = None
    if thread_id is not None:
        latest = Run.objects.filter(thread_id=thread_id).order_by("-created_at").values_list("id", flat=True).first()
    answer = run_read(latest) if latest else {"thread": shown, "run": None, "status": None, "steps": [],
                                             "waiting": open_pauses(thread_id) if thread_id else [],
                                             "refusals": [], "rollback": None}
    return _closing(thread_id, shown, run_id, answer)


def _closing(thread_id: str | None, shown: str, run_id: str, answer: dict[str, Any]) -> list[BaseEvent]:
    waiting = answer.get("waiting") or []
    interrupts = interrupts_of(waiting)
    state = {"thread": shown, "run": answer.get("run"), "status": answer.get("status"),
             "steps": answer.get("steps") or [], "waiting": waiting, "refusals": answer.get("refusals") or [],
             "rollback": answer.get("rollback")}
    return [ev.state_snapshot(state), ev.messages_snapshot(history(thread_id) if thread_id else []),
            ev.run_finished(shown, run_id, interrupts)]


def interrupts_of(waiting: list[dict[str, Any]]) -> list[AguiInterrupt]:
    if not waiting:
        return []
    rows = {pid: (expires, agent) for pid, expires, agent in Interrupt.objects.filter(
        pk__in=[p["id"] for p in waiting]).values_list("id", "expires_at", "agent")}
    return [ev.interrupt_of(p, expires_at=rows.get(p["id"], (None, None))[0],
                            tool_schema=_tool_schema(p, rows.get(p["id"], (None, None))[1] or None))
            for p in waiting]


def history(thread_id: str) -> list[dict[str, Any]]:
    """The thread's newest runs, oldest first, as ``events.messages_snapshot`` reads them."""
    runs = list(Run.objects.filter(thread_id=thread_id).order_by("-created_at")
                .values_list("id", "text")[:HISTORY_RUNS])[::-1]
    ids = [r for r, _ in runs]
    client_ids = dict(AguiRun.objects.filter(thread_id=thread_id, kind=AguiRun.Kind.TURN, run_id__in=ids)
                      .values_list("run_id", "key"))
    messages: dict[str, dict[str, Any]] = {r: {"person": None, "replies": []} for r in ids}
    for mid, run, role, text in (Message.objects.filter(run_id__in=ids).order_by("created_at", "id")
                                 .values_list("id", "run_id", "role", "text")):
        if role == Message.Role.PERSON:
            messages[run]["person"] = messages[run]["person"] or mid
        else:
            messages[run]["replies"].append({"id": mid, "text": text})
    steps: dict[str, list[dict[str, Any]]] = {r: [] for r in ids}
    for s in Step.objects.filter(run_id__in=ids).order_by("run_id", "index"):
        view = {"step": s.index, "tool": s.tool, "status": s.status, "arguments": s.arguments,
                "result": s.result, "error": s.error, "rule": s.rule,
                "refusal": {"rule": s.rule, "sentence": s.sentence} if s.status == Step.Status.REFUSED else None}
        steps[s.run_id].append(view)
    return [{"run": r, "text": text, "user_id": client_ids.get(r) or messages[r]["person"] or f"{r}-turn",
             "replies": messages[r]["replies"], "steps": steps[r]} for r, text in runs]
