"""Caller keys in the console (``doors.keys``): what the MCP clients' and the LangGraph keys'
pages share. An operator makes a key (shown once, on the page that made it, never again) and
revokes it; a key is never edited, and never deleted (so the console still says who called)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from doors.keys import CallerKey, key_create, key_revoke

MESSAGE_KEY = _("The key of {name}, shown this once: {key} (copy it now; Stalwart keeps only its hash).")


class CallerKeyAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """A door's keys. A subclass names its form's fields (``create_fields``) and reads from the
    form the key's privileges (``privileges_of``) and anything else its table keeps (``fields_of``)."""

    list_display = ["name", "key_prefix", "privileges", "in_force", "last_used_at", "created_by", "created_at"]
    readonly_fields = ["key_prefix", "privileges", "created_by", "created_at", "last_used_at", "revoked_at"]
    create_fields: list[str] = ["name"]
    actions = ["revoke"]

    def privileges_of(self, form: Any) -> list[str]:
        return []

    def fields_of(self, form: Any) -> dict[str, Any]:
        return {}

    @admin.display(description=_("in force"), boolean=True)
    def in_force(self, caller: CallerKey) -> bool:
        return caller.revoked_at is None

    def get_fields(self, request: HttpRequest, obj: CallerKey | None = None) -> list[str]:
        return list(self.create_fields) if obj is None else ["name", *self.readonly_fields]

    def get_readonly_fields(self, request: HttpRequest, obj: CallerKey | None = None) -> list[str]:
        return [*self.readonly_fields, "name"] if obj is not None else []

    def has_change_permission(self, request: HttpRequest, obj: CallerKey | None = None) -> bool:
        return obj is None and super().has_change_permission(request, obj)  # a key is made or revoked, never edited

    def has_delete_permission(self, request: HttpRequest, obj: CallerKey | None = None) -> bool:
        return False  # revoked, so the console still says who called

    def save_model(self, request: HttpRequest, obj: CallerKey, form: Any, change: bool) -> None:
        made, key = key_create(self.model, name=obj.name, privileges=self.privileges_of(form),
                               by=request.user.get_username(), **self.fields_of(form))
        obj.pk, obj.key_prefix, obj.created_at = made.pk, made.key_prefix, made.created_at
        obj._state.adding = False
        self.message_user(request, str(MESSAGE_KEY).format(name=made.name, key=key), messages.WARNING)

    @admin.action(description=_("Revoke the selected keys"), permissions=["change"])
    def revoke(self, request: HttpRequest, queryset: QuerySet[CallerKey]) -> None:
        callers = list(queryset.filter(revoked_at__isnull=True))
        for caller in callers:
            key_revoke(caller)
        self.message_user(request, ngettext("Revoked %(n)s key: its calls are refused from now on.",
                                            "Revoked %(n)s keys: their calls are refused from now on.",
                                            len(callers)) % {"n": len(callers)}, messages.SUCCESS)

    def has_revoke_permission(self, request: HttpRequest) -> bool:
        opts = self.model._meta
        return bool(request.user.has_perm(f"{opts.app_label}.change_{opts.model_name}"))
