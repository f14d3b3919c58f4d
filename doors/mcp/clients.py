"""MCP clients' keys (docs/mcp.md, "Keys: who may call"): made by an operator, shown once, revocable,
checked in constant time.

A key is ``stw_`` and 43 URL-safe characters (256 random bits); the table
keeps its first 12 characters (to find the row and to show which key it is)
and the SHA-256 of the whole. A presented key is looked up by its prefix and
its hash compared with ``hmac.compare_digest``; a wrong, revoked or unknown
key gets the same answer, and the ``stalwart.security`` log says which.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from doors.mcp.models import McpClient

security = logging.getLogger("stalwart.security")

KEY_PREFIX = "stw_"
SHOWN = 12  # characters of a key kept to find it (the prefix and 8 random ones)
LAST_USED_EVERY = timedelta(minutes=1)  # how fresh "last used" is kept


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


@transaction.atomic
def mcp_client_create(*, name: str, privileges: list[str] | None = None, context: dict[str, Any] | None = None,
                      by: str = "") -> tuple[McpClient, str]:
    """A new client and its key, which is returned once and never stored."""
    key = KEY_PREFIX + secrets.token_urlsafe(32)
    client = McpClient.objects.create(name=name, key_prefix=key[:SHOWN], key_hash=_digest(key),
                                      privileges=sorted(set(privileges or [])), context=dict(context or {}),
                                      created_by=by[:150])
    return client, key


def mcp_client_revoke(*, client: McpClient) -> None:
    McpClient.objects.filter(pk=client.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
    client.refresh_from_db()


def mcp_clients_configured() -> bool:
    """Whether any key is in force (without one, the gateway answers loopback clients only)."""
    return McpClient.objects.filter(revoked_at__isnull=True).exists()


def mcp_client_of(key: str) -> McpClient | None:
    """The client whose key this is, if it is in force."""
    if not key.startswith(KEY_PREFIX) or len(key) > 200:
        security.warning("an MCP call with a key of the wrong shape")
        return None
    digest = _digest(key)
    for client in McpClient.objects.filter(key_prefix=key[:SHOWN]):
        if hmac.compare_digest(client.key_hash, digest):
            if client.revoked_at is not None:
                security.warning("an MCP call with the revoked key of client %s", client.name)
                return None
            now = timezone.now()
            if client.last_used_at is None or now - client.last_used_at > LAST_USED_EVERY:
                # Once a minute at most: a key's every request need not be a write.
                McpClient.objects.filter(pk=client.pk).update(last_used_at=now)
            return client
    security.warning("an MCP call with a key no client has")
    return None
