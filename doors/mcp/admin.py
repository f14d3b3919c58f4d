"""MCP clients in the console (docs/mcp.md, "Keys: who may call"): an operator makes a client's
key (shown once, on the page that made it, never again), its privileges and
context values, and revokes it. Only the key's first characters and its hash
are kept (``doors.mcp.clients``)."""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.contrib import admin
from django.utils.functional import lazy
from django.utils.text import capfirst
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from doors.keyadmin import CallerKeyAdmin
from doors.mcp.models import McpClient

capfirst_lazy = lazy(capfirst, str)  # a form's own labels read as Django's model-field labels do: "Privileges"


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
class McpClientAdmin(CallerKeyAdmin):
    form = McpClientForm
    list_display = ["name", "key_prefix", "privileges", "context", "in_force", "last_used_at", "created_by",
                    "created_at"]
    readonly_fields = ["key_prefix", "privileges", "context", "created_by", "created_at", "last_used_at",
                       "revoked_at"]
    create_fields = ["name", "privileges_text", "context_text"]

    def privileges_of(self, form: Any) -> list[str]:
        return list(form.cleaned_data["privileges_text"])

    def fields_of(self, form: Any) -> dict[str, Any]:
        return {"context": form.cleaned_data["context_text"]}
