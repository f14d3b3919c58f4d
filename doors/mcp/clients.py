"""MCP clients' keys (docs/mcp.md, "Keys: who may call"): made by an operator, shown once,
revocable, checked in constant time (``doors.keys``, which every door taking keys shares)."""

from __future__ import annotations

from typing import Any

from doors.keys import key_create, key_owner, key_revoke, keys_in_force
from doors.mcp.models import McpClient


def mcp_client_create(*, name: str, privileges: list[str] | None = None, context: dict[str, Any] | None = None,
                      by: str = "") -> tuple[McpClient, str]:
    """A new client and its key, which is returned once and never stored."""
    return key_create(McpClient, name=name, privileges=privileges, by=by, context=dict(context or {}))


def mcp_client_revoke(*, client: McpClient) -> None:
    key_revoke(client)


def mcp_clients_configured() -> bool:
    """Whether any key is in force (without one, the gateway answers loopback clients only)."""
    return keys_in_force(McpClient) > 0


def mcp_client_of(key: str) -> McpClient | None:
    """The client whose key this is, if it is in force."""
    return key_owner(McpClient, key, door="MCP")
