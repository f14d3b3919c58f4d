"""The operator console's catalogue pages: withdraw or restore a tool, with
who and why, and the selector's language per agent (SPEC §12)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.http import HttpRequest

from catalogue import registry
from catalogue.agentfile import AgentFileError
from catalogue.models import AgentSetting, Withdrawal
from catalogue.services import withdrawal_create, withdrawal_delete


def _tool_choices() -> list[tuple[str, str]]:
    try:
        af = registry.agent_file()
    except (registry.NoAgentFile, AgentFileError):  # the admin still opens; the form offers no tool
        return []
    return [(f"{a.name}:{t.name}", f"{a.name}: {t.name} ({t.kind})") for a in af.agents for t in a.tools]


class WithdrawalForm(forms.ModelForm):
    target = forms.ChoiceField(label="Tool", choices=_tool_choices)
    reason = forms.CharField(widget=forms.Textarea, help_text="Why it is withdrawn (shown to other operators).")

    class Meta:
        model = Withdrawal
        fields = ["reason"]


@admin.register(Withdrawal)
class WithdrawalAdmin(admin.ModelAdmin):
    form = WithdrawalForm
    list_display = ["tool", "agent", "reason", "withdrawn_by", "withdrawn_at"]
    list_select_related = ["withdrawn_by"]
    search_fields = ["tool", "agent", "reason"]

    def get_readonly_fields(self, request: HttpRequest, obj: Withdrawal | None = None) -> list[str]:
        return ["agent", "tool", "withdrawn_by", "withdrawn_at"] if obj else []

    def get_form(self, request: HttpRequest, obj: Withdrawal | None = None, change: bool = False,
                 **kwargs: Any) -> Any:
        if obj is not None:
            kwargs["form"] = forms.ModelForm
            kwargs["fields"] = ["reason"]
        return super().get_form(request, obj, change=change, **kwargs)

    def save_model(self, request: HttpRequest, obj: Withdrawal, form: Any, change: bool) -> None:
        # Through the service, never a raw save: who withdrew it is recorded.
        if change:
            target = (obj.agent, obj.tool)
        else:
            agent, _, tool = form.cleaned_data["target"].partition(":")
            target = (agent, tool)
        saved = withdrawal_create(agent=target[0], tool=target[1], reason=form.cleaned_data["reason"],
                                  by=request.user)
        obj.pk = saved.pk

    def delete_model(self, request: HttpRequest, obj: Withdrawal) -> None:
        withdrawal_delete(agent=obj.agent, tool=obj.tool)  # restore

    def delete_queryset(self, request: HttpRequest, queryset: Any) -> None:
        for obj in queryset:
            withdrawal_delete(agent=obj.agent, tool=obj.tool)


@admin.register(AgentSetting)
class AgentSettingAdmin(admin.ModelAdmin):
    list_display = ["agent", "language"]
