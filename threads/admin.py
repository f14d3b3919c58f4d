"""The operator console's first pages: the queue of pauses and the threads.

Answering from the admin (one button per answer, through the same claim and
token as the HTTP route) arrives with the console issue; for now the queue is
read-only.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.utils.translation import gettext as _

from threads.feedback import feedback_counts
from threads.models import Feedback, Interrupt, Thread


@admin.register(Interrupt)
class InterruptAdmin(admin.ModelAdmin):
    list_display = ["kind", "thread", "tool", "status", "created_at", "answered_by", "answered_at"]
    list_filter = ["kind", "agent", "status"]
    search_fields = ["thread__id", "tool"]
    list_select_related = ["thread"]
    ordering = ["created_at"]
    readonly_fields = [f.name for f in Interrupt._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Interrupt | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Interrupt | None = None) -> bool:
        return False


class FeedbackInline(admin.TabularInline):
    """The thread page lists the thumbs its replies got."""

    model = Feedback
    fields = ["message", "thumb", "comment", "updated_at"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Thread)
class ThreadAdmin(admin.ModelAdmin):
    inlines = [FeedbackInline]
    list_display = ["id", "agent", "created_at", "updated_at"]
    search_fields = ["id"]
    readonly_fields = ["id", "agent", "session_hash", "event_seq", "created_at", "updated_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Thread | None = None) -> bool:
        return False


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
            _("%(agent)s: %(up)s up, %(down)s down") % {"agent": agent, **c} for agent, c in counts.items())
        return super().changelist_view(request, {**(extra_context or {}), "subtitle": subtitle})
