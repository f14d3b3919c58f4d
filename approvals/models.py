"""Approvals keep tables of their own: one-time ``--dev-pair`` codes and the
wrong tries counted against guessing them (``approvals.pairing``)."""

from __future__ import annotations

from django.db import models


class PairingCode(models.Model):
    code_hash = models.CharField(max_length=64, unique=True)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"pairing code (expires {self.expires_at:%Y-%m-%d %H:%M})"


class PairingFailure(models.Model):
    """One wrong pairing code, from one client address, at one time."""

    client = models.CharField(max_length=64, db_index=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    def __str__(self) -> str:
        return f"wrong pairing code from {self.client} at {self.created_at:%H:%M:%S}"
