"""What of a catalogue lives in the database: withdrawals and per-agent settings.

The catalogue itself is the user's file (docs/agent-file.md, "catalogue.json");
an operator's withdrawal and the admin's "Language the selector reads"
(docs/operating.md, "The console (/admin/)") are the only state the server
keeps about it. ``Tool`` has no table: it gives
the console's tools page its address (``/admin/catalogue/tool/``) and its
``view_tool`` permission; the rows come from the loaded agent file.

Every process keeps a copy of the first two (``catalogue.stored``); every write
to them, whichever path it takes, calls ``stored.changed()`` (signals below,
and the queryset writes that send none) so that copy is read again.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models.signals import post_delete, post_migrate, post_save
from django.utils.translation import gettext_lazy as _

from catalogue import stored


class NoticedQuerySet(models.QuerySet):
    """Queryset writes that send no signal still announce the change."""

    def update(self, **kwargs: Any) -> int:
        count = super().update(**kwargs)
        stored.changed(using=self.db)
        return count

    def bulk_create(self, *args: Any, **kwargs: Any) -> Any:
        made = super().bulk_create(*args, **kwargs)
        stored.changed(using=self.db)
        return made

    def bulk_update(self, *args: Any, **kwargs: Any) -> int:
        count = super().bulk_update(*args, **kwargs)
        stored.changed(using=self.db)
        return count


class Withdrawal(models.Model):
    agent = models.CharField(_("agent"), max_length=200)
    tool = models.CharField(_("tool"), max_length=200)
    reason = models.TextField(_("why"), blank=True)
    withdrawn_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                     verbose_name=_("withdrawn by"))
    withdrawn_at = models.DateTimeField(_("withdrawn at"), auto_now_add=True)

    objects = NoticedQuerySet.as_manager()

    class Meta:
        verbose_name = _("withdrawal")
        verbose_name_plural = _("withdrawals")
        constraints = [models.UniqueConstraint(fields=["agent", "tool"], name="withdrawal_unique_tool")]

    def __str__(self) -> str:
        return self.tool  # "The withdrawal "archive_order" was added": named by its tool


class AgentSetting(models.Model):
    agent = models.CharField(_("agent"), max_length=200, unique=True)
    language = models.CharField(
        _("Language the selector reads"), max_length=8, blank=True,
        choices=[("en", "English"), ("pt-BR", "Português (Brasil)")],
        help_text=_("Empty: the agent file's language."),
    )

    objects = NoticedQuerySet.as_manager()

    class Meta:
        verbose_name = _("agent setting")
        verbose_name_plural = _("settings")

    def __str__(self) -> str:
        return self.agent


class Tool(models.Model):
    """The tools page's address and permission; no table (the agent file holds the tools)."""

    name = models.CharField(_("tool"), max_length=200, primary_key=True)

    class Meta:
        managed = False
        verbose_name = _("tool")
        verbose_name_plural = _("tools")
        default_permissions = ("view",)

    def __str__(self) -> str:
        return self.name


# Signals here, not a rule in a service: the copy must follow every write, the
# admin's, a shell's, a fixture's or a test's. (A delete sends post_delete per
# row: with a receiver connected, Django never takes the fast-delete path.)
def _announce(sender: Any, using: str = "default", **kwargs: Any) -> None:
    stored.changed(using=using)


def _announce_flush(sender: Any, using: str = "default", **kwargs: Any) -> None:
    if getattr(sender, "label", None) == "catalogue":  # migrate, or flush (a test's tables emptied)
        stored.changed(using=using)


for _model in (Withdrawal, AgentSetting):
    post_save.connect(_announce, sender=_model, dispatch_uid=f"stored-save-{_model.__name__}")
    post_delete.connect(_announce, sender=_model, dispatch_uid=f"stored-delete-{_model.__name__}")
post_migrate.connect(_announce_flush, dispatch_uid="stored-migrate")
