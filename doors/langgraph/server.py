"""The Agent Server API's work (docs/langgraph.md, "The Agent Server API"): the part of the
LangGraph Agent Server API that ``langgraph-sdk`` (Python and JS) and Agent Inbox call, in its
own shapes, over the graph this process serves (``bridges.served``).

- **Assistants**: one per graph served, its ``graph_id`` the graph's name, its ``assistant_id``
  a UUID derived from that name (either is accepted wherever an assistant is named).
- **Threads**: a row each (``models.GraphThread``: metadata, status), the rest read from the
  graph's checkpointer (values, next, tasks with their interrupts, history).
- **Runs**: run here, to the end, before the answer (``models.GraphRun`` keeps each). A run's
  ``input`` runs the graph through the bridge (``Bridge.run``: config kept to the caller's keys,
  every interrupt mirrored as pauses). A run's ``command.resume`` is an **answer**: each value is
  mapped to the pause it answers (``answers_of``) and given through the engine as any door's
  answer is (``answers.resume``: the interrupt still pending with the same value, the claim, who
  answered), token-free because the caller holds no token: bound instead to the interrupt pending
  now. A stale one is ``409 interrupt_stale`` and changes nothing; the graph resumes once, when
  each of its pauses is answered, with what the engine recorded (``resumes.resume_value``).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from datetime import datetime
from importlib.metadata import version
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from doors.langgraph import commands
from doors.langgraph.bridge import Bridge, GraphFailed
from doors.langgraph.callers import DETAIL_MAY_NOT_ANSWER, DETAIL_MAY_NOT_RUN, KeyMayNot
from doors.langgraph.graphthreads import thread_row
from doors.langgraph.models import GraphRun, GraphThread
from doors.langgraph.requests import caller_config, check_thread
from doors.langgraph.values import (
    interrupt_json,
    is_hitl,
    is_human_interrupt,
    jsonable,
)
from threads.errors import BadRequest, NotFound, StalwartError

NAMESPACE = uuid.UUID("5d6f2a8e-6c1b-4f3e-9a57-3e0b8c4f1d22")  # assistant ids: uuid5(NAMESPACE, graph name)
STARTED = timezone.now()
VERSION = f"stalwart {version('stalwart')}"  # what GET /info says this server is
STREAM_MODES = ("values", "updates", "events")
SORTS = ("thread_id", "status", "created_at", "updated_at")
MAX_LIMIT = 1000

DETAIL_NO_ASSISTANT = _("This server has no assistant of that id: it serves the graph {graph}.")
DETAIL_NO_THREAD = _("This server has no thread of that id.")
DETAIL_NO_RUN = _("This thread has no run of that id.")
DETAIL_THREAD_EXISTS = _("A thread of that id exists already.")
DETAIL_NOTHING_TO_RUN = _("A run needs an input or a command: this thread has nothing to go on from.")
DETAIL_INPUT_AND_COMMAND = _("A run takes an input or a command, not both.")
DETAIL_COMMAND = _('A command here is {"resume": ...}: goto and update would move the graph past what waits '
                   "on a person.")
DETAIL_NOT_HERE = _("{key} is not taken here: every run starts from the thread's latest state and runs to its end.")
DETAIL_STREAM_MODE = _("The stream modes served are values, updates and events.")
DETAIL_METADATA = _("metadata must be a JSON object.")
DETAIL_CONTEXT = _("context must be a JSON object.")
DETAIL_LIMIT = _("limit is a whole number from 1 to 1000 and offset one from 0.")
DETAIL_SORT = _("sort_by is one of thread_id, status, created_at and updated_at; sort_order asc or desc.")
DETAIL_APPROVALS = _("Approvals: {given} of {needed}.")
DETAIL_STATUS = _("status is one of idle, busy, interrupted and error.")
# Run-body keys that would start a run elsewhere than the thread's latest state, stop it where no person
# asked, or call out: refused when given (a null is as good as absent).
REFUSED_KEYS = ("checkpoint", "checkpoint_id", "interrupt_before", "interrupt_after", "webhook", "after_seconds")


def iso(moment: datetime | str | None) -> str | None:
    return moment.isoformat() if isinstance(moment, datetime) else moment


# -- assistants -------------------------------------------------------------------------
def assistant_id(bridge: Bridge) -> str:
    return str(uuid.uuid5(NAMESPACE, bridge.name))


def assistant_json(bridge: Bridge) -> dict[str, Any]:
    return {"assistant_id": assistant_id(bridge), "graph_id": bridge.name, "name": bridge.name,
            "description": None, "config": {}, "context": {}, "metadata": {"created_by": "system"},
            "version": 1, "created_at": iso(STARTED), "updated_at": iso(STARTED)}


def assistant_check(bridge: Bridge, given: Any) -> str:
    """The assistant a request names (its id or its graph's name; None: the one served)."""
    if given is None or given in (assistant_id(bridge), bridge.name):
        return assistant_id(bridge)
    raise NotFound(str(DETAIL_NO_ASSISTANT).format(graph=bridge.name))


def assistants_search(bridge: Bridge, body: Mapping[str, Any]) -> list[dict[str, Any]]:
    graph_id, metadata = body.get("graph_id"), body.get("metadata") or {}
    if graph_id not in (None, bridge.name) or not isinstance(metadata, Mapping) or \
            any(assistant_json(bridge)["metadata"].get(k) != v for k, v in metadata.items()):
        return []
    offset = _whole(body.get("offset", 0), low=0)
    return [assistant_json(bridge)][offset:]


# -- threads ----------------------------------------------------------------------------
def _checkpoint(config: Any) -> dict[str, Any] | None:
    conf = (config or {}).get("configurable") if isinstance(config, Mapping) else None
    if not conf:
        return None
    return {"thread_id": conf.get("thread_id"), "checkpoint_ns": conf.get("checkpoint_ns", ""),
            "checkpoint_id": conf.get("checkpoint_id"), "checkpoint_map": None}


def proposals(bridge: Bridge, graph_thread: str) -> dict[str, dict[int, dict[str, Any]]]:
    """What waits now, per interrupt and action (0, 1, ...): ``{"args": ..., "approvals"?: ...}``, the
    arguments of its open pause and, under an approval policy (docs/policies.md), the approvals it needs
    and those given so far. After an edit, that is the edited call, which waits for its own approval:
    what a reader is shown, and what an ``accept`` approves."""
    rows = {r.run: str(r.meta.get("interrupt")) for r in bridge.rows(graph_thread, ("open",))}
    found: dict[str, dict[int, dict[str, Any]]] = {}
    for pause in bridge.waiting(graph_thread):
        if pause.run in rows and pause.step and pause.kind == "confirm":
            now: dict[str, Any] = {"args": pause.values}
            if pause.extra.get("approvals") is not None:
                now["approvals"] = pause.extra["approvals"]
            found.setdefault(rows[pause.run], {})[pause.step - 1] = now
    return found


def shown(interrupt: Any, now: dict[str, dict[int, dict[str, Any]]]) -> dict[str, Any]:
    """An interrupt as the API shows it, each call's arguments those that wait now (``proposals``), and
    each call under an approval policy with its ``approvals`` (who approved so far, of how many)."""
    out = interrupt_json(interrupt)
    edits = now.get(out["id"])
    value = out["value"]
    if not edits:
        return out
    if is_human_interrupt(value):
        items = value if isinstance(value, list) else [value]
        for i, item in enumerate(items):
            if i in edits:
                item["action_request"]["args"] = edits[i]["args"]
                if "approvals" in edits[i]:
                    item["approvals"] = edits[i]["approvals"]
                    item["description"] = _with_approvals(item.get("description"), edits[i]["approvals"])
    elif is_hitl(value):
        for i, action in enumerate(value["action_requests"]):
            if i in edits and isinstance(action, dict):
                action["args"] = edits[i]["args"]
                if "approvals" in edits[i]:
                    action["approvals"] = edits[i]["approvals"]
    elif isinstance(value, dict) and 0 in edits and "approvals" in edits[0]:  # one call (tool_approval)
        value["approvals"] = edits[0]["approvals"]
    return out


def _with_approvals(description: Any, approvals: dict[str, Any]) -> str:
    """A HumanInterrupt's description (what Agent Inbox shows), with how many approvals it has."""
    said = str(DETAIL_APPROVALS).format(given=len(approvals.get("given") or []), needed=approvals.get("needed", 1))
    return f"{description}\n\n{said}" if description else said


def state_json(snapshot: Any, now: dict[str, dict[int, dict[str, Any]]] | None = None) -> dict[str, Any]:
    """A ``StateSnapshot`` as the API's ``ThreadState`` (its interrupts as ``shown``)."""
    now = now or {}
    tasks = [{"id": t.id, "name": t.name, "path": jsonable(list(t.path or ())),
              "error": str(t.error) if t.error else None,
              "interrupts": [shown(i, now) for i in t.interrupts or ()],
              "checkpoint": None, "state": None, "result": jsonable(getattr(t, "result", None))}
             for t in snapshot.tasks or ()]
    return {"values": jsonable(snapshot.values or {}), "next": list(snapshot.next or ()), "tasks": tasks,
            "metadata": jsonable(snapshot.metadata or {}), "created_at": snapshot.created_at,
            "checkpoint": _checkpoint(snapshot.config), "parent_checkpoint": _checkpoint(snapshot.parent_config),
            "interrupts": [shown(i, now) for i in snapshot.interrupts or ()]}


def thread_json(bridge: Bridge, row: GraphThread) -> dict[str, Any]:
    """A thread as the API shows it: its row, and its values and interrupts (by task) from the graph."""
    snapshot = bridge.graph.get_state(bridge.config(row.thread_id))
    now = proposals(bridge, row.thread_id) if snapshot.interrupts else {}
    interrupts = {t.id: [shown(i, now) for i in t.interrupts] for t in snapshot.tasks or () if t.interrupts}
    return {"thread_id": row.thread_id, "created_at": iso(row.created_at), "updated_at": iso(row.updated_at),
            "metadata": row.metadata, "status": row.status, "config": {}, "values": jsonable(snapshot.values or {}),
            "interrupts": interrupts}


def thread_of(bridge: Bridge, graph_thread: str) -> GraphThread:
    check_thread(graph_thread)
    row = GraphThread.objects.filter(graph=bridge.name, thread_id=graph_thread).first()
    if row is None:
        raise NotFound(DETAIL_NO_THREAD)
    return row


def tag_thread(bridge: Bridge, graph_thread: str) -> None:
    """As LangGraph's own server, a thread run by a graph carries its ``graph_id`` and ``assistant_id``
    in its metadata (Agent Inbox lists an inbox's threads by them)."""
    row = GraphThread.objects.get(graph=bridge.name, thread_id=graph_thread)
    tags = {"graph_id": bridge.name, "assistant_id": assistant_id(bridge)}
    if any(row.metadata.get(k) != v for k, v in tags.items()):
        GraphThread.objects.filter(pk=row.pk).update(metadata={**row.metadata, **tags})


def thread_create(bridge: Bridge, body: Mapping[str, Any]) -> dict[str, Any]:
    graph_thread = body.get("thread_id") or str(uuid.uuid4())
    if not isinstance(graph_thread, str):
        raise BadRequest(str(_("thread_id must be a string.")))
    check_thread(graph_thread)
    metadata = _metadata(body.get("metadata"))
    row, made = thread_row(bridge.name, graph_thread, metadata=metadata)
    if not made and body.get("if_exists") != "do_nothing":
        raise ThreadExists(DETAIL_THREAD_EXISTS)
    return thread_json(bridge, row)


class ThreadExists(StalwartError):
    code = "conflict"
    http_status = 409


def threads_search(bridge: Bridge, body: Mapping[str, Any]) -> list[dict[str, Any]]:
    """``POST /threads/search``: by status and metadata (each key equal), sorted, a page of them."""
    found = GraphThread.objects.filter(graph=bridge.name)
    status = body.get("status")
    if status is not None:
        if status not in GraphThread.Status.values:
            raise BadRequest(DETAIL_STATUS)
        found = found.filter(status=status)
    ids = body.get("ids")
    if isinstance(ids, list):
        found = found.filter(thread_id__in=[str(i) for i in ids])
    sort_by, order = body.get("sort_by") or "created_at", body.get("sort_order") or "desc"
    if sort_by not in SORTS or order not in ("asc", "desc"):
        raise BadRequest(DETAIL_SORT)
    found = found.order_by(("-" if order == "desc" else "") + sort_by, "pk")
    limit, offset = _whole(body.get("limit", 10), low=1), _whole(body.get("offset", 0), low=0)
    metadata = _metadata(body.get("metadata"))
    rows = [r for r in found if all(r.metadata.get(k) == v for k, v in metadata.items())] if metadata else found
    return [thread_json(bridge, r) for r in list(rows[offset:offset + limit])]


def thread_state(bridge: Bridge, graph_thread: str) -> dict[str, Any]:
    thread_of(bridge, graph_thread)
    snapshot = bridge.graph.get_state(bridge.config(graph_thread))
    return state_json(snapshot, proposals(bridge, graph_thread) if snapshot.interrupts else {})


def thread_history(bridge: Bridge, graph_thread: str, body: Mapping[str, Any]) -> list[dict[str, Any]]:
    thread_of(bridge, graph_thread)
    limit = _whole(body.get("limit", 10), low=1)
    return [state_json(s) for _, s in zip(range(limit), bridge.graph.get_state_history(bridge.config(graph_thread)),
                                           strict=False)]


# -- runs -------------------------------------------------------------------------------
def run_json(run: GraphRun) -> dict[str, Any]:
    return {"run_id": str(run.run_id), "thread_id": run.thread_id, "assistant_id": run.assistant_id,
            "created_at": iso(run.created_at), "updated_at": iso(run.updated_at), "status": run.status,
            "metadata": run.metadata, "kwargs": run.kwargs, "multitask_strategy": "reject"}


def run_of(bridge: Bridge, graph_thread: str, run_id: str) -> GraphRun:
    thread_of(bridge, graph_thread)
    try:
        key = uuid.UUID(run_id)
    except ValueError as exc:
        raise NotFound(DETAIL_NO_RUN) from exc
    run = GraphRun.objects.filter(run_id=key, graph=bridge.name, thread_id=graph_thread).first()
    if run is None:
        raise NotFound(DETAIL_NO_RUN)
    return run


def stream_modes(given: Any) -> list[str]:
    modes = [given] if isinstance(given, str) else given if isinstance(given, list) else ["values"]
    if not modes or not all(isinstance(m, str) and m in STREAM_MODES for m in modes):
        raise BadRequest(DETAIL_STREAM_MODE)
    return list(dict.fromkeys(modes))


class RunDone:
    """A run carried out: its row, the thread's values after it, and what the graph streamed."""

    def __init__(self, run: GraphRun, values: Any, chunks: list[tuple[str, Any]]) -> None:
        self.run, self.values, self.chunks = run, values, chunks


def run_carry(bridge: Bridge, graph_thread: str, body: Mapping[str, Any], *, by: str, via: str,
              may_run: bool, may_answer: bool) -> RunDone:
    """``POST /threads/{id}/runs`` (and ``/wait``, ``/stream``): the run, carried out to its end."""
    check_thread(graph_thread)
    assistant = assistant_check(bridge, body.get("assistant_id"))
    for key in REFUSED_KEYS:
        if body.get(key) not in (None, [], {}):
            raise BadRequest(str(DETAIL_NOT_HERE).format(key=key))
    command, input_ = body.get("command"), body.get("input")
    if command is not None and input_ is not None:
        raise BadRequest(DETAIL_INPUT_AND_COMMAND)
    if command is not None and not (isinstance(command, Mapping) and "resume" in command
                                    and all(command[k] in (None, [], {}) for k in command if k != "resume")):
        raise BadRequest(DETAIL_COMMAND)
    metadata = _metadata(body.get("metadata"))
    config = _with_context(body.get("config"), body.get("context"))
    caller_config(config, graph=bridge.graph, graph_thread=graph_thread)  # refused here, before anything runs
    if command is None and input_ is None and not bridge.graph.get_state(bridge.config(graph_thread)).next:
        raise BadRequest(DETAIL_NOTHING_TO_RUN)  # no input, and nothing of the thread to go on from
    if not GraphThread.objects.filter(graph=bridge.name, thread_id=graph_thread).exists():
        # As LangGraph's own server: a run on a thread never made is 404, unless it asks to make it
        # (``if_not_exists: "create"``), which a resume cannot (nothing of it can wait).
        if command is not None or body.get("if_not_exists") != "create":
            raise NotFound(DETAIL_NO_THREAD)
        thread_row(bridge.name, graph_thread)
    tag_thread(bridge, graph_thread)
    if command is not None:
        if not may_answer:
            raise KeyMayNot(DETAIL_MAY_NOT_ANSWER)
        outcome = commands.resume_command(bridge, graph_thread, command["resume"], by=by, via=via)
    else:
        if not may_run:
            raise KeyMayNot(DETAIL_MAY_NOT_RUN)
        outcome = bridge.run(graph_thread, input_, config)
    run = GraphRun.objects.create(
        run_id=uuid.uuid4(), graph=bridge.name, thread_id=graph_thread, assistant_id=assistant,
        status=GraphRun.Status.SUCCESS, metadata=metadata, caller=by[:150],
        kwargs={"input": input_, "command": command, "config": config} if command is None
        else {"command": command, "config": config})
    return RunDone(run, final_values(bridge, graph_thread), list(outcome.get("stream") or []))


def final_values(bridge: Bridge, graph_thread: str) -> Any:
    """What ``runs.wait`` and ``join`` answer: the thread's values, with ``__interrupt__`` while one waits."""
    snapshot = bridge.graph.get_state(bridge.config(graph_thread))
    values = jsonable(snapshot.values or {})
    if snapshot.interrupts and isinstance(values, dict):
        now = proposals(bridge, graph_thread)
        values["__interrupt__"] = [shown(i, now) for i in snapshot.interrupts]
    return values


def run_failed(bridge: Bridge, graph_thread: str, body: Mapping[str, Any], by: str, error: GraphFailed) -> GraphRun:
    """A run whose graph failed, kept as ``error`` (the answer is the ``502``)."""
    return GraphRun.objects.create(run_id=uuid.uuid4(), graph=bridge.name, thread_id=graph_thread,
                                   assistant_id=assistant_id(bridge), status=GraphRun.Status.ERROR,
                                   metadata=_metadata(body.get("metadata")), caller=by[:150],
                                   error=str(error.detail))


# -- what a stream sends ------------------------------------------------------------------
def stream_events(done: RunDone, modes: list[str]) -> list[tuple[str, Any]]:
    """The events of ``runs.stream``: ``metadata``, then each chunk of the modes asked for
    (``events``: a node's start and end, from its update), in the order the graph made them."""
    events: list[tuple[str, Any]] = [("metadata", {"run_id": str(done.run.run_id), "attempt": 1})]
    for mode, chunk in done.chunks:
        if mode in modes:
            events.append((mode, chunk))
        if mode == "updates" and "events" in modes and isinstance(chunk, Mapping):
            for node in chunk:
                if node.startswith("__"):
                    continue
                meta = {"langgraph_node": node, "run_id": str(done.run.run_id)}
                events.append(("events", {"event": "on_chain_start", "name": node, "metadata": meta, "data": {}}))
                events.append(("events", {"event": "on_chain_end", "name": node, "metadata": meta,
                                          "data": {"output": chunk[node]}}))
    return events


# -- small readers ------------------------------------------------------------------------
def _whole(value: Any, *, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= (MAX_LIMIT if low else 10**9):
        raise BadRequest(DETAIL_LIMIT)
    return value


def _metadata(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise BadRequest(DETAIL_METADATA)
    return dict(value)


def _with_context(config: Any, context: Any) -> Any:
    """LangGraph's ``context`` read as ``configurable`` values (kept, as those are, to what the graph declares)."""
    if not context:
        return config
    if not isinstance(context, Mapping):
        raise BadRequest(DETAIL_CONTEXT)
    config = dict(config) if isinstance(config, Mapping) else {}
    configurable = config.get("configurable")
    config["configurable"] = {**dict(context), **(dict(configurable) if isinstance(configurable, Mapping) else {})}
    return config

