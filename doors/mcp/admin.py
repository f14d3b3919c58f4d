"""MCP clients in the console (docs/mcp.md, "Keys: who may call"): an operator makes a client's
key (shown once, on the page that made it, never again), its privileges and
context values, and revokes it. Only the key's first characters and its hash
are kept (``doors.mcp.clients``)."""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.functional import lazy
from django.utils.text import capfirst
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from doors.mcp.clients import mcp_client_create, mcp_client_revoke
from doors.mcp.models import McpClient

capfirst_lazy = lazy(capfirst, str)  # a form's own labels read as Django's model-field labels do: "Privileges"

MESSAGE_KEY = _("The key of {name}, shown this once: {key} (copy it now; Stalwart keeps only its hash).")


class McpClientForm(forms.ModelForm):  # type: ignore[type-arg]
    privileges_text = forms.CharField(
        label=capfirst_lazy(_("privileges")), required=False,
        help_text=_("The privileges its calls carry, separated by commas (for example: refunds)."))
    context_text = forms.CharField(
        label=capfirst_lazy(_("context values")), required=False, widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_('What its calls carry as context, as JSON (for example: {"customer": "c-208"}): an argument '
                    "of that name takes the value, with origin context."))

    class Meta:
        model = McpClient
        fields = ["name"]

    def clean_privileges_text(self) -> list[str]:
        return sorted({p.strip() for p in str(self.cleaned_data.get("privileges_text") or "").split(",") if p.strip()})

    def clean_context_text(self) -> dict[str, Any]:
        text = str(self.cleaned_data.get("context_text") or "").strip()
        if not text:
            return {}
        try:
            value = json.loads(text)
        except ValueError as exc:
            raise forms.ValidationError(gettext("This is not JSON: {error}").format(error=exc)) from exc
        if not isinstance(value, dict):
            raise forms.ValidationError(gettext('Context values are a JSON object, such as {"customer": "c-208"}.'))
        return value


@admin.register(McpClient)
class McpClientAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    form = McpClientForm
    list_display = ["name", "key_prefix", "privileges", "context", "in_force", "last_used_at", "created_by",
                    "created_at"]
    readonly_fields = ["key_prefix", "privileges", "context", "created_by", "created_at", "last_used_at",
                       "revoked_at"]
    actions = ["revoke"]

    @admin.display(description=_("in force"), boolean=True)
    def in_force(self, client: McpClient) -> bool:
        return client.revoked_at is None

    def get_fields(self, request: HttpRequest, obj: McpClient | None = None) -> list[str]:
        if obj is None:
            return ["name", "privileges_text", "context_text"]
        return ["name", *self.readonly_fields]

    def get_readonly_fields(self, request: HttpRequest, obj: McpClient | None = None) -> list[str]:
        return [*self.readonly_fields, "name"] if obj is not None else []

    def has_change_permission(self, request: HttpRequest, obj: McpClient | None = None) -> bool:
        return obj is None and super().has_change_permission(request, obj)  # a key is made or revoked, never edited

    def has_delete_permission(self, request: HttpRequest, obj: McpClient | None = None) -> bool:
        return False  # revoked, so the console still says who called

    def save_model(self, request: HttpRequest, obj: McpClient, form: Any, change: bool) -> None:
        made, key = mcp_client_create(name=obj.name, privileges=form.cleaned_data["privileges_text"],
                                      context=form.cleaned_data["context_text"], by=request.user.get_username())
        obj.pk, obj.key_prefix, obj.created_at = made.pk, made.key_prefix, made.created_at
        obj._state.adding = False
        self.message_user(request, str(MESSAGE_KEY).format(name=made.name, key=key), messages.WARNING)

    @admin.action(description=_("Revoke the selected keys"), permissions=["change"])
    def revoke(self, request: HttpRequest, queryset: QuerySet[McpClient]) -> None:
        clients = list(queryset.filter(revoked_at__isnull=True))
        for client in clients:
            mcp_client_revoke(client=client)
        self.message_user(request, ngettext("Revoked %(n)s key: its calls are refused from now on.",
                                            "Revoked %(n)s keys: their calls are refused from now on.",
                                            len(clients)) % {"n": len(clients)}, messages.SUCCESS)

    def has_revoke_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.has_perm("doors_mcp.change_mcpclient"))
