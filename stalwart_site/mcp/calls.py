"""The gateway's Django side (sync): who calls, what they are shown, and a
call through the engine.

A **caller** is an MCP client key (``approvals.McpClient``: its name, its
privileges, its context values) or, where no key is in force, ``local`` (a
loopback client, or ``stalwart mcp`` over stdio). A caller's **session** in
Stalwart is the caller and the name its client gives itself: it outlives a
transport's session (a reconnect, a worker that restarts), so a call repeated
after either finds its pause. A session's calls are one thread,
``mcp-<client>-<session>``, that belongs to it alone.

``call_start`` proposes a ``tools/call`` to the engine (``call_propose``:
every argument of origin ``agent``, the key's context values of origin
``context``, taint kept across the session) unless the same call (tool and
canonical arguments) came in the same session within the agent's replay
window and its outcome was never delivered: then that call's run is the
answer, waiting or done, and nothing is sent again. What a call became is an
``Outcome``, read from the run's answer.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from approvals.models import McpCall, McpClient
from catalogue import registry
from catalogue.agentfile import AgentSpec
from threads.engine import call_propose, run_read
from threads.keys import thread_key
from threads.models import Interrupt
from threads.tokens import canonical

PAUSE_STATUS_TOOL = "stalwart_pause_status"
LOCAL = "local"
# The pauses a held call reports as results rather than waits on (SPEC §15).
REPORTED_KINDS = {Interrupt.Kind.OUTCOME_UNKNOWN: "outcome_unknown", Interrupt.Kind.SAGA_STUCK: "saga_stuck"}
STEP_STATUS = {"succeeded": "done", "refused": "refused", "failed": "failed", "skipped": "skipped",
               "cancelled": "cancelled", "undone": "undone", "superseded": "cancelled"}


@dataclass(frozen=True)
class Caller:
    name: str  # the client's name in Stalwart (a key's name, or "local")
    session: str  # the caller's session (see the module's docstring)
    privileges: tuple[str, ...] = ()
    context: dict[str, Any] = field(default_factory=dict)

    @property
    def thread_id(self) -> str:
        """The session's thread, by its stored key (``threads.keys``), as for every door."""
        return thread_key(f"mcp-{self.name}-{self.session}"[:128], self.session_hash)

    @property
    def session_hash(self) -> str:
        return hashlib.sha256(f"mcp:{self.name}:{self.session}".encode()).hexdigest()


def caller_for(client: McpClient | None, client_info: str) -> Caller:
    """The caller a request comes from: its key's client (None: ``local``) and its client's own name."""
    name = client.name if client is not None else LOCAL
    session = hashlib.sha256(f"{name}\n{client_info}".encode()).hexdigest()[:12]
    if client is None:
        return Caller(name=name, session=session)
    return Caller(name=name, session=session, privileges=tuple(client.privileges), context=dict(client.context))


@dataclass
class Outcome:
    """What a proposed call became, as the client is told it."""

    status: str  # done | refused | failed | skipped | cancelled | undone | waiting | outcome_unknown | saga_stuck
    run: str = ""
    result: Any = None
    rule: str = ""
    sentence: str = ""
    error: str = ""
    pause: dict[str, Any] | None = None  # the pause it waits on (as SPEC §10 shows it)
    reply: str = ""
    lost: bool = False  # the client's own answer came after another's

    @property
    def waits(self) -> bool:
        return self.status == "waiting"

    @property
    def is_error(self) -> bool:
        return self.status in ("refused", "failed")


def agent_of(name: str | None) -> AgentSpec:
    return registry.get_agent(name)


def tools_shown(agent: AgentSpec) -> list[dict[str, Any]]:
    """The agent's tools as ``tools/list`` shows them: the withdrawn left out,
    idempotency arguments hidden (the engine fills them), the hints from the
    kind and the declarations; plus the read-only pause status tool."""
    withdrawn = registry.withdrawn_tools(agent)
    shown = []
    for tool in agent.tools:
        if tool.name in withdrawn:
            continue
        schema = json.loads(json.dumps(dict(tool.input_schema)))
        hidden = (tool.idempotency or {}).get("argument")
        if hidden:
            schema.get("properties", {}).pop(hidden, None)
            schema["required"] = [r for r in schema.get("required", []) if r != hidden]
            if not schema["required"]:
                schema.pop("required")
        schema.setdefault("type", "object")
        shown.append({"name": tool.name, "description": tool.description or tool.words, "input_schema": schema,
                      "read_only": not tool.is_write, "destructive": bool(tool.is_write and tool.irreversible),
                      "idempotent": bool(tool.idempotency)})
    shown.append({"name": PAUSE_STATUS_TOOL, "input_schema": {
        "type": "object", "properties": {"pause_id": {"type": "string", "description": "The pause's id."}},
        "required": ["pause_id"]}, "read_only": True, "destructive": False, "idempotent": True,
        "description": "What became of a pause a call waited on: still waiting, or its call's outcome. "
                       "It answers nothing: a person approves or skips the call."})
    return shown


def arguments_hash(tool: str, arguments: dict[str, Any]) -> str:
    return hashlib.sha256(f"{tool}\n{canonical(arguments)}".encode()).hexdigest()


def call_start(caller: Caller, agent: AgentSpec, tool: str, arguments: dict[str, Any]) -> Outcome:
    """The call through the check, or the same call's run found again (see the module's docstring)."""
    digest = arguments_hash(tool, arguments)
    since = timezone.now() - timedelta(seconds=agent.mcp.replay)
    earlier = (McpCall.objects.filter(thread_id=caller.thread_id, arguments_hash=digest, created_at__gte=since,
                                      delivered_at__isnull=True).order_by("-created_at").first())
    if earlier is not None:
        return outcome_of(run_read(earlier.run_id))
    def noted(run_id: str) -> None:  # in the run's own transaction: a pause is never without its record
        McpCall.objects.create(client=caller.name, thread_id=caller.thread_id, run_id=run_id, tool=tool,
                               arguments_hash=digest)

    return outcome_of(call_propose(thread_id=caller.thread_id, session_hash=caller.session_hash, tool=tool,
                                   arguments=arguments, origin="agent", agent=agent.name, context=caller.context,
                                   privileges=caller.privileges, session_taint=True, on_run=noted,
                                   text=f"{caller.name}: {tool} {canonical(arguments)}"))


def call_outcome(run_id: str) -> Outcome:
    return outcome_of(run_read(run_id))


def delivered(caller: Caller, run_id: str) -> None:
    """The client got this call's outcome: the same call is a new call from now on."""
    McpCall.objects.filter(thread_id=caller.thread_id, run_id=run_id, delivered_at__isnull=True).update(
        delivered_at=timezone.now())


def outcome_of(answer: dict[str, Any]) -> Outcome:
    run = answer["run"]
    reply = (answer.get("reply") or {}).get("text", "")
    pause = next((p for p in answer["waiting"] if p.get("run") == run), None)
    if pause is not None:
        return Outcome(status=REPORTED_KINDS.get(pause["kind"], "waiting"), run=run, pause=pause, reply=reply)
    step = next((s for s in answer["steps"] if s["step"] == 1), None)
    if step is None or answer["status"] == "running" or step["status"] in ("planned", "approved", "running"):
        return Outcome(status="waiting", run=run, reply=reply)  # on its way (a call in flight, an approval carried on)
    if step["status"] == "refused":
        refusal = next((r for r in answer["refusals"] if r["step"] == 1), {})
        return Outcome(status="refused", run=run, rule=refusal.get("rule", ""), sentence=refusal.get("sentence", ""),
                       reply=reply)
    status = STEP_STATUS.get(step["status"], step["status"])
    return Outcome(status=status, run=run, result=step.get("result"), error=step.get("error", ""), reply=reply)


def pause_of(caller: Caller, pause_id: str) -> Outcome | None:
    """``stalwart_pause_status``: what became of a pause of this caller's session (else None)."""
    run_id = (Interrupt.objects.filter(pk=pause_id, thread_id=caller.thread_id).values_list("run_id", flat=True)
              .first())
    return None if run_id is None else call_outcome(run_id)


def pause_url(pause_id: str, base: str = "") -> str:
    """Where a person answers the pause: its page in the console, which checks who opens it."""
    return f"{(settings.PUBLIC_URL or base).rstrip('/')}/admin/threads/interrupt/{pause_id}/change/"


def answer_for(caller: Caller, pause: dict[str, Any], decision: str) -> Outcome:
    """The MCP client itself answers (form elicitation, ``mcp: {approver: client}``):
    through the same claim as every answer; a loser is told what won."""
    from threads.engine import pause_answer
    from threads.errors import Stale

    try:
        answer = pause_answer(thread_id=caller.thread_id, pause_id=pause["id"], decision=decision,
                              token=pause["token"], by=f"mcp client {caller.name}", via=Interrupt.Via.MCP)
    except Stale:
        lost = call_outcome(pause["run"])
        lost.lost = True
        return lost
    return outcome_of(answer)
