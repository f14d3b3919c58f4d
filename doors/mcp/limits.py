"""What one caller may hold at once on the gateway (docs/mcp.md, "Limits").

A caller is a client key, or, with no key in force, one loopback address:
sessions it keeps open (``STALWART_MCP_SESSIONS``, the 2025-11-25 era's; the
2026-07-28 era keeps none) and ``tools/call`` requests it has in progress at
once (``STALWART_MCP_HELD``; a held write counts until it is answered or its
wait ends). Past either, the request is refused with a JSON-RPC error naming
the limit, before anything is stored; other callers are not touched. Counted
per process: with several workers, each keeps its own count.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.utils.translation import gettext_lazy as _
from mcp.shared.exceptions import MCPError

LIMIT_CODE = -32000  # JSON-RPC's range for a server's own errors
TEXT_SESSIONS = _("This MCP client already has {limit} sessions open, its limit (STALWART_MCP_SESSIONS): "
                  "close one (DELETE) or reuse it.")
TEXT_HELD = _("This MCP client already has {limit} calls in progress, its limit (STALWART_MCP_HELD): "
              "wait for one to be answered.")


def limit_error(text: Any, limit: int) -> dict[str, Any]:
    """A JSON-RPC error body (no request id) naming the limit."""
    return {"jsonrpc": "2.0", "id": None,
            "error": {"code": LIMIT_CODE, "message": str(text).format(limit=limit), "data": {"limit": limit}}}


class InProgress:
    """``tools/call`` requests in progress, per caller, in this process."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()

    @contextmanager
    def one(self, caller: str, limit: int) -> Iterator[None]:
        if self.counts[caller] >= limit:
            raise MCPError(LIMIT_CODE, str(TEXT_HELD).format(limit=limit), {"limit": limit})
        self.counts[caller] += 1
        try:
            yield
        finally:
            self.counts[caller] -= 1
            if not self.counts[caller]:
                del self.counts[caller]
