"""The pause queue's bulk answers ("Approve selected pauses", "Skip selected pauses"): each pause with the
token its row showed, one report line each, whatever became of it since the list was shown; irreversible
calls confirmed first. An approval short of an approval policy's quorum is reported as recorded."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from approvals.admin.answers import BULK_NOT_CONFIRM, MESSAGE_ANSWERED, back_to, stale_message
from approvals.admin.policy import recorded_message
from approvals.admin.rows import call_words
from approvals.words import decision_words
from threads.engine import pause_answer
from threads.errors import ApprovalRecorded, InvalidAnswer, InvalidDecision, NotAnApprover, NotFound, Stale
from threads.models import Interrupt


class BulkAnswers:
    """The queue's actions (a mixin of ``InterruptAdmin``)."""

    admin_site: Any  # ModelAdmin's (annotations only: the admin's own are used)
    opts: Any
    log_change: Any

    # --- bulk answers: each pause with its own token, one report line each ----------
    @admin.action(description=_("Approve selected pauses"), permissions=["answer"])
    def approve_selected(self, request: HttpRequest, queryset: QuerySet[Interrupt]) -> HttpResponse | None:
        return self.bulk_answer(request, queryset, "approve")

    @admin.action(description=_("Skip selected pauses"), permissions=["answer"])
    def skip_selected(self, request: HttpRequest, queryset: QuerySet[Interrupt]) -> HttpResponse | None:
        return self.bulk_answer(request, queryset, "skip")

    def bulk_answer(self, request: HttpRequest, queryset: QuerySet[Interrupt], decision: str) -> HttpResponse:
        # The pauses selected, whatever became of them since the list was shown (the list's own
        # queryset holds open ones only: one answered elsewhere must still be reported).
        selected = request.POST.getlist(admin.helpers.ACTION_CHECKBOX_NAME)
        pauses = list(Interrupt.objects.filter(pk__in=selected).order_by("created_at", "id"))
        tokens = {p.pk: str(request.POST.get(f"token:{p.pk}", "")) for p in pauses}
        irreversible = [p for p in pauses if p.status == Interrupt.Status.OPEN
                        and p.kind == Interrupt.Kind.CONFIRM and (p.payload or {}).get("irreversible")]
        back = back_to(request, reverse("admin:threads_interrupt_changelist"))
        if decision == "approve" and irreversible and request.POST.get("confirm_irreversible") != "yes":
            return TemplateResponse(request, "admin/threads/interrupt/bulk_confirm.html", {
                **self.admin_site.each_context(request), "opts": self.opts,
                "title": gettext("Approve irreversible calls?"),
                "irreversible": [{"pause": p, "call": call_words(p)} for p in irreversible],
                "pauses": [{"pause": p, "call": call_words(p), "token": tokens[p.pk]} for p in pauses],
                "action": request.POST.get("action", ""), "next": back,
                "action_field": admin.helpers.ACTION_CHECKBOX_NAME,
            })
        me = request.user.get_username()
        report = [self._bulk_one(request, pause, decision, tokens[pause.pk], me) for pause in pauses]
        return TemplateResponse(request, "admin/threads/interrupt/bulk_report.html", {
            **self.admin_site.each_context(request), "opts": self.opts,
            "title": gettext("What happened to each pause"), "decision": decision_words(decision),
            "report": report, "next": back,
            "done": sum(1 for r in report if r["outcome"] == "done"),
        })

    def _bulk_one(self, request: HttpRequest, pause: Interrupt, decision: str, token: str, me: str) -> dict[str, Any]:
        line: dict[str, Any] = {"pause": pause, "call": call_words(pause),
                                "url": reverse("admin:threads_interrupt_change", args=[pause.pk])}
        if pause.kind != Interrupt.Kind.CONFIRM:
            return {**line, "outcome": "refused", "words": str(BULK_NOT_CONFIRM)}
        try:
            pause_answer(thread_id=pause.thread_id, pause_id=pause.pk, decision=decision, token=token,
                         by=me, via=Interrupt.Via.CONSOLE)
        except Stale as exc:
            shown = exc.extra.get("interrupt") or {}
            if shown.get("status") == Interrupt.Status.ANSWERED and (shown.get("answered_by") or "") != me:
                return {**line, "outcome": "lost", "words": stale_message(exc.extra)}
            return {**line, "outcome": "stale", "words": stale_message(exc.extra)}
        except ApprovalRecorded as exc:  # short of a policy's quorum: recorded, still open
            return {**line, "outcome": "recorded", "words": recorded_message(exc.approvals)}
        except (InvalidDecision, InvalidAnswer, NotFound, NotAnApprover) as exc:
            return {**line, "outcome": "refused", "words": str(exc.detail)}
        self.log_change(request, pause, f"answered: {decision} (bulk)")
        return {**line, "outcome": "done", "words": str(MESSAGE_ANSWERED).format(decision=decision_words(decision))}

