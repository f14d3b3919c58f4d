"""How a tool runs: its binding, and what came back (docs/agent-file.md, "Bindings").

Every binding answers with an ``Outcome`` whose ``transport`` is one of
``ok``, ``refused``, ``error``, ``timeout``, ``no_response``. ``timeout`` and
``no_response`` are *ambiguous*: the effect may or may not have happened, so
the engine never sends the write again blindly.

``invoke(tool, arguments, ...)`` dispatches on the binding's key: ``python``
(in process), ``http`` (an OpenAPI import) or ``mcp`` (``tools/call``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from catalogue.bindings.http import invoke_http
from catalogue.bindings.langchain import invoke_langchain
from catalogue.bindings.mcp import invoke_mcp
from catalogue.bindings.outcome import (
    AMBIGUOUS,
    Outcome,
    OutcomeUnknown,
    ToolRefused,
    Transport,
    call_in_process,
)
from catalogue.bindings.python import invoke_python
from catalogue.tools import Tool

__all__ = ["AMBIGUOUS", "Outcome", "OutcomeUnknown", "ToolRefused", "Transport", "call_in_process", "invoke"]

def invoke(
    tool: Tool,
    arguments: Mapping[str, Any],
    *,
    idempotency_key: str | None = None,
    timeout: float = 30.0,
    base_dir: str | None = None,
) -> Outcome:
    binding = tool.binding
    if "python" in binding:
        return invoke_python(tool, arguments, base_dir=base_dir)
    if "http" in binding:
        return invoke_http(tool, arguments, idempotency_key=idempotency_key, timeout=timeout)
    if "mcp" in binding:
        return invoke_mcp(tool, arguments, timeout=timeout, base_dir=base_dir)
    if "langchain" in binding:
        return invoke_langchain(tool, arguments)
    return Outcome("error", error=f"tool {tool.name!r} has no binding")
