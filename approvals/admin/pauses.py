"""The console's pause queue and pause page (SPEC §12).

The queue lists open pauses, oldest first (the status filter defaults to
"open"). A pause's page shows the call in words and one CSRF-protected POST
button per answer its kind takes. Every answer goes through
``approvals.answers.interrupt_answer`` with the token rendered into the page,
exactly as ``POST /threads/{id}/resume``: the same claim, the same staleness.
Staff may answer any thread's pause; the answer records the staff username.
The view checks ``threads.answer_interrupt``; the template only hides.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.views.main import ChangeList
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html
from django.utils.timesince import timesince
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from approvals.admin.paging import QueueChangeList, QueuePaginator
from approvals.answers import interrupt_answer
from approvals.edits import edited_by, four_eyes_check, interrupt_edit
from approvals.errors import InvalidAnswer, InvalidDecision, Stale
from approvals.words import decision_words, origin_words, reason_words
from catalogue import registry
from catalogue.agentfile import AgentFileError
from threads.engine import token_for
from threads.errors import NotFound
from threads.models import PAUSE_ANSWERS, Interrupt

ANSWER_PERMISSION = "threads.answer_interrupt"
MESSAGE_ANSWERED = _("Answered: {decision}.")
MESSAGE_STALE_WON = _("Nothing changed: this pause was already answered “{decision}” by {who} at {when}.")
MESSAGE_STALE_CLOSED = _("Nothing changed: this pause is no longer open ({status}).")
MESSAGE_EDITED = _("Edited: the call was checked again and waits as a new proposal.")
MESSAGE_STALE_TOKEN = _("Nothing changed: the call changed since this page was shown. Open the pause again.")


class StatusFilter(admin.SimpleListFilter):
    """Open pauses unless another status (or all) is chosen."""

    title = _("status")
    parameter_name = "status"
    ALL = "all"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [*Interrupt.Status.choices, (self.ALL, _("All"))]

    def choices(self, changelist: Any) -> Any:
        current = self.value() or Interrupt.Status.OPEN
        for value, title in self.lookup_choices:
            yield {"selected": current == value, "display": title,
                   "query_string": changelist.get_query_string({self.parameter_name: value})}

    def queryset(self, request: HttpRequest, queryset: QuerySet[Interrupt]) -> QuerySet[Interrupt]:
        value = self.value() or Interrupt.Status.OPEN
        return queryset if value == self.ALL else queryset.filter(status=value)


class AgentFilter(admin.SimpleListFilter):
    """The agents the agent file serves: no DISTINCT over the whole queue."""

    title = _("agent")
    parameter_name = "agent"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        try:
            return [(a.name, a.name) for a in registry.agent_file().agents]
        except (registry.NoAgentFile, AgentFileError):
            return []

    def queryset(self, request: HttpRequest, queryset: QuerySet[Interrupt]) -> QuerySet[Interrupt]:
        return queryset.filter(agent=self.value()) if self.value() else queryset


def successor_of(pause: Interrupt) -> Interrupt | None:
    """The proposal an edited pause became (the step's newest other pause)."""
    if pause.step_id is None:
        return None
    return (Interrupt.objects.filter(step_id=pause.step_id, created_at__gte=pause.created_at)
            .exclude(pk=pause.pk).order_by("-created_at").first())


def _tool_names() -> set[str]:
    try:
        return {t.name for a in registry.agent_file().agents for t in a.tools}
    except (registry.NoAgentFile, AgentFileError):
        return set()


def when(moment: Any) -> str:
    return date_format(timezone.localtime(moment), "DATETIME_FORMAT") if moment else ""


def stale_message(extra: dict[str, Any]) -> str:
    pause = extra.get("interrupt") or {}
    if pause.get("status") == Interrupt.Status.ANSWERED:
        answered_at = pause.get("answered_at")
        moment = when(timezone.datetime.fromisoformat(answered_at)) if answered_at else ""
        return str(MESSAGE_STALE_WON).format(decision=decision_words(pause.get("decision") or ""),
                                             who=pause.get("answered_by") or gettext("the customer"), when=moment)
    if pause.get("status") == Interrupt.Status.OPEN:
        return str(MESSAGE_STALE_TOKEN)
    return str(MESSAGE_STALE_CLOSED).format(status=Interrupt.Status(pause.get("status")).label
                                            if pause.get("status") in Interrupt.Status.values else "")


@admin.register(Interrupt)
class InterruptAdmin(admin.ModelAdmin):
    list_display = ["kind", "thread_link", "tool", "reasons_column", "irreversible_column", "age_column",
                    "status", "answered_column"]
    list_display_links = ["kind"]
    list_filter = ["kind", AgentFilter, StatusFilter]
    search_fields = ["thread__id", "tool"]
    # The queue at scale (docs/decisions.md): each filter's rows come off an index of
    # threads.Interrupt in this order (ties by id, the same way); no join, as a row shows
    # its thread's id only; the count stops at a cap; no counts per filter choice.
    list_select_related = False
    ordering = ["created_at", "id"]
    sortable_by = ["thread_link", "age_column"]
    list_per_page = 50
    paginator = QueuePaginator
    show_full_result_count = False  # no COUNT of the unfiltered table
    show_facets = admin.ShowFacets.NEVER

    # --- the queue ------------------------------------------------------------
    def get_search_results(self, request: HttpRequest, queryset: QuerySet[Interrupt],
                           search_term: str) -> tuple[QuerySet[Interrupt], bool]:
        # A tool's name finds its pauses; anything else is a thread id, matched exactly (an
        # indexed lookup, not LIKE '%...%' over the whole queue).
        term = search_term.strip()
        if not term:
            return queryset, False
        if term in _tool_names():
            return queryset.filter(tool=term), False
        return queryset.filter(thread_id=term), False

    def get_list_display(self, request: HttpRequest) -> list[str]:
        # The open queue needs no status or answer columns (and so fits beside the filters).
        if request.GET.get(StatusFilter.parameter_name, Interrupt.Status.OPEN) == Interrupt.Status.OPEN:
            return [c for c in self.list_display if c not in ("status", "answered_column")]
        return list(self.list_display)

    def get_changelist(self, request: HttpRequest, **kwargs: Any) -> type[ChangeList]:
        return QueueChangeList

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        return super().changelist_view(request, {"title": gettext("Pauses"), **(extra_context or {})})

    @admin.display(description=_("thread"), ordering="thread_id")
    def thread_link(self, pause: Interrupt) -> str:
        url = reverse("admin:threads_thread_change", args=[pause.thread_id])
        return format_html('<a href="{}">{}</a>', url, pause.thread_id)

    @admin.display(description=_("reasons"))
    def reasons_column(self, pause: Interrupt) -> str:
        return "; ".join(reason_words(r) for r in pause.payload.get("reasons", []))

    @admin.display(description=_("irreversible"), boolean=True)
    def irreversible_column(self, pause: Interrupt) -> bool:
        return bool(pause.payload.get("irreversible"))

    @admin.display(description=_("age"), ordering="created_at")
    def age_column(self, pause: Interrupt) -> str:
        age = timesince(pause.created_at)
        if pause.expires_at and pause.status == Interrupt.Status.OPEN:
            return gettext("{age} (deadline {deadline})").format(age=age, deadline=when(pause.expires_at))
        return age

    @admin.display(description=_("answered"))
    def answered_column(self, pause: Interrupt) -> str:
        if not pause.answered_at or pause.status not in (Interrupt.Status.ANSWERED, Interrupt.Status.EDITED):
            return ""
        return gettext("{decision} by {who}, {when}").format(
            decision=decision_words(pause.decision), who=pause.answered_by or gettext("the customer"),
            when=when(pause.answered_at))

    # --- permissions: answering is its own view; nothing is added, edited or deleted as a row
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Interrupt | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Interrupt | None = None) -> bool:
        return False

    def has_answer_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.has_perm(ANSWER_PERMISSION))

    # --- the pause page and its answers ------------------------------------------
    def get_urls(self) -> list[Any]:
        answer = self.admin_site.admin_view(self.answer_view)
        edit = self.admin_site.admin_view(self.edit_view)
        return [path("<path:object_id>/answer/", answer, name="threads_interrupt_answer"),
                path("<path:object_id>/edit/", edit, name="threads_interrupt_edit"), *super().get_urls()]

    def change_view(self, request: HttpRequest, object_id: str, form_url: str = "",
                    extra_context: dict[str, Any] | None = None) -> HttpResponse:
        pause = get_object_or_404(Interrupt.objects.select_related("thread", "step", "run"), pk=object_id)
        if not self.has_view_permission(request, pause):
            raise PermissionDenied
        return TemplateResponse(request, "admin/threads/interrupt/pause.html", {
            **self.admin_site.each_context(request),
            **self.pause_context(request, pause),
        })

    def pause_context(self, request: HttpRequest, pause: Interrupt) -> dict[str, Any]:
        p = pause.payload
        ask = p.get("ask") or {}
        is_open = pause.status == Interrupt.Status.OPEN
        return {
            "title": gettext("Pause: {tool}").format(tool=pause.tool or pause.get_kind_display()),
            "opts": self.opts,
            "pause": pause,
            "question": p.get("question", ""),
            "arguments": [{"name": a.get("name"), "value": a.get("value"), "origin": origin_words(str(a.get("origin", "")))}
                          for a in p.get("arguments", [])],
            "reasons": [reason_words(r) for r in p.get("reasons", [])],
            "irreversible": bool(p.get("irreversible")),
            "ask_choices": list(enumerate(ask.get("choices") or [])) if pause.kind == Interrupt.Kind.ASK else [],
            "ask_prompt": ask.get("prompt", ""),
            "buttons": [(d, decision_words(d)) for d in PAUSE_ANSWERS[pause.kind]]
            if pause.kind != Interrupt.Kind.ASK else [],
            "can_answer": is_open and self.has_answer_permission(request),
            "token": token_for(pause) if is_open else "",
            "answered": self.answered_column(pause),
            "answer_url": reverse("admin:threads_interrupt_answer", args=[pause.pk]),
            "thread_url": reverse("admin:threads_thread_change", args=[pause.thread_id]),
            "age": self.age_column(pause),
            "can_edit": is_open and pause.kind == Interrupt.Kind.CONFIRM and pause.step_id is not None
            and self.has_answer_permission(request),
            "edit_url": reverse("admin:threads_interrupt_edit", args=[pause.pk]),
            "edited_by": sorted(edited_by(pause.step_id)) if pause.kind == Interrupt.Kind.CONFIRM else [],
            "successor": successor_of(pause) if pause.status == Interrupt.Status.EDITED else None,
        }

    def answer_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if not self.has_answer_permission(request):
            raise PermissionDenied
        pause = get_object_or_404(Interrupt.objects.select_related("thread"), pk=object_id)
        decision, answer = self._decision_of(request, pause)
        try:
            four_eyes_check(pause=pause, decision=decision, username=request.user.get_username())
            interrupt_answer(thread=pause.thread, interrupt_id=pause.pk, decision=decision,
                             token=str(request.POST.get("token", "")), answer=answer,
                             answered_by=request.user.get_username())
        except Stale as exc:
            messages.error(request, stale_message(exc.extra))
        except (InvalidDecision, InvalidAnswer, NotFound) as exc:
            messages.error(request, str(exc.detail))
        else:
            self.log_change(request, pause, f"answered: {decision}")
            messages.success(request, str(MESSAGE_ANSWERED).format(decision=decision_words(decision)))
        return HttpResponseRedirect(reverse("admin:threads_interrupt_change", args=[pause.pk]))

    def edit_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """Edit before approving: new values go back to the check as a new proposal."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if not self.has_answer_permission(request):
            raise PermissionDenied
        pause = get_object_or_404(Interrupt, pk=object_id)
        values = {k.removeprefix("arg:"): str(v) for k, v in request.POST.items() if k.startswith("arg:")}
        try:
            interrupt_edit(pause_id=pause.pk, token=str(request.POST.get("token", "")), values=values,
                           edited_by=request.user.get_username())
        except Stale as exc:
            messages.error(request, stale_message(exc.extra))
        except (InvalidAnswer, NotFound) as exc:
            messages.error(request, str(exc.detail))
        else:
            self.log_change(request, pause, f"edited: {values}")
            successor = successor_of(pause)
            messages.success(request, str(MESSAGE_EDITED))
            if successor is not None:
                return HttpResponseRedirect(reverse("admin:threads_interrupt_change", args=[successor.pk]))
        return HttpResponseRedirect(reverse("admin:threads_interrupt_change", args=[pause.pk]))

    @staticmethod
    def _decision_of(request: HttpRequest, pause: Interrupt) -> tuple[str, Any]:
        if pause.kind != Interrupt.Kind.ASK:
            return str(request.POST.get("decision", "")), None
        choice = str(request.POST.get("choice", ""))
        if choice.isdigit():
            return "answer", {"kind": "choice", "index": int(choice)}
        return "answer", {"kind": "open", "text": str(request.POST.get("text", ""))}
