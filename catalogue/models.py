"""What of a catalogue lives in the database: withdrawals and per-agent settings.

The catalogue itself is the user's file (SPEC §4.1); an operator's
withdrawal (SPEC §4.6) and the admin's "Language the selector reads" (SPEC §5)
are the only state the server keeps about it.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Withdrawal(models.Model):
    agent = models.CharField(max_length=200)
    tool = models.CharField(max_length=200)
    reason = models.TextField(blank=True)
    withdrawn_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    withdrawn_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["agent", "tool"], name="withdrawal_unique_tool")]

    def __str__(self) -> str:
        return f"{self.agent}: {self.tool}"


class AgentSetting(models.Model):
    agent = models.CharField(max_length=200, unique=True)
    language = models.CharField(
        "Language the selector reads", max_length=8, blank=True, choices=[("en", "English"), ("pt-BR", "Português (Brasil)")]
    )

    def __str__(self) -> str:
        return self.agent
