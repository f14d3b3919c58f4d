"""Approvals keep one table of their own: one-time ``--dev-pair`` codes."""

from __future__ import annotations

from django.db import models


class PairingCode(models.Model):
    code_hash = models.CharField(max_length=64, unique=True)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"pairing code (expires {self.expires_at:%Y-%m-%d %H:%M})"
