"""The answering side in the operator console: the pause queue and pause page
(``pauses``, a row's words in ``rows``), the decisions page (``decisions``),
the notification outbox (``outbox``) and the MCP clients' keys (``mcp``)."""

from approvals.admin import decisions, mcp, outbox, pauses

__all__ = ["decisions", "mcp", "outbox", "pauses"]
