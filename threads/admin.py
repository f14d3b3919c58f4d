"""The operator console's first pages: the queue of pauses and the threads.

Answering from the admin (one button per answer, through the same claim and
token as the HTTP route) arrives with the console issue; for now the queue is
read-only.
"""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from threads.models import Interrupt, Thread


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


@admin.register(Thread)
class ThreadAdmin(admin.ModelAdmin):
    list_display = ["id", "agent", "created_at", "updated_at"]
    search_fields = ["id"]
    readonly_fields = ["id", "agent", "session_hash", "event_seq", "created_at", "updated_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Thread | None = None) -> bool:
        return False
