"""The console's pause queue and pause page (docs/operating.md, "The console (/admin/)").

The queue lists open pauses, oldest first (the status filter defaults to
"open"). A pause's page shows the call in words and one CSRF-protected POST
button per answer its kind takes. Every answer goes through the engine's
``pause_answer`` with the token rendered into the page,
exactly as ``POST /threads/{id}/resume``: the same claim, the same staleness.
Staff may answer any thread's pause; the answer records the staff username.
The view checks ``threads.answer_interrupt``; the template only hides.
"""

from __future__ import annotations

import functools
from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.views.main import ChangeList
from django.core.exceptions import PermissionDenied
from django.db.models import OuterRef, QuerySet, Subquery
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, gettext
from django.utils.translation import gettext_lazy as _

from approvals.admin.answers import (
    MESSAGE_ANSWERED_CALL,
    MESSAGE_EDITED,
    MESSAGE_NOT_OFFERED,
    SELECT_FOR_ACTION,
    answerable_from_row,
    answered_message,
    answered_words,
    back_to,
    decision_of,
    outcome_of,
    row_token,
    stale_message,
    when,
)
from approvals.admin.bulk import BulkAnswers
from approvals.admin.filters import AgentFilter, GraphFilter, MineFilter, SourceFilter, StatusFilter
from approvals.admin.paging import QueueChangeList, QueuePaginator
from approvals.admin.policy import (
    Staff,
    approvals_of,
    count_words,
    given_rows,
    group_words,
    recorded_message,
    row_words,
)
from approvals.admin.results import row_url
from approvals.admin.rows import call_words, first_reason, irreversible_mark, source_words, time_left
from approvals.admin.story import story_of
from approvals.words import decision_words, origin_words, reason_words, since_words
from catalogue import registry
from catalogue.agentfile import AgentFileError
from threads.engine import edited_by, pause_answer, pause_edit, successor_of, token_for
from threads.errors import ApprovalRecorded, InvalidAnswer, InvalidDecision, NotAnApprover, NotFound, Stale
from threads.keys import SEPARATOR, thread_name
from threads.models import PAUSE_ANSWERS, Interrupt, Step, Thread

ANSWER_PERMISSION = "threads.answer_interrupt"
ANSWER_ON_PAGE = _("Open to answer")
MAX_NAMESAKES = 500  # the sessions' threads of one id a search by that id lists
ROW_DECISIONS = ("approve", "skip")  # a confirm's answers on its row (cancel_all needs its page)
CONSOLE_MIRRORED = ("approve", "reject", "skip")  # skip: a HumanInterrupt that allows ignore


def buttons_of(pause: Interrupt) -> list[str]:
    if pause.payload.get("handback"):
        return [d for d in pause.payload.get("choices") or [] if d in CONSOLE_MIRRORED]
    return list(PAUSE_ANSWERS[pause.kind])


@functools.lru_cache(maxsize=32)
def _row_labels(language: str | None) -> dict[str, str]:
    """A row's answers in words, read once per language (each row says them twice)."""
    return {decision: decision_words(decision) for decision in ROW_DECISIONS}


def _tool_names() -> set[str]:
    try:
        return {t.name for a in registry.agent_file().agents for t in a.tools}
    except (registry.NoAgentFile, AgentFileError):
        return set()


@admin.register(Interrupt)
class InterruptAdmin(BulkAnswers, admin.ModelAdmin):
    # With the actions' checkbox first, the age is column 5 (``?o=-5``: newest first), as before.
    # A row's answers come right after what it asks, so they stay in sight beside both sidebars;
    # the irreversible mark opens the call's words (only when true).
    list_display = ["kind", "call_column", "row_actions", "reason_column", "age_column", "left_column",
                    "thread_link", "status", "answered_column"]
    empty_value_display = ""  # a false irreversible, no deadline: nothing, not Django's "-"
    list_display_links = ["call_column"]
    actions = ["approve_selected", "skip_selected"]
    list_filter = ["kind", AgentFilter, StatusFilter, MineFilter, SourceFilter, GraphFilter]
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
        # A tool's name finds its pauses; anything else is a thread, matched exactly by its key
        # or by the id its client gave it (every session's thread of that id): indexed
        # lookups, not LIKE '%...%' over the whole queue.
        term = search_term.strip()
        if not term:
            return queryset, False
        if term in _tool_names():
            return queryset.filter(tool=term), False
        if SEPARATOR in term:
            return queryset.filter(thread_id=term), False
        keys = [term, *Thread.objects.filter(name=term).values_list("pk", flat=True)[:MAX_NAMESAKES]]
        return queryset.filter(thread_id__in=keys), False

    def get_queryset(self, request: HttpRequest) -> QuerySet[Interrupt]:
        # A row's token needs its step's index: read with the row (a subquery by primary key,
        # no join: the paginator's capped count stays off its covering index), not a query per row.
        index = Step.objects.filter(pk=OuterRef("step_id")).order_by().values("index")[:1]
        return super().get_queryset(request).annotate(step_at=Subquery(index))

    def get_list_display(self, request: HttpRequest) -> list[str]:
        # The open queue needs no status or answer columns (and so fits beside the filters);
        # a row's answers are for those who may answer.
        shown = list(self.list_display)
        if request.GET.get(StatusFilter.parameter_name, Interrupt.Status.OPEN) == Interrupt.Status.OPEN:
            shown = [c for c in shown if c not in ("status", "answered_column")]
        else:
            shown = [c for c in shown if c not in ("left_column", "row_actions")]
        if not self.has_answer_permission(request):
            shown = [c for c in shown if c != "row_actions"]
        return shown

    def get_paginator(self, request: HttpRequest, queryset: Any, per_page: int, orphans: int = 0,
                      allow_empty_first_page: bool = True) -> QueuePaginator:
        paginator = QueuePaginator(queryset, per_page, orphans, allow_empty_first_page)
        if self.has_answer_permission(request):  # the header's count, read with the page's own
            paginator.count_open = Interrupt.objects.filter(status=Interrupt.Status.OPEN)
        return paginator

    def get_changelist(self, request: HttpRequest, **kwargs: Any) -> type[ChangeList]:
        return QueueChangeList

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        response = super().changelist_view(request, {"title": gettext("Pauses"), **(extra_context or {})})
        context = getattr(response, "context_data", None)
        if context is not None and "cl" in context and self.has_answer_permission(request):
            # One small form per answerable row, outside the list's own form (forms do not nest):
            # the row's buttons name it with form="…", and it carries that pause's own token.
            here = request.get_full_path()
            context["row_forms"] = [
                {"id": f"answer-{pause.pk}", "url": row_url("admin:threads_interrupt_answer", pause.pk),
                 "token": row_token(pause), "next": here}
                for pause in context["cl"].result_list if answerable_from_row(pause)]
        return response

    @admin.display(description=mark_safe('<input type="checkbox" id="action-toggle">'))
    def action_checkbox(self, pause: Interrupt) -> str:
        # Django's checkbox as its widget renders it (written out: the widget's template was a
        # third of the queue's rendering), labelled with the call; and the row's token as shown,
        # so a bulk answer sends each pause its own.
        label = str(SELECT_FOR_ACTION).format(call_words(pause))
        box = '<input type="checkbox" name="{}" value="{}" class="action-select" aria-label="{}">'
        if pause.status != Interrupt.Status.OPEN:
            return format_html(box, admin.helpers.ACTION_CHECKBOX_NAME, pause.pk, label)
        return format_html(box + '<input type="hidden" name="token:{}" value="{}">', admin.helpers.ACTION_CHECKBOX_NAME,
                           pause.pk, label, pause.pk, row_token(pause))

    @admin.display(description=_("what it asks"))
    def call_column(self, pause: Interrupt) -> str:
        # The row's link to its pause page; an irreversible call's words open with the warning mark.
        return format_html("{}{}", irreversible_mark(pause), call_words(pause))

    @admin.display(description=_("why, and from where"))
    def reason_column(self, pause: Interrupt) -> str:
        # The first reason, and under it the agent and the source (a turn, an agent's call).
        # Under a policy, its approvals so far ("1 of 2 approvals: ana") below that.
        origin = " · ".join(x for x in (pause.agent, source_words(pause)) if x)
        approvals = row_words(pause)
        if approvals and pause.status == Interrupt.Status.OPEN:
            return format_html('{}<span class="queue-from">{}</span><span class="queue-approvals">{}</span>',
                               first_reason(pause), origin, approvals)
        return format_html('{}<span class="queue-from">{}</span>', first_reason(pause), origin)

    @admin.display(description=_("time left"), ordering="expires_at")
    def left_column(self, pause: Interrupt) -> str:
        return time_left(pause)

    @admin.display(description=_("answer"))
    def row_actions(self, pause: Interrupt) -> str:
        if approvals_of(pause) is not None and pause.status == Interrupt.Status.OPEN:
            # Under a policy: answered on its page, which says who may answer it.
            return format_html('<a class="queue-open" href="{}" aria-label="{}: {}">{}</a>',
                               row_url("admin:threads_interrupt_change", pause.pk), ANSWER_ON_PAGE,
                               call_words(pause), ANSWER_ON_PAGE)
        if not answerable_from_row(pause):
            return ""
        words, labels = call_words(pause), _row_labels(get_language())
        buttons = [format_html(
            '<button type="submit" form="answer-{}" name="decision" value="{}" class="button{}"'
            ' aria-label="{}">{}</button>', pause.pk, decision, " default" if decision == "approve" else "",
            f"{labels[decision]}: {words}", labels[decision]) for decision in ROW_DECISIONS]
        return format_html('<span class="queue-actions">{}</span>', mark_safe("".join(buttons)))

    @admin.display(description=_("thread"), ordering="thread_id")
    def thread_link(self, pause: Interrupt) -> str:
        # The id its client gave it (read off the key: no join); the key in the link and its title.
        url = row_url("admin:threads_thread_change", pause.thread_id)
        return format_html('<a href="{}" title="{}">{}</a>', url, pause.thread_id, thread_name(pause.thread_id))

    @admin.display(description=_("reasons"))
    def reasons_column(self, pause: Interrupt) -> str:
        return "; ".join(reason_words(r) for r in pause.payload.get("reasons", []))

    @admin.display(description=_("age"), ordering="created_at")
    def age_column(self, pause: Interrupt) -> str:
        age = since_words(pause.created_at)
        if pause.expires_at and pause.status == Interrupt.Status.OPEN:
            return gettext("{age} (deadline {deadline})").format(age=age, deadline=when(pause.expires_at))
        return age

    @admin.display(description=_("answered"))
    def answered_column(self, pause: Interrupt) -> str:
        return answered_words(pause)

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
        story = story_of(pause)
        approvals = approvals_of(pause)
        # Under a policy: who may answer it (its group; not twice; not whoever proposed or edited it).
        why_not = Staff(request.user.get_username()).why_not(pause) if is_open else ""
        may = is_open and self.has_answer_permission(request) and not why_not
        return {
            **story,
            "title": gettext("Pause: {tool}").format(tool=pause.tool or pause.get_kind_display()),
            "opts": self.opts,
            "pause": pause,
            "question": p.get("question", ""),
            "arguments": [{"name": a.get("name"), "value": a.get("value"),
                           "origin": origin_words(str(a.get("origin", "")), client=story["client"])}
                          for a in p.get("arguments", [])],
            "reasons": [reason_words(r) for r in p.get("reasons", [])],
            "irreversible": bool(p.get("irreversible")),
            "ask_choices": list(enumerate(ask.get("choices") or [])) if pause.kind == Interrupt.Kind.ASK else [],
            "ask_prompt": ask.get("prompt", ""),
            "buttons": [(d, decision_words(d)) for d in buttons_of(pause)]
            if pause.kind != Interrupt.Kind.ASK else [],
            "can_answer": may,
            "why_not": why_not if is_open and self.has_answer_permission(request) else "",
            "approvals": {"count": count_words(approvals), "given": given_rows(approvals),
                          "group": group_words(approvals)} if approvals is not None else None,
            "token": token_for(pause) if is_open else "",
            "answered": self.answered_column(pause),
            "answer_url": reverse("admin:threads_interrupt_answer", args=[pause.pk]),
            "thread_url": reverse("admin:threads_thread_change", args=[pause.thread_id]),
            "age": self.age_column(pause),
            # A mirrored call is edited through its bridge (an edit decision), which checks the tool.
            "can_edit": is_open and pause.kind == Interrupt.Kind.CONFIRM and pause.step_id is not None
            and not pause.payload.get("handback") and may,
            "edit_url": reverse("admin:threads_interrupt_edit", args=[pause.pk]),
            "edited_by": sorted(edited_by(pause.step_id)) if pause.kind == Interrupt.Kind.CONFIRM else [],
            "successor": successor_of(pause) if pause.status == Interrupt.Status.EDITED else None,
        }

    def answer_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if not self.has_answer_permission(request):
            raise PermissionDenied
        pause = get_object_or_404(Interrupt, pk=object_id)
        try:
            decision, answer = decision_of(request, pause)
        except InvalidAnswer as exc:  # a choice the page cannot have sent: nothing changed
            messages.error(request, str(exc.detail))
            return HttpResponseRedirect(back_to(request, reverse("admin:threads_interrupt_change", args=[pause.pk])))
        if pause.kind != Interrupt.Kind.ASK and decision not in buttons_of(pause):
            # Only what the page offers: a mirrored pause's edit or respond needs what its bridge sends with it.
            messages.error(request, str(MESSAGE_NOT_OFFERED).format(decision=decision_words(decision) or "—"))
            return HttpResponseRedirect(back_to(request, reverse("admin:threads_interrupt_change", args=[pause.pk])))
        since = timezone.now()  # what the run says from now on is what it did with this answer
        try:
            result = pause_answer(thread_id=pause.thread_id, pause_id=pause.pk, decision=decision,
                                  token=str(request.POST.get("token", "")), answer=answer,
                                  by=request.user.get_username(), via=Interrupt.Via.CONSOLE)
        except ApprovalRecorded as exc:  # short of a policy's quorum: recorded; the pause waits for the others
            self.log_change(request, pause, f"approved: {decision} ({len(exc.approvals.get('given') or [])} "
                                            f"of {exc.approvals.get('needed')})")
            messages.success(request, recorded_message(exc.approvals))
            return HttpResponseRedirect(reverse("admin:threads_interrupt_change", args=[pause.pk]))
        except NotAnApprover as exc:  # outside the policy's group, or its proposer: nothing changed
            messages.error(request, str(exc.detail))
            return HttpResponseRedirect(reverse("admin:threads_interrupt_change", args=[pause.pk]))
        except Stale as exc:
            messages.error(request, stale_message(exc.extra))
        except (InvalidDecision, InvalidAnswer, NotFound) as exc:
            messages.error(request, str(exc.detail))
        else:
            self.log_change(request, pause, f"answered: {decision}")
            if request.POST.get("next"):  # from the queue's row: back to the queue, the call named
                messages.success(request, str(MESSAGE_ANSWERED_CALL).format(decision=decision_words(decision),
                                                                            call=call_words(pause)))
            else:
                failed = outcome_of(pause, result) == "failed"
                (messages.warning if failed else messages.success)(
                    request, answered_message(pause, decision, result, since))
        return HttpResponseRedirect(back_to(request, reverse("admin:threads_interrupt_change", args=[pause.pk])))

    def edit_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """Edit before approving: new values go back to the check as a new proposal."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if not self.has_answer_permission(request):
            raise PermissionDenied
        pause = get_object_or_404(Interrupt, pk=object_id)
        values = {k.removeprefix("arg:"): str(v) for k, v in request.POST.items() if k.startswith("arg:")}
        try:
            pause_edit(pause_id=pause.pk, token=str(request.POST.get("token", "")), values=values,
                       by=request.user.get_username())
        except Stale as exc:
            messages.error(request, stale_message(exc.extra))
        except (InvalidAnswer, NotFound, NotAnApprover) as exc:  # outside the policy's group: nothing changed
            messages.error(request, str(exc.detail))
        else:
            self.log_change(request, pause, f"edited: {values}")
            successor = successor_of(pause)
            messages.success(request, str(MESSAGE_EDITED))
            if successor is not None:
                return HttpResponseRedirect(reverse("admin:threads_interrupt_change", args=[successor.pk]))
        return HttpResponseRedirect(reverse("admin:threads_interrupt_change", args=[pause.pk]))

