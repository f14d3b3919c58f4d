"""``StalwartMiddleware``: Stalwart's check on every tool call of a LangChain
``create_agent`` agent (SPEC §16).

    agent = create_agent(model, tools=tools, checkpointer=saver,
                         middleware=[StalwartMiddleware(tools)])

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
  sent by the engine with its receipt stored first.

The graph's tool call (its thread and the model's tool call id) is kept with
the run it became (``LangGraphCall``, source ``middleware``), so a node that
LangGraph runs again on resume finds the run: waiting, it asks again; done,
its result, and the write is never sent twice.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import ToolMessage
from langgraph.config import get_config
from langgraph.types import Command, interrupt

DETAIL_REFUSED = "Stalwart refused {tool} ({rule}): {sentence}"
DETAIL_SKIPPED = "A person declined {tool}: it was not run. Do not retry it unless they ask."
DETAIL_FAILED = "{tool} failed: {error}"


class StalwartMiddleware(AgentMiddleware):  # type: ignore[type-arg]
    """See the module's docstring. ``agent_file_or_catalogue``: an agent file's
    path, or the agent's tools (``BaseTool`` objects); ``agent``: the agent's
    name (for tools, the catalogue's); ``privileges``: those the agent's calls
    carry (a privileged tool without its privilege is refused)."""

    def __init__(self, agent_file_or_catalogue: str | Path | Iterable[Any], *, agent: str | None = None,
                 privileges: Iterable[str] = ()) -> None:
        super().__init__()
        from django.apps import apps

        from stalwart_site.bootstrap import setup

        if isinstance(agent_file_or_catalogue, str | Path):
            path, name = Path(agent_file_or_catalogue), agent
        else:
            path, name = _agent_file_of(list(agent_file_or_catalogue), agent or "LangChain"), agent or "LangChain"
        setup(agent_file=path, agent=name, migrate=not apps.ready)
        from catalogue import registry

        self.agent_file = str(path)
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

    def _checked(self, request: Any) -> Any:
        from catalogue import registry
        from doors.mcp.calls import outcome_of

        registry.use(self.agent_file, self.agent)
        from approvals.models import LangGraphCall
        from threads.engine import call_propose, pause_answer, run_read
        from threads.errors import Stale
        from threads.models import Interrupt

        call = request.tool_call
        tool, arguments, call_id = str(call["name"]), dict(call.get("args") or {}), str(call.get("id") or "")
        graph_thread, thread_id = self._thread()
        row = (LangGraphCall.objects.filter(graph=self.agent, graph_thread=graph_thread, tool_call_id=call_id,
                                            source=LangGraphCall.Source.MIDDLEWARE).first() if call_id else None)
        if row is not None:  # the node runs again (a resume): the run it became, never a second proposal
            answer = run_read(row.run_id)
        else:
            def record(run_id: str) -> None:  # in the run's own transaction: the run and its record, or neither
                if call_id:
                    LangGraphCall.objects.create(run_id=run_id, graph=self.agent, graph_thread=graph_thread,
                                                 thread_id=thread_id, source=LangGraphCall.Source.MIDDLEWARE,
                                                 tool_call_id=call_id, status=LangGraphCall.Status.PENDING)

            answer = call_propose(thread_id=thread_id, session_hash=self.session_hash, tool=tool, arguments=arguments,
                                  origin="model", agent=self.agent, privileges=self.privileges, session_taint=True,
                                  text=f"{tool} {json.dumps(arguments, default=str)}", on_run=record)
        outcome = outcome_of(answer)
        if outcome.waits and outcome.pause is not None:
            pause = outcome.pause
            decision = _decision_of(interrupt({
                "action_requests": [{"name": tool, "args": arguments, "description": pause.get("question", "")}],
                "review_configs": [{"action_name": tool, "allowed_decisions": ["approve", "reject"]}],
                "stalwart": {"pause_id": pause["id"], "token": pause["token"]},
            }))
            try:
                answer = pause_answer(thread_id=thread_id, pause_id=pause["id"], decision=decision,
                                      token=pause["token"], by="langgraph", via=Interrupt.Via.LANGGRAPH)
            except Stale:  # answered already (this node ran before, or in the console): what it became
                answer = run_read(outcome.run)
            outcome = outcome_of(answer)
            LangGraphCall.objects.filter(pk=outcome.run).update(status=LangGraphCall.Status.RESUMED)
        return _message(outcome, tool, call_id)


def _decision_of(value: Any) -> str:
    """A resume value as a confirm's decision: approve, else skip (a rejection)."""
    if isinstance(value, Mapping) and isinstance(value.get("decisions"), list) and value["decisions"]:
        value = value["decisions"][0]
    if isinstance(value, Mapping):
        value = value.get("type") or value.get("decision")
    return "approve" if value == "approve" else "skip"


def _message(outcome: Any, tool: str, call_id: str) -> ToolMessage:
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


def _agent_file_of(tools: list[Any], agent: str) -> Path:
    """An agent file for ``tools`` in the data folder (its catalogue beside it), written when it changed."""
    from catalogue.catalogue_file import dump_catalogue
    from catalogue.langchain import tool_catalogue
    from stalwart_site.bootstrap import data_dir

    folder = data_dir() / "langgraph"
    folder.mkdir(parents=True, exist_ok=True)
    slug = hashlib.sha256(agent.encode()).hexdigest()[:12]
    catalogue = folder / f"catalogue-{slug}.json"
    text = dump_catalogue(tool_catalogue(tools, agent=agent))
    if not catalogue.exists() or catalogue.read_text(encoding="utf-8") != text:
        catalogue.write_text(text, encoding="utf-8")
    path = folder / f"agent-{slug}.yaml"
    body = json.dumps({"agents": [{"name": agent, "on_unread": "refuse", "catalogue": catalogue.name}]})
    if not path.exists() or path.read_text(encoding="utf-8") != body:
        path.write_text(body, encoding="utf-8")
    return path
