"""Running LangChain tools that have no importable function (docs/agent-file.md, "LangChain").

``catalogue.langchain.tool_catalogue`` registers such a tool here under its
agent and name and binds it as ``{"langchain": {"agent": ..., "tool": ...}}``;
``invoke_langchain`` runs it from this registry, in this process only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from catalogue.bindings.outcome import Outcome, call_in_process
from catalogue.tools import Tool

NOT_REGISTERED = "the LangChain tool {name!r} of agent {agent!r} is not registered in this process"

_REGISTRY: dict[tuple[str, str], Any] = {}


def register(agent: str, name: str, lc_tool: Any) -> dict[str, Any]:
    """Keep ``lc_tool`` for ``invoke_langchain``; returns the tool's binding."""
    _REGISTRY[(agent, name)] = lc_tool
    return {"langchain": {"agent": agent, "tool": name}}


def invoke_langchain(tool: Tool, arguments: Mapping[str, Any]) -> Outcome:
    """Run a registry-bound LangChain tool (its outcomes as for Python: docs/agent-file.md, "Bindings")."""
    spec = tool.binding["langchain"]
    lc_tool = _REGISTRY.get((str(spec.get("agent", "")), str(spec.get("tool", tool.name))))
    if lc_tool is None:
        return Outcome("refused", error=NOT_REGISTERED.format(name=tool.name, agent=spec.get("agent", "")))
    return call_in_process(lambda: lc_tool.invoke(dict(arguments)))
