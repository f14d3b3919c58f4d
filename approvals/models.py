"""Approvals keep two tables of their own: one-time ``--dev-pair`` codes, and
the one-time passwords ``createstaff`` hands out.

A ``OneTimePassword`` row remembers the password hash the account was given;
while the account's hash is still that one, the console sends every page to
the password change form (``stalwart_site.middleware.PasswordChangeFirstMiddleware``).
Changing the password changes the hash, so nothing has to clear the flag.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


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


class OneTimePassword(models.Model):
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="one_time_password")
    password_hash = models.CharField(max_length=256)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("one-time password")
        verbose_name_plural = _("one-time passwords")

    def __str__(self) -> str:
        return str(self.user)
