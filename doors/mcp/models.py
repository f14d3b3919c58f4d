"""The MCP gateway's own table: the clients allowed to call, each by a key an
operator made in the console (``doors.mcp.clients``)."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from doors.keys import CallerKey


class McpClient(CallerKey):
    """An MCP client allowed to call an agent's tools through the gateway
    (docs/mcp.md): made by an operator in the console, its key shown once and
    kept only as a SHA-256 hash (a key is 256 random bits: no slow hash
    needed), with the privileges and context values its calls carry."""

    context = models.JSONField(_("context values"), default=dict, blank=True)

    class Meta:
        verbose_name = _("MCP client")
        verbose_name_plural = _("MCP clients")
        ordering = ["name"]
