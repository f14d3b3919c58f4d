"""The console's thread pages: the list, and one thread's trace (docs/operating.md, "The console (/admin/)").

A thread's page shows its turns (messages), each run with its steps, their
status, receipts and verdicts, the pauses and who answered them, and the
events in order. The pause queue itself is the answering side's
(``approvals.admin.pauses``), as the rest of the console.

Operators roll a thread back from here: ``rollback_view`` shows what would
be undone, and its CSRF-protected POST calls ``threads.engine.thread_rollback``,
the same service as ``POST /threads/{id}/rollback``; the permission
(``threads.rollback_run``) is checked in the view, the template only hides
the button.
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Prefetch
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from threads.engine import thread_rollback
from threads.feedback import feedback_counts
from threads.labels import decision_words
from threads.models import Feedback, Interrupt, Receipt, Run, Step, Thread

ROLLBACK_PERMISSION = "threads.rollback_run"
MESSAGE_ROLLED_BACK = _("Rolled back: {undone} undone, {not_undoable} could not be undone, {stuck} stuck.")


@admin.register(Thread)
class ThreadAdmin(admin.ModelAdmin):
    list_display = ["id", "agent", "created_at", "updated_at"]
    list_filter = ["agent"]
    search_fields = ["id"]
    ordering = ["-updated_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Thread | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Thread | None = None) -> bool:
        return False

    def get_urls(self) -> list[Any]:
        rollback = self.admin_site.admin_view(self.rollback_view)
        return [path("<path:object_id>/rollback/", rollback, name="threads_thread_rollback"), *super().get_urls()]

    def rollback_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """An operator's rollback (docs/operating.md, "The console (/admin/)"): a
        confirmation page, then a CSRF-protected POST through the same service as
        the HTTP route."""
        thread = get_object_or_404(Thread, pk=object_id)
        if not request.user.has_perm(ROLLBACK_PERMISSION):  # the view checks; the template only hides
            raise PermissionDenied
        if request.method == "POST":
            done = thread_rollback(thread_id=thread.id, by=request.user.get_username())
            report = done["rollback"]
            self.message_user(request, MESSAGE_ROLLED_BACK.format(
                undone=len(report["undone"]), not_undoable=len(report["not_undoable"]), stuck=len(report["stuck"])),
                messages.SUCCESS if not report["stuck"] else messages.WARNING)
            return HttpResponseRedirect(reverse("admin:threads_thread_change", args=[thread.pk]))
        if request.method != "GET":
            return HttpResponseNotAllowed(["GET", "POST"])
        return TemplateResponse(request, "admin/threads/thread/rollback_confirm.html", {
            **self.admin_site.each_context(request),
            "title": gettext("Roll back thread {thread}?").format(thread=thread.id),
            "opts": self.opts,
            "thread": thread,
            "writes": [(s, _undo_call(s)) for s in _undoable(thread)],
        })

    def change_view(self, request: HttpRequest, object_id: str, form_url: str = "",
                    extra_context: dict[str, Any] | None = None) -> HttpResponse:
        thread = get_object_or_404(Thread, pk=object_id)
        if not self.has_view_permission(request, thread):
            raise PermissionDenied
        steps = Step.objects.order_by("index").prefetch_related(
            Prefetch("receipts", queryset=Receipt.objects.order_by("created_at")))
        runs = list(thread.runs.order_by("created_at").prefetch_related(
            Prefetch("steps", queryset=steps),
            Prefetch("interrupts", queryset=Interrupt.objects.order_by("created_at"))))
        for run in runs:
            for pause in run.interrupts.all():
                pause.decision_words = decision_words(pause.decision) if pause.decision else ""
            run.heading_status = _run_heading(run)
        return TemplateResponse(request, "admin/threads/thread/trace.html", {
            **self.admin_site.each_context(request),
            "title": gettext("Thread {thread}").format(thread=thread.id),
            "opts": self.opts,
            "thread": thread,
            "messages_": list(thread.messages.order_by("created_at")),
            "runs": runs,
            "events": [(e, json.dumps(e.data, ensure_ascii=False, default=str))
                       for e in thread.events.order_by("seq")],
            "feedback": list(Feedback.objects.filter(thread=thread).select_related("message").order_by("created_at")),
            # Offered only with something to undo: a succeeded write no rollback has undone yet.
            "can_rollback": request.user.has_perm(ROLLBACK_PERMISSION) and _undoable(thread).exists(),
            "run_status": Run.Status,
        })


def _undoable(thread: Thread) -> Any:
    """The thread's writes a rollback would undo, newest first (as ``thread_rollback`` takes them)."""
    return Step.objects.filter(run__thread=thread, kind="write", status=Step.Status.SUCCEEDED,
                               undo_of__isnull=True).select_related("run").order_by("-run__created_at", "-index")


def _undo_call(step: Step) -> str:
    """The call that undoes ``step``, as it will be sent: ``refund_card(amount=40, order_id=4411)``; "" for none."""
    comp = step.compensation or {}
    if not comp.get("tool"):
        return ""
    arguments = ", ".join(f"{k}={v}" for k, v in sorted((comp.get("arguments") or {}).items()))
    return f"{comp['tool']}({arguments})"


def _run_heading(run: Run) -> str:
    """A run's status as its heading says it: a run that ended with a failed (or refused) step is not "done"."""
    if run.status == Run.Status.DONE:
        statuses = {s.status for s in run.steps.all()}
        if Step.Status.FAILED in statuses:
            return gettext("ended with a failed step")
        if Step.Status.OUTCOME_UNKNOWN in statuses:
            return gettext("ended with a step whose outcome is not known")
        if statuses and statuses <= {Step.Status.REFUSED, Step.Status.SKIPPED, Step.Status.CANCELLED}:
            return gettext("ended with nothing done")
    return str(run.get_status_display())


@admin.register(Feedback)
class FeedbackAdmin(admin.ModelAdmin):
    """Thumbs, newest first; the changelist's subtitle counts them per agent."""

    list_display = ["thumb", "agent", "thread", "message", "comment", "updated_at"]
    list_filter = ["thumb", "agent"]
    search_fields = ["thread__id", "comment"]
    list_select_related = ["thread", "message"]
    readonly_fields = ["thumb", "agent", "thread", "message", "comment", "created_at", "updated_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Feedback | None = None) -> bool:
        return False

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> Any:
        counts = feedback_counts()
        subtitle = "; ".join(
            gettext("%(agent)s: %(up)s up, %(down)s down") % {"agent": agent, **c} for agent, c in counts.items())
        return super().changelist_view(request, {**(extra_context or {}), "subtitle": subtitle})
