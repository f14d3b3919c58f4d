"""The console's catalogue pages (docs/operating.md, "The console (/admin/)"):
the tools page, withdrawals and the selector's language per agent.

The tools page also shows each agent's approval policies (docs/policies.md),
read-only: what each asks, when it applies, and the tools it may cover.

The tools page (``/admin/catalogue/tool/``) lists the loaded agent file's
tools with read/write, their declarations and ``verify``'s lints, and
withdraws or restores a tool there with who and why. Withdraw and restore are
CSRF-protected POSTs that check ``catalogue.add_withdrawal`` /
``catalogue.delete_withdrawal`` (403 otherwise); the template only hides.
"""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import get_language, gettext, ngettext
from django.utils.translation import gettext_lazy as _

from catalogue import registry
from catalogue.agentfile import AgentFileError
from catalogue.lints import MESSAGES, format_finding, lint
from catalogue.models import AgentSetting, Tool, Withdrawal
from catalogue.services import agent_settings_ensure, withdrawal_create, withdrawal_delete

MESSAGE_WITHDRAWN = _("Withdrawn: {tool}. The selector no longer offers it.")
MESSAGE_RESTORED = _("Restored: {tool}.")
MESSAGE_NEED_REASON = _("Say why the tool is withdrawn.")
MESSAGE_NO_TOOL = _("There is no tool {tool} in this agent file.")


# verify's findings in words: catalogue.lints keeps each message as an English message id with
# its values; here it is translated (gettext) and filled. The exact line `stalwart verify`
# prints stays the row's title.
LEVEL_WORDS = {"warning": _("warning"), "error": _("error")}


def _lint_rows(findings: list[Any]) -> list[dict[str, str]]:
    return [{"level": f.level, "level_words": str(LEVEL_WORDS.get(f.level, f.level)), "code": f.code,
             "words": _lint_words(f), "line": format_finding(f)} for f in findings]


def _lint_words(finding: Any) -> str:
    message = MESSAGES.get(finding.code)
    if message is None:
        return str(finding.message)
    return gettext(message).format(**finding.params)


def _agents() -> list[Any]:
    try:
        return list(registry.agent_file().agents)
    except (registry.NoAgentFile, AgentFileError):  # the admin still opens; the pages list nothing
        return []


def _tool_choices() -> list[tuple[str, str]]:
    return [(f"{a.name}:{t.name}", f"{a.name}: {t.name} ({t.kind})") for a in _agents() for t in a.tools]


def _declarations(tool: Any) -> list[str]:
    out = []
    if tool.irreversible:
        out.append(gettext("irreversible"))
    if tool.compensation:
        out.append(gettext("undone by {tool}").format(tool=tool.compensation.get("tool", "?")))
    if tool.idempotency:
        out.append(gettext("idempotent ({key})").format(
            key=tool.idempotency.get("argument") or tool.idempotency.get("header") or ""))
    if tool.egress:
        out.append(gettext("sends data out"))
    if tool.reads_outside:
        out.append(gettext("reads from outside"))
    if tool.privilege:
        out.append(gettext("needs the privilege {privilege}").format(privilege=tool.privilege))
    if tool.verify:
        out.append(gettext("verified after sending"))
    return out


# What a policy asks (docs/policies.md), in words; its conditions are shown as the agent file writes them.
OPERATORS = {"eq": "=", "ne": "≠", "gt": ">", "ge": "≥", "lt": "<", "le": "≤", "in": "in", "matches": "matches"}
ON_TIMEOUT = {"expire": _("it expires"), "refuse": _("it is refused"), "keep": _("it keeps waiting")}


def _policy_asks(policy: Any) -> list[str]:
    asks = []
    if policy.refuse:
        asks.append(gettext("refuses it: “{sentence}”").format(sentence=policy.refusal(_reader_language())))
    if policy.confirm:
        asks.append(gettext("waits for a person, even a read"))
    if policy.quorum:
        approvals = ngettext("{quorum} approval", "{quorum} approvals", policy.quorum).format(quorum=policy.quorum)
        asks.append(gettext("{approvals} from staff in {group}").format(approvals=approvals, group=policy.group)
                    if policy.group else approvals)
    if policy.deadline is not None:
        asks.append(gettext("answered within {seconds} s, else {then}").format(
            seconds=f"{policy.deadline:g}", then=ON_TIMEOUT.get(policy.on_timeout, policy.on_timeout)))
    if policy.remind_before is not None:
        asks.append(gettext("a reminder {seconds} s before the deadline").format(seconds=f"{policy.remind_before:g}"))
    return asks


def _policy_rows(agent: Any) -> list[dict[str, Any]]:
    """The agent's policies, read-only: what each asks, when it applies, the tools it may cover."""
    rows = []
    for policy in getattr(agent, "policies", ()):
        shown = policy.to_json()
        when = []
        for key, value in shown["when"].items():
            if key == "args":  # amount > 500
                when += [f"{name} {OPERATORS.get(op, op)} {json.dumps(v, ensure_ascii=False)}"
                         for name, tests in value.items() for op, v in tests.items()]
            elif key != "tool":  # the tools it covers are their own column
                when.append(f"{key}: {json.dumps(value, ensure_ascii=False)}")
        rows.append({"name": policy.name, "asks": _policy_asks(policy), "when": when,
                     "tools": [t.name for t in agent.tools if policy.when.covers_tool(t.name)]})
    return rows


def _reader_language() -> str:
    """The console reader's language as the agent file names it (``pt-BR``, ``en``)."""
    return "pt-BR" if str(get_language() or "").lower().startswith("pt") else "en"


@admin.register(Tool)
class ToolAdmin(admin.ModelAdmin):
    """The tools page: the catalogue as loaded, with withdraw and restore."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_urls(self) -> list[Any]:
        view = self.admin_site.admin_view
        return [
            path("withdraw/", view(self.withdraw_view), name="catalogue_tool_withdraw"),
            path("restore/", view(self.restore_view), name="catalogue_tool_restore"),
            path("", view(self.changelist_view), name="catalogue_tool_changelist"),
        ]

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        withdrawn = {(w.agent, w.tool): w for w in Withdrawal.objects.select_related("withdrawn_by")}
        agents = []
        for agent in _agents():
            findings: dict[str, list[Any]] = {}
            for finding in lint(list(agent.tools), language=agent.default_language):
                findings.setdefault(finding.tool, []).append(finding)
            rows = [{"tool": t, "declarations": _declarations(t), "lints": _lint_rows(findings.get(t.name, [])),
                     "withdrawal": withdrawn.get((agent.name, t.name)),
                     "in_file": t.name in agent.withdrawn} for t in agent.tools]
            agents.append({"name": agent.name, "purpose": agent.said("purpose", _reader_language()), "rows": rows,
                           "policies": _policy_rows(agent)})
        return TemplateResponse(request, "admin/catalogue/tool/tools.html", {
            **self.admin_site.each_context(request),
            "title": gettext("Tools"),
            "opts": self.opts,
            "agents": agents,
            "can_withdraw": request.user.has_perm("catalogue.add_withdrawal"),
            "can_restore": request.user.has_perm("catalogue.delete_withdrawal"),
        })

    def _target(self, request: HttpRequest) -> tuple[str, str] | None:
        agent, tool = str(request.POST.get("agent", "")), str(request.POST.get("tool", ""))
        for a in _agents():
            if a.name == agent and a.tool(tool) is not None:
                return agent, tool
        messages.error(request, str(MESSAGE_NO_TOOL).format(tool=tool))
        return None

    def withdraw_view(self, request: HttpRequest) -> HttpResponse:
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if not request.user.has_perm("catalogue.add_withdrawal"):
            raise PermissionDenied
        target = self._target(request)
        reason = str(request.POST.get("reason", "")).strip()
        if target and not reason:
            messages.error(request, str(MESSAGE_NEED_REASON))
        elif target:
            saved = withdrawal_create(agent=target[0], tool=target[1], reason=reason, by=request.user)
            self.log_addition(request, saved, f"withdrawn: {reason}")
            messages.success(request, str(MESSAGE_WITHDRAWN).format(tool=target[1]))
        return HttpResponseRedirect(reverse("admin:catalogue_tool_changelist"))

    def restore_view(self, request: HttpRequest) -> HttpResponse:
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if not request.user.has_perm("catalogue.delete_withdrawal"):
            raise PermissionDenied
        target = self._target(request)
        if target:
            withdrawal_delete(agent=target[0], tool=target[1])
            messages.success(request, str(MESSAGE_RESTORED).format(tool=target[1]))
        return HttpResponseRedirect(reverse("admin:catalogue_tool_changelist"))


class WithdrawalForm(forms.ModelForm):
    target = forms.ChoiceField(label=_("Tool"), choices=_tool_choices)
    reason = forms.CharField(label=_("Why"), widget=forms.Textarea,
                             help_text=_("Why it is withdrawn (shown to other operators)."))

    class Meta:
        model = Withdrawal
        fields = ["reason"]


@admin.action(description=_("Restore the selected tools"), permissions=["delete"])
def restore_selected(modeladmin: WithdrawalAdmin, request: HttpRequest, queryset: QuerySet[Withdrawal]) -> None:
    names = []
    for obj in queryset:
        withdrawal_delete(agent=obj.agent, tool=obj.tool)
        names.append(obj.tool)
    if names:
        messages.success(request, str(MESSAGE_RESTORED).format(tool=", ".join(names)))


@admin.register(Withdrawal)
class WithdrawalAdmin(admin.ModelAdmin):
    form = WithdrawalForm
    list_display = ["tool", "agent", "reason", "withdrawn_by", "withdrawn_at"]
    list_select_related = ["withdrawn_by"]
    search_fields = ["tool", "agent", "reason"]
    actions = [restore_selected]

    def has_delete_permission(self, request: HttpRequest, obj: Withdrawal | None = None) -> bool:
        # No "Delete" on a withdrawal's page: restoring is the list's "Restore" action or the tools page.
        return obj is None and super().has_delete_permission(request)

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        found = super().get_actions(request)
        found.pop("delete_selected", None)  # restoring says "restore" (restore_selected)
        return found

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
            agent, _sep, tool = form.cleaned_data["target"].partition(":")
            target = (agent, tool)
            obj.agent, obj.tool = target
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
    """The selector's language per agent: one row per served agent, edited by operators."""

    list_display = ["agent", "language"]
    list_editable = ["language"]
    fields = ["agent", "language"]
    readonly_fields = ["agent"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # the rows are made for every agent the file serves

    def has_delete_permission(self, request: HttpRequest, obj: AgentSetting | None = None) -> bool:
        return False

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        agent_settings_ensure(agents=[a.name for a in _agents()])
        return super().changelist_view(request, extra_context)
