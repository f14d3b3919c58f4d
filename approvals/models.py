"""Approvals' own tables: one-time ``--dev-pair`` codes (``approvals.pairing``;
the wrong tries against them are ``threads.WrongGuess`` rows), the notification
outbox (``Delivery``, ``WebhookEndpoint``; see ``approvals.outbox``), the
one-time passwords ``createstaff`` hands out, and the decisions page's view of
the pauses (``Decision``).

A ``OneTimePassword`` row remembers the password hash the account was given;
while the account's hash is still that one, the console sends every page to
the password change form (``stalwart_site.middleware.PasswordChangeFirstMiddleware``).
Changing the password changes the hash, so nothing has to clear the flag.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from threads.models import Interrupt


class PairingCode(models.Model):
    code_hash = models.CharField(max_length=64, unique=True)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("pairing code")
        verbose_name_plural = _("pairing codes")

    def __str__(self) -> str:
        return f"pairing code (expires {self.expires_at:%Y-%m-%d %H:%M})"


class Delivery(models.Model):
    """One notification to one listener, kept until delivered or given up.

    pending --claim--> delivering --2xx/returned--> delivered
                                  --failure--> pending (later) | failed (given up)
    pending --(a "waiting" pause no longer open)--> skipped
    """

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        DELIVERING = "delivering", _("delivering")
        DELIVERED = "delivered", _("delivered")
        FAILED = "failed", _("failed")
        SKIPPED = "skipped", _("skipped")

    message_id = models.CharField(_("webhook id"), max_length=40, unique=True)
    target = models.CharField(_("listener"), max_length=500, db_index=True)
    type = models.CharField(_("type"), max_length=32, default="waiting")
    thread_id = models.CharField(max_length=160)
    interrupt_id = models.CharField(max_length=40)
    status = models.CharField(_("status"), max_length=16, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField()
    claimed_until = models.DateTimeField(null=True, blank=True)
    claimed_by = models.CharField(max_length=100, blank=True)
    last_error = models.TextField(blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["created_at"]
        indexes = [models.Index(fields=["status", "next_attempt_at"])]
        verbose_name = _("delivery")
        verbose_name_plural = _("deliveries")

    def __str__(self) -> str:
        return f"{self.type} {self.interrupt_id} -> {self.target} ({self.status})"


class WebhookEndpoint(models.Model):
    """A receiver that answered 410 Gone is disabled until an operator re-enables it."""

    target = models.CharField(_("listener"), max_length=500, unique=True)
    disabled_at = models.DateTimeField(_("disabled at"), null=True, blank=True)
    disabled_reason = models.CharField(_("why"), max_length=200, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("webhook endpoint")
        verbose_name_plural = _("webhook endpoints")

    def __str__(self) -> str:
        return self.target


class OneTimePassword(models.Model):
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="one_time_password")
    password_hash = models.CharField(max_length=256)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("one-time password")
        verbose_name_plural = _("one-time passwords")

    def __str__(self) -> str:
        return str(self.user)


class Decision(Interrupt):
    """A pause as the decisions page reads it: who answered what, when and from where
    (a proxy of ``threads.Interrupt``, whose row records the answer; no table of its own)."""

    class Meta:
        proxy = True
        verbose_name = _("decision")
        verbose_name_plural = _("decisions")
