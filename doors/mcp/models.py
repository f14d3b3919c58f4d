"""The MCP gateway's own table: the clients allowed to call, each by a key an
operator made in the console (``doors.mcp.clients``)."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class McpClient(models.Model):
    """An MCP client allowed to call an agent's tools through the gateway
    (docs/mcp.md): made by an operator in the console, its key shown once and
    kept only as a SHA-256 hash (a key is 256 random bits: no slow hash
    needed), with the privileges and context values its calls carry."""

    name = models.SlugField(_("name"), max_length=40, unique=True,
                            help_text=_("Letters, digits, '-' and '_': it names the client's threads."))
    key_prefix = models.CharField(_("key starts with"), max_length=12, db_index=True, editable=False)
    key_hash = models.CharField(max_length=64, editable=False)
    privileges = models.JSONField(_("privileges"), default=list, blank=True)
    context = models.JSONField(_("context values"), default=dict, blank=True)
    created_by = models.CharField(_("created by"), max_length=150, blank=True, editable=False)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    revoked_at = models.DateTimeField(_("revoked at"), null=True, blank=True, editable=False)
    last_used_at = models.DateTimeField(_("last used"), null=True, blank=True, editable=False)

    class Meta:
        verbose_name = _("MCP client")
        verbose_name_plural = _("MCP clients")
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name
