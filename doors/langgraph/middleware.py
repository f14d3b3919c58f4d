"""``StalwartMiddleware``: Stalwart's check on every tool call of a LangChain
``create_agent`` agent (docs/langgraph.md).

    agent = create_agent(model, tools=tools, checkpointer=saver,
                         middleware=[StalwartMiddleware(tools)])

(the public class, ``stalwart_site.langgraph.StalwartMiddleware``, starts
Django and writes the agent file of a list of tools; this one takes an
agent file's path, included beside the process's own at construction:
``catalogue.registry.include``, the agent then found by name on any worker.)

Each tool call the model makes is proposed to the engine (``call_propose``,
its arguments of origin ``model``) against a catalogue made from the agent's
own tools (``catalogue.langchain.tool_catalogue``: a tool's ``metadata`` says
``read: true``, its ``privilege``, ``irreversible`` and the other
declarations) or an agent file. What the check decides:

- a read runs (through the engine, which sends it) and its result is the
  ``ToolMessage``;
- a refusal (withdrawn, unknown, ``privilege:<name>``, ``arguments``) is an
  error ``ToolMessage`` with the rule and its sentence: the tool never runs;
- a write interrupts the graph with an ``HITLRequest``-shaped value plus
  ``"stalwart": {"pause_id", "token"}``. The resume value (``{"decisions":
  [{"type": "approve"}]}``, ``{"type": "reject"}``, or ``"approve"``) answers
  the pause through the same claim as any answer, and an approved write is
  sent by the engine with its receipt stored first. Under an approval
  policy (docs/policies.md) the engine decides who may answer: an approval
  short of the quorum, or an answer the policy does not take, leaves the
  graph interrupted again with the same pause, its ``stalwart.approvals``
  saying who approved so far (and ``stalwart.not_an_approver`` why an answer
  was not taken); the call runs once the last approval needed comes (from
  the console), on the graph's next resume.

The graph's tool call (its thread and the model's tool call id) names the
proposal in the engine's replay journal (door ``langchain``, kind
``tool_call``), taken with its run: a node that LangGraph runs again on
resume proposes the same call and gets that run (``Answer.replayed``):
waiting, it asks again; done, its result, and the write is never sent twice.
What the call became is the engine's ``Outcome``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import ToolMessage
from langgraph.config import get_config
from langgraph.types import Command, interrupt

from catalogue import registry
from catalogue.agentfile import load_agent_file
from threads.errors import ApprovalRecorded, CallRefused, NotAnApprover, Stale

if TYPE_CHECKING:
    from threads.engine import Outcome

DOOR = "langchain"
DETAIL_REFUSED = "Stalwart refused {tool} ({rule}): {sentence}"
DETAIL_SKIPPED = "A person declined {tool}: it was not run. Do not retry it unless they ask."
DETAIL_FAILED = "{tool} failed: {error}"


class StalwartMiddleware(AgentMiddleware):  # type: ignore[type-arg]
    """See the module's docstring. ``agent_file``: the agent file's path (Django
    set up already); ``agent``: the agent's name in it (None: its first);
    ``privileges``: those the agent's calls carry (a privileged tool without
    its privilege is refused)."""

    def __init__(self, agent_file: str | Path, *, agent: str | None = None, privileges: Iterable[str] = ()) -> None:
        super().__init__()
        self.agent_file = str(agent_file)
        registry.include(self.agent_file)
        name = agent or load_agent_file(self.agent_file).agents[0].name
        self.agent = registry.get_agent(name).name
        self.privileges = tuple(privileges)

    @property
    def session_hash(self) -> str:
        return hashlib.sha256(f"langgraph-middleware:{self.agent}".encode()).hexdigest()

    def _thread(self) -> tuple[str, str]:
        configurable = (get_config() or {}).get("configurable") or {}
        graph_thread = str(configurable.get("thread_id") or "default")
        tid = f"lgm-{self.agent}-{graph_thread}"
        return graph_thread, tid if len(tid) <= 128 else f"lgm-{hashlib.sha256(tid.encode()).hexdigest()[:40]}"

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], ToolMessage | Command[Any]]) -> Any:
        from django.db import connection

        try:
            return self._checked(request)
        finally:
            # LangGraph runs tool calls on its executor's threads: each one's database
            # connection goes back (to the pool, on PostgreSQL) once its call is done.
            if not connection.in_atomic_block:
                connection.close()

    def _went_on(self, thread_id: str, batch: set[tuple[str, str]] | None) -> None:
        """The graph went on past calls that still wait (its caller wrote again, and LangGraph dropped
        the interrupt): their pauses close as superseded, so no one approves later a call the graph
        no longer waits on. The calls of the model's current message are left as they are."""
        from threads.engine import handback_close, replay_expire, replays_find

        if batch is None:
            return
        for row in replays_find(door=DOOR, caller=self.agent, thread_id=thread_id, statuses=["open"], waiting=True):
            if (row.key, row.fingerprint) not in batch:
                handback_close(run_id=row.run, by="langgraph")
                replay_expire(row.id)

    def _checked(self, request: Any) -> ToolMessage:
        # The engine on use: this module is imported before Django starts (the public class starts it).
        from threads.engine import Proposer, ReplayKey, Via, call_propose, pause_answer, replay_keep, run_read

        call = request.tool_call
        tool, arguments, call_id = str(call["name"]), dict(call.get("args") or {}), str(call.get("id") or "")
        graph_thread, thread_id = self._thread()
        self._went_on(thread_id, _batch(request))
        # The call is the graph thread's tool call with that id AND that tool and those arguments: a model
        # that numbers its calls afresh each turn ("call-0") never has one call answered for another.
        replay = ReplayKey(door=DOOR, kind="tool_call", caller=self.agent, key=call_id,
                           identity=[graph_thread, call_id, tool, arguments], fingerprint=[tool, arguments],
                           meta={"graph_thread": graph_thread}) if call_id else None
        try:
            answer = call_propose(thread_id=thread_id, session_hash=self.session_hash, tool=tool,
                                  arguments=arguments, origin="model", agent=self.agent, privileges=self.privileges,
                                  session_taint=True, text=f"{tool} {json.dumps(arguments, default=str)}",
                                  replay=replay, proposer=Proposer(door=DOOR, name=self.agent))
        except CallRefused as refused:  # an unknown tool, arguments that do not fit: nothing stored, nothing run
            text = DETAIL_REFUSED.format(tool=tool, rule=refused.rule, sentence=refused.detail)
            return ToolMessage(content=text, name=tool, tool_call_id=call_id, status="error")
        # The same tool call proposed before (the node runs again on resume): the run it became.
        replay_id = answer.replayed.id if answer.replayed is not None else answer.replay_id
        still_open = answer.replayed is None or answer.replayed.status == "open"
        outcome = answer.outcome()
        if outcome.waits and outcome.pause is not None:
            pause = outcome.pause
            asked = _request(tool, arguments, pause.question, pause.id, pause.token, pause.extra.get("approvals"))
            while True:
                decision = _decision_of(interrupt(asked))
                try:
                    answer = pause_answer(thread_id=thread_id, pause_id=pause.id, decision=decision,
                                          token=pause.token, by="langgraph", via=Via.LANGGRAPH)
                except Stale:  # answered already (this node ran before, or in the console): what it became
                    answer = run_read(outcome.run)
                except (ApprovalRecorded, NotAnApprover) as kept:
                    # Under an approval policy: an approval short of its quorum is kept, or the policy does not
                    # take this answer; either way the call still waits for the people the policy names. The
                    # graph is interrupted again, showing the approvals so far (and why, when refused).
                    approvals = kept.approvals if isinstance(kept, ApprovalRecorded) else \
                        _approvals_now(thread_id, pause.id, pause.extra.get("approvals"))
                    refused = str(kept.detail) if isinstance(kept, NotAnApprover) else ""
                    asked = _request(tool, arguments, pause.question, pause.id, pause.token, approvals, refused)
                    continue
                break
            outcome = answer.outcome()
        if replay_id is not None and still_open and not outcome.waits:
            replay_keep(replay_id)  # settled: the same call again finds this run, and nothing is held
        return _message(outcome, tool, call_id)


def _request(tool: str, arguments: dict[str, Any], question: str, pause_id: str, token: str,
             approvals: dict[str, Any] | None, refused: str = "") -> dict[str, Any]:
    """The ``HITLRequest``-shaped value a waiting write interrupts the graph with; under an approval
    policy, ``stalwart.approvals`` (who approved so far, of how many) and, when the policy did not take
    the last answer, ``stalwart.not_an_approver`` (why)."""
    stalwart: dict[str, Any] = {"pause_id": pause_id, "token": token}
    if approvals is not None:
        stalwart["approvals"] = approvals
    if refused:
        stalwart["not_an_approver"] = refused
    return {"action_requests": [{"name": tool, "args": arguments, "description": question}],
            "review_configs": [{"action_name": tool, "allowed_decisions": ["approve", "reject"]}],
            "stalwart": stalwart}


def _approvals_now(thread_id: str, pause_id: str, known: dict[str, Any] | None) -> dict[str, Any] | None:
    from threads.engine import pause_read

    now = pause_read(pause_id, thread_id=thread_id)
    return now.extra.get("approvals", known) if now is not None else known


def _batch(request: Any) -> set[tuple[str, str]] | None:
    """The tool calls the model's last message made, each its id and the digest of
    its tool and arguments, as the journal keeps them (None: not known)."""
    from threads.engine import digest

    state = getattr(request, "state", None)
    messages = state.get("messages") if isinstance(state, Mapping) else getattr(state, "messages", None)
    for message in reversed(list(messages or [])):
        calls = getattr(message, "tool_calls", None)
        if calls:
            return {(str(c.get("id") or ""), digest([str(c["name"]), dict(c.get("args") or {})])) for c in calls}
    return None


def _decision_of(value: Any) -> str:
    """A resume value as a confirm's decision: approve, else skip (a rejection)."""
    if isinstance(value, Mapping) and isinstance(value.get("decisions"), list) and value["decisions"]:
        value = value["decisions"][0]
    if isinstance(value, Mapping):
        value = value.get("type") or value.get("decision")
    return "approve" if value == "approve" else "skip"


def _message(outcome: Outcome, tool: str, call_id: str) -> ToolMessage:
    if outcome.status == "done":
        result = outcome.result
        content = result if isinstance(result, str) else json.dumps(result, default=str)
        return ToolMessage(content=content, name=tool, tool_call_id=call_id)
    if outcome.status == "refused":
        text = DETAIL_REFUSED.format(tool=tool, rule=outcome.rule, sentence=outcome.sentence)
    elif outcome.status in ("skipped", "cancelled"):
        text = DETAIL_SKIPPED.format(tool=tool)
    else:
        text = DETAIL_FAILED.format(tool=tool, error=outcome.error or outcome.status)
    return ToolMessage(content=text, name=tool, tool_call_id=call_id, status="error")
