"""The console's Decisions page: every answer to a pause, across threads
(docs/decisions.md, "The queue staff live in").

Who answered, when, which pause, the decision and where it came from (the
console, the widget, HTTP, the webhook channel, an MCP client, LangGraph),
and under an approval policy every approval the pause took (who, when, door),
read off the pause rows themselves (``approvals.Decision`` is a proxy of
``threads.Interrupt``: an answer is recorded on its pause by the claim that
won). Filterable by person, agent, decision, source and date; "Export as
CSV" gives the rows the filters chose. Anyone who may see pauses may read it.
"""

from __future__ import annotations

import csv
from typing import Any

from django.contrib import admin
from django.contrib.admin.options import IncorrectLookupParameters
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, StreamingHttpResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from approvals.admin.answers import by_customer
from approvals.admin.filters import AgentFilter
from approvals.admin.policy import approvals_of, count_words, csv_words, given_rows
from approvals.admin.rows import call_words
from approvals.models import Decision
from approvals.words import DECISIONS, decision_words
from threads.models import Interrupt

VIEW_PERMISSION = "threads.view_interrupt"
ANSWERED = (Interrupt.Status.ANSWERED, Interrupt.Status.EDITED)
CUSTOMER = _("the customer")


def who(pause: Interrupt) -> str:
    """The staff member, or the customer (an answer from the thread's own session)."""
    return str(CUSTOMER) if by_customer(pause.answered_by) else pause.answered_by


class PersonFilter(admin.SimpleListFilter):
    title = _("person")
    parameter_name = "person"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        names = (Decision.objects.filter(status__in=ANSWERED).exclude(answered_by="")
                 .order_by("answered_by").values_list("answered_by", flat=True).distinct()[:200])
        return [(n, str(CUSTOMER) if by_customer(n) else n) for n in names]  # POST /resume's own answers

    def queryset(self, request: HttpRequest, queryset: QuerySet[Decision]) -> QuerySet[Decision]:
        return queryset.filter(answered_by=self.value()) if self.value() else queryset


class DecisionFilter(admin.SimpleListFilter):
    title = _("decision")
    parameter_name = "decision"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return list(DECISIONS.items())

    def queryset(self, request: HttpRequest, queryset: QuerySet[Decision]) -> QuerySet[Decision]:
        return queryset.filter(decision=self.value()) if self.value() else queryset


@admin.register(Decision)
class DecisionAdmin(admin.ModelAdmin):
    list_display = ["when_column", "who_column", "pause_column", "thread_column", "agent", "decision_column",
                    "answered_via"]
    list_display_links = None
    list_filter = [PersonFilter, AgentFilter, DecisionFilter, "answered_via", ("answered_at", admin.DateFieldListFilter)]
    search_fields = ["thread__id", "tool"]
    ordering = ["-answered_at", "-id"]
    list_per_page = 50
    show_full_result_count = False
    show_facets = admin.ShowFacets.NEVER
    actions = None

    def get_queryset(self, request: HttpRequest) -> QuerySet[Decision]:
        return super().get_queryset(request).filter(status__in=ANSWERED, answered_at__isnull=False)

    def get_search_results(self, request: HttpRequest, queryset: QuerySet[Decision],
                           search_term: str) -> tuple[QuerySet[Decision], bool]:
        term = search_term.strip()
        if not term:
            return queryset, False
        return (queryset.filter(thread_id=term) | queryset.filter(thread__name=term) | queryset.filter(tool=term)
                | queryset.filter(pk=term)), False

    # --- columns ------------------------------------------------------------------
    @admin.display(description=_("when"), ordering="answered_at")
    def when_column(self, pause: Decision) -> str:
        return date_format(timezone.localtime(pause.answered_at), "SHORT_DATETIME_FORMAT") if pause.answered_at else ""

    @admin.display(description=_("who"), ordering="answered_by")
    def who_column(self, pause: Decision) -> str:
        # Under a policy, every approval it took below who answered (its seven columns stay beside the filters).
        approvals = self.approvals_words(pause)
        return format_html("{}{}", who(pause), approvals) if approvals else who(pause)

    @admin.display(description=_("pause"))
    def pause_column(self, pause: Decision) -> str:
        return format_html('<a href="{}">{}</a>', reverse("admin:threads_interrupt_change", args=[pause.pk]),
                           call_words(pause))

    @admin.display(description=_("thread"), ordering="thread_id")
    def thread_column(self, pause: Decision) -> str:
        return format_html('<a href="{}">{}</a>', reverse("admin:threads_thread_change", args=[pause.thread_id]),
                           pause.thread_id)

    @admin.display(description=_("decision"), ordering="decision")
    def decision_column(self, pause: Decision) -> str:
        return decision_words(pause.decision)

    def approvals_words(self, pause: Decision) -> str:
        """Under a policy: every approval the pause took, who, when and through which door ("" without one)."""
        approvals = approvals_of(pause)
        if approvals is None:
            return ""
        items = format_html_join("", "<li>{}</li>", (
            (gettext("{who}, {when} ({door})").format(who=g["by"], when=g["short"], door=g["door"]),)
            for g in given_rows(approvals)))
        return format_html('<span class="decision-approvals-count">{}</span><ul class="decision-approvals">{}</ul>',
                           count_words(approvals), items)

    # --- a read-only page for whoever may see pauses -----------------------------
    def has_module_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.is_active and request.user.is_staff and request.user.has_perm(VIEW_PERMISSION))

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self.has_module_permission(request)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_urls(self) -> list[Any]:
        return [path("csv/", self.admin_site.admin_view(self.csv_view), name="approvals_decision_csv"),
                *super().get_urls()]

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        query = request.GET.urlencode()
        csv_url = reverse("admin:approvals_decision_csv") + (f"?{query}" if query else "")
        return super().changelist_view(request, {"title": gettext("Decisions"), "csv_url": csv_url,
                                                 **(extra_context or {})})

    def change_view(self, request: HttpRequest, object_id: str, form_url: str = "",
                    extra_context: dict[str, Any] | None = None) -> HttpResponse:
        from django.shortcuts import redirect

        return redirect("admin:threads_interrupt_change", object_id)

    def csv_view(self, request: HttpRequest) -> HttpResponse | StreamingHttpResponse:
        """The rows the page's filters choose, every page of them, as CSV."""
        if not self.has_view_permission(request):
            from django.core.exceptions import PermissionDenied

            raise PermissionDenied
        try:
            changelist = self.get_changelist_instance(request)
        except IncorrectLookupParameters:  # as the list page does with filters it cannot read: shown, and said
            return HttpResponseRedirect(reverse("admin:approvals_decision_changelist") + "?e=1")
        rows = changelist.get_queryset(request).iterator(chunk_size=2000)

        class Echo:
            def write(self, value: str) -> str:
                return value

        writer = csv.writer(Echo())
        head = [gettext("when"), gettext("who"), gettext("pause"), gettext("call"), gettext("thread"),
                gettext("agent"), gettext("decision"), gettext("from where"), gettext("approvals")]

        def lines() -> Any:
            yield "\ufeff" + writer.writerow(head)  # a BOM: spreadsheets then read UTF-8 (pt-BR's accents)
            for p in rows:
                yield writer.writerow([inert(cell) for cell in (
                    timezone.localtime(p.answered_at).isoformat(timespec="seconds") if p.answered_at else "",
                    who(p), p.pk, call_words(p), p.thread_id, p.agent, decision_words(p.decision),
                    p.get_answered_via_display() if p.answered_via else "", csv_words(p))])

        response = StreamingHttpResponse(lines(), content_type="text/csv; charset=utf-8")
        stamp = timezone.localtime().strftime("%Y%m%d-%H%M")
        response["Content-Disposition"] = f'attachment; filename="decisions-{stamp}.csv"'
        return response


def inert(cell: Any) -> str:
    """A cell a spreadsheet shows as text, never runs: one that begins with ``=``, ``+``, ``-``, ``@``, a tab
    or a carriage return (a formula, as a graph's question could write one) is written with a leading ``'``."""
    text = str(cell)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


__all__ = ["DecisionAdmin"]
