"""The console's thread pages: the list, and one thread's trace (SPEC §12).

A thread's page shows its turns (messages), each run with its steps, their
status, receipts and verdicts, the pauses and who answered them, and the
events in order. The pause queue itself is the answering side's
(``approvals.admin``), since answering needs ``approvals.answers``.

Rollback (the report and the operators' button) needs issue 8's
``run_rollback`` service; the page keeps a marked place for it
(``ROLLBACK_PENDING``) and shows a run's stored ``rollback`` report when one
exists. It does not pretend to roll back.
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.db.models import Prefetch
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from threads.labels import decision_words
from threads.models import Interrupt, Receipt, Run, Step, Thread

# ROLLBACK (issue 8): the operators' button, its confirmation page and the report go here,
# through threads.engine's run_rollback once it lands. Until then the page says so.
ROLLBACK_PENDING = _("Rolling back from the console is not available in this version yet.")


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
        return TemplateResponse(request, "admin/threads/thread/trace.html", {
            **self.admin_site.each_context(request),
            "title": gettext("Thread {thread}").format(thread=thread.id),
            "opts": self.opts,
            "thread": thread,
            "messages_": list(thread.messages.order_by("created_at")),
            "runs": runs,
            "events": [(e, json.dumps(e.data, ensure_ascii=False, default=str))
                       for e in thread.events.order_by("seq")],
            "can_rollback": request.user.has_perm("threads.rollback_run"),
            "rollback_pending": ROLLBACK_PENDING,
            "run_status": Run.Status,
        })
