"""What came back from a tool call (docs/agent-file.md, "Bindings"), and how an in-process call is classified.

Every binding answers with an ``Outcome`` whose ``transport`` is one of
``ok``, ``refused``, ``error``, ``timeout``, ``no_response``. ``timeout`` and
``no_response`` are *ambiguous*: the effect may or may not have happened.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

Transport = Literal["ok", "refused", "error", "timeout", "no_response"]
AMBIGUOUS: frozenset[str] = frozenset({"timeout", "no_response"})


class OutcomeUnknown(Exception):
    """Raised by a Python tool whose effect may have happened (a lost reply).

    ``TimeoutError`` means the same (docs/getting-started.md, "Wire your own Python tool").
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
    """Run an in-process tool call and classify what happened (docs/agent-file.md, "Bindings"):
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
