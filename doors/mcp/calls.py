"""The gateway's Django side (sync): who calls, what they are shown, and a
call through the engine's facade.

A **caller** is an MCP client key (``doors.mcp.models.McpClient``: its name,
its privileges, its context values) or, where no key is in force, ``local``
(a loopback client, or ``stalwart mcp`` over stdio). A caller's **session**
in Stalwart is the caller and the name its client gives itself: it outlives
a transport's session (a reconnect, a worker that restarts), so a call
repeated after either finds its pause. A session's calls are one thread,
``mcp-<client>-<session>``, that belongs to it alone.

``call_start`` proposes a ``tools/call`` to the engine (``call_propose``:
every argument of origin ``agent``, the key's context values of origin
``context``, taint kept across the session), naming it in the engine's
replay journal by its tool and canonical arguments in the session (a read
the check can only run or refuse takes no row: ``can_run_at_once``). Of two
identical calls at once (one worker or two), the journal's constraint lets
one propose; the other gets that call's run. An identical call later gets
the same run while its outcome was not delivered (it re-attaches to its
pause, or gets its result and nothing is sent again), for ``mcp: {replay:
SECONDS}`` after its run ended. An outcome counts as delivered only once the
client's transport took it (``doors.mcp.http``, ``doors.mcp.stdio``); a
delivered call's twin is a new call, so a model that really wants a second
charge gets a new pause, not a replayed receipt. What a call became is the
engine's ``Outcome``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from approvals.status import status_url
from catalogue import registry
from catalogue.agentfile import AgentSpec
from doors.mcp.models import McpClient
from threads.engine import (
    Outcome,
    PauseView,
    Proposer,
    ReplayKey,
    Via,
    call_propose,
    pause_answer,
    pause_read,
    replay_delivered,
    run_read,
)
from threads.errors import ApprovalRecorded, CallRefused, NotAnApprover, Stale
from threads.keys import thread_key
from threads.tokens import canonical

PAUSE_STATUS_TOOL = "stalwart_pause_status"
PAUSE_ID_MAX = 64  # a pause's id column
UNKNOWN_TOOL = "unknown_tool"  # the check's rule for a tool the catalogue does not list
LOCAL = "local"
DOOR = "mcp"
TEXT_APPROVERS = _("The approval policy on this call did not take your answer ({reason}); it waits for the "
                   "people the policy names ({given} of {needed} approvals).")


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
class Held:
    """A call as the gateway holds it: what it became (the engine's ``Outcome``),
    its row in the replay journal, and whether the client's own answer lost."""

    outcome: Outcome
    replay_id: int | None = None
    lost: bool = False  # the client's own answer came after another's
    refused: str = ""  # why an approval policy did not take the client's own answer (docs/policies.md)

    @property
    def waits(self) -> bool:
        return self.outcome.waits

    @property
    def pause(self) -> PauseView | None:
        return self.outcome.pause


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


def can_run_at_once(agent: AgentSpec, tool: str) -> bool:
    """A read the check can only run or refuse, never pause (a read without ``egress``:
    ``catalogue.check``): it takes no row in the replay journal. The journal keeps a write from
    being sent twice and makes two identical calls one pause; a read run again is harmless, and
    it never waits, so there is nothing to re-attach to (docs/decisions.md, "A gateway read's cost")."""
    found = agent.tool(tool)
    return found is not None and not found.is_write and not found.egress


def call_start(caller: Caller, agent: AgentSpec, tool: str, arguments: dict[str, Any]) -> Held:
    """The call through the check, or the same call's run found again (see the module's docstring)."""
    identity = f"{tool}\n{canonical(arguments)}"
    asked = None if can_run_at_once(agent, tool) else ReplayKey(
        door=DOOR, kind="call", caller=caller.thread_id, identity=identity, fingerprint=identity, key=tool,
        meta={"client": caller.name, "tool": tool}, keep=agent.mcp.replay, keep_after_end=True)
    try:
        answer = call_propose(thread_id=caller.thread_id, session_hash=caller.session_hash, tool=tool,
                              arguments=arguments, origin="agent", agent=agent.name, context=caller.context,
                              privileges=caller.privileges, session_taint=True, replay=asked,
                              text=f"{caller.name}: {tool} {canonical(arguments)}",
                              proposer=Proposer(door=DOOR, name=caller.name))
    except CallRefused as refused:  # refused before anything was stored: an unknown tool, arguments that do not fit
        return Held(Outcome(status="refused", run="", rule=refused.rule, sentence=str(refused.detail)))
    replay_id = answer.replayed.id if answer.replayed is not None else answer.replay_id
    return Held(answer.outcome(), replay_id)


def call_outcome(held: Held) -> Held:
    """What the held call became, read now (still saying why a policy did not take the client's answer)."""
    return Held(run_read(held.outcome.run).outcome(), held.replay_id, refused=held.refused)


def delivered(replay_id: int | None) -> None:
    """The client's transport took this call's outcome: the same call is a new call from now on."""
    if replay_id is not None:
        replay_delivered(replay_id)


def pause_of(caller: Caller, pause_id: str) -> Held | None:
    """``stalwart_pause_status``: what became of a pause of this caller's session (else None; an id
    no pause could have, a NUL or a lone surrogate in it, is none without a lookup)."""
    if not pause_id or len(pause_id) > PAUSE_ID_MAX or not pause_id.isprintable() or not pause_id.isascii():
        return None
    pause = pause_read(pause_id, thread_id=caller.thread_id)
    return None if pause is None else Held(run_read(pause.run).outcome())


def pause_url(pause_id: str, base: str = "") -> str:
    """The pause's status page, which the client's person can open without a staff account
    (``approvals.status``); it links staff to the console, where they answer."""
    return status_url(pause_id, base)


def pause_shown(pause: PauseView, base: str = "") -> dict[str, Any]:
    """A waiting call's pause as its result shows it; under an approval policy with its ``approvals``
    (who approved so far, of how many: docs/policies.md)."""
    shown = {"id": pause.id, "tool": pause.tool, "arguments": pause.arguments, "question": pause.question,
             "url": pause_url(pause.id, base)}
    if pause.extra.get("approvals"):
        shown["approvals"] = pause.extra["approvals"]
    return shown


def refused_said(held: Held) -> str:
    """Why the client's own answer was not taken, and what the call waits for ("" when it was taken)."""
    if not held.refused or held.pause is None:
        return ""
    approvals = held.pause.extra.get("approvals") or {}
    return gettext(TEXT_APPROVERS).format(reason=held.refused.rstrip("."), given=len(approvals.get("given") or []),
                                          needed=approvals.get("needed", 1)) + " "


def answer_for(caller: Caller, held: Held, decision: str) -> Held:
    """The MCP client itself answers (form elicitation, ``mcp: {approver: client}``):
    through the same claim as every answer; a loser is told what won. Under an approval policy
    (docs/policies.md) the engine decides who may answer: the client that proposed the call may not
    approve it, nor may anyone outside a named staff group (``NotAnApprover``); the call then waits for
    the people the policy names, with ``refused`` saying why. An approval short of the quorum leaves it
    waiting too."""
    pause = held.pause
    assert pause is not None
    try:
        answer = pause_answer(thread_id=caller.thread_id, pause_id=pause.id, decision=decision, token=pause.token,
                              by=caller.name, via=Via.MCP)
    except Stale:
        return Held(run_read(pause.run).outcome(), held.replay_id, lost=True)
    except NotAnApprover as refused:
        return Held(run_read(pause.run).outcome(), held.replay_id, refused=str(refused.detail))
    except ApprovalRecorded:
        return Held(run_read(pause.run).outcome(), held.replay_id)
    return Held(answer.outcome(), held.replay_id)
