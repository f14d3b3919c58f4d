"""The answering side in the operator console: the pause queue and pause page
(``pauses``, a row's words in ``rows``), the decisions page (``decisions``)
and the notification outbox (``outbox``). The MCP clients' keys are the MCP
door's own (``doors.mcp.admin``)."""

from approvals.admin import decisions, outbox, pauses

__all__ = ["decisions", "outbox", "pauses"]
