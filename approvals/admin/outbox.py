"""The outbox in the operator console: deliveries (read-only) and webhook
endpoints, which an operator re-enables after a receiver answered 410 Gone."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy, ngettext

from approvals.models import Delivery, WebhookEndpoint
from approvals.outbox import endpoint_enable


@admin.register(Delivery)
class DeliveryAdmin(admin.ModelAdmin):
    list_display = ["type", "interrupt_id", "target", "status", "attempts", "next_attempt_at", "last_error"]
    list_filter = ["status", "type", "target"]
    search_fields = ["thread_id", "interrupt_id", "message_id"]
    ordering = ["-created_at"]
    readonly_fields = [f.name for f in Delivery._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(admin.ModelAdmin):
    list_display = ["target", "disabled_at", "disabled_reason"]
    readonly_fields = ["target", "disabled_at", "disabled_reason", "updated_at"]
    actions = ["re_enable"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.action(description=gettext_lazy("Re-enable: deliver what waited for it"))
    def re_enable(self, request: HttpRequest, queryset: QuerySet[WebhookEndpoint]) -> None:
        due = sum(endpoint_enable(target=endpoint.target) for endpoint in queryset)
        text = ngettext("Re-enabled; %(n)s delivery is due now.", "Re-enabled; %(n)s deliveries are due now.", due)
        self.message_user(request, text % {"n": due}, messages.SUCCESS)
