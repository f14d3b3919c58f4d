"""How a tool runs: its binding (SPEC §3), and what came back (SPEC §9).

Every binding answers with an ``Outcome`` whose ``transport`` is one of
``ok``, ``refused``, ``error``, ``timeout``, ``no_response``. ``timeout`` and
``no_response`` are *ambiguous*: the effect may or may not have happened, so
the engine never sends the write again blindly.

``invoke(tool, arguments, ...)`` dispatches on the binding's key: ``python``
(in process), ``http`` (an OpenAPI import) or ``mcp`` (``tools/call``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from catalogue.tools import Tool

Transport = Literal["ok", "refused", "error", "timeout", "no_response"]
AMBIGUOUS: frozenset[str] = frozenset({"timeout", "no_response"})


class OutcomeUnknown(Exception):
    """Raised by a Python tool whose effect may have happened (a lost reply).

    ``TimeoutError`` means the same (SPEC §9).
    """


class ToolRefused(Exception):
    """Raised by a tool that refused the call before any effect (a 4xx, say)."""


@dataclass(frozen=True)
class Outcome:
    transport: Transport
    result: Any = None
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.transport == "ok"

    @property
    def ambiguous(self) -> bool:
        return self.transport in AMBIGUOUS


def call_in_process(func: Callable[[], Any]) -> Outcome:
    """Run an in-process tool call and classify what happened (SPEC §9):
    ``TimeoutError``/``OutcomeUnknown`` -> ``timeout`` (ambiguous),
    ``ToolRefused`` -> ``refused``, any other exception -> ``error``."""
    try:
        result = func()
    except (TimeoutError, OutcomeUnknown) as exc:
        return Outcome("timeout", error=str(exc) or "the tool's reply was lost")
    except ToolRefused as exc:
        return Outcome("refused", error=str(exc))
    except Exception as exc:  # the tool's own failure: reported, never retried blindly
        return Outcome("error", error=f"{type(exc).__name__}: {exc}")
    return Outcome("ok", result=result)


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
        from catalogue.bindings.python import invoke_python

        return invoke_python(tool, arguments, base_dir=base_dir)
    if "http" in binding:
        from catalogue.bindings.http import invoke_http

        return invoke_http(tool, arguments, idempotency_key=idempotency_key, timeout=timeout)
    if "mcp" in binding:
        from catalogue.bindings.mcp import invoke_mcp

        return invoke_mcp(tool, arguments, timeout=timeout, base_dir=base_dir)
    if "langchain" in binding:
        from catalogue.langchain import invoke_langchain

        return invoke_langchain(tool, arguments)
    return Outcome("error", error=f"tool {tool.name!r} has no binding")
