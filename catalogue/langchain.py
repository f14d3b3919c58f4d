"""LangChain tools into a catalogue, in process (docs/agent-file.md, "LangChain").

``tool_catalogue(tools, agent="Shop")`` turns ``BaseTool`` objects into
``Tool`` entries. ``langchain-core`` is an optional extra: this module imports
it only to check what it is given.

Kind: a tool reads only where its ``metadata`` says ``read: true`` (or
``kind: "read"``); everything else is a write (never guessed toward read).
Declarations go in ``metadata`` under their catalogue names (``compensation``,
``idempotency``, ``irreversible``, ...).

Binding: a tool made from a module-level function (``@tool`` or
``StructuredTool.from_function``) gets ``python: module:function``, so it runs
like any Python tool. Any other tool is kept in this module's registry under
its agent and name, and bound as ``{"langchain": {"agent": ..., "tool": ...}}``;
``catalogue.bindings.langchain`` runs it from there (in this process only).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from catalogue.bindings.langchain import invoke_langchain, register
from catalogue.importers import SourceError, declarations_from
from catalogue.tools import Tool

NOT_A_TOOL = "{obj!r} is not a LangChain BaseTool"
DUPLICATE_NAME = "two tools are named {name!r}"

def _input_schema(tool: Any) -> dict[str, Any]:
    schema: Any = None
    try:
        schema = tool.tool_call_schema.model_json_schema()
    except Exception:  # a tool whose schema is not pydantic: its args are still known
        args = getattr(tool, "args", {}) or {}
        schema = {"type": "object", "properties": dict(args)}
    out: dict[str, Any] = {k: v for k, v in dict(schema).items() if k not in ("title", "description")}
    out.setdefault("type", "object")
    out.setdefault("properties", {})
    return out


def _python_target(tool: Any) -> str | None:
    func = getattr(tool, "func", None)
    qualname = getattr(func, "__qualname__", "")
    module = getattr(func, "__module__", "")
    if func is None or not module or not qualname or "<" in qualname:
        return None
    return f"{module}:{qualname}"


def tool_catalogue(tools: Iterable[Any], *, agent: str = "") -> list[Tool]:
    """``BaseTool`` objects as catalogue tools of ``agent``."""
    from langchain_core.tools import BaseTool

    out: list[Tool] = []
    for i, lc_tool in enumerate(tools):
        if not isinstance(lc_tool, BaseTool):
            raise SourceError(f"tools[{i}]", NOT_A_TOOL.format(obj=lc_tool))
        name = str(lc_tool.name)
        if any(t.name == name for t in out):
            raise SourceError(f"tools[{i}]", DUPLICATE_NAME.format(name=name))
        metadata: Mapping[str, Any] = lc_tool.metadata or {}
        read = metadata.get("read") is True or metadata.get("kind") == "read"
        if metadata.get("write") is True:
            read = False
        result_schema = metadata.get("result_schema")
        target = _python_target(lc_tool)
        if target:
            binding: dict[str, Any] = {"python": target}
        else:
            binding = register(agent, name, lc_tool)
        out.append(Tool(
            name=name,
            kind="read" if read else "write",
            description=str(lc_tool.description or ""),
            input_schema=_input_schema(lc_tool),
            result_schema=dict(result_schema) if isinstance(result_schema, Mapping) else None,
            binding=binding,
            **declarations_from(metadata, place=f"tools[{i}].metadata"),
        ))
    return out


__all__ = ["tool_catalogue", "invoke_langchain"]
