"""Writes of catalogue state: withdrawing and restoring a tool (docs/operating.md, "The console (/admin/)")."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from catalogue.models import AgentSetting, Withdrawal


@transaction.atomic
def withdrawal_create(*, agent: str, tool: str, reason: str, by: Any = None) -> Withdrawal:
    withdrawal, created = Withdrawal.objects.get_or_create(
        agent=agent, tool=tool, defaults={"reason": reason, "withdrawn_by": by}
    )
    if not created:
        withdrawal.reason, withdrawal.withdrawn_by = reason, by
        withdrawal.save(update_fields=["reason", "withdrawn_by"])
    return withdrawal


@transaction.atomic
def withdrawal_delete(*, agent: str, tool: str) -> bool:
    deleted, _ = Withdrawal.objects.filter(agent=agent, tool=tool).delete()
    return bool(deleted)


@transaction.atomic
def agent_settings_ensure(*, agents: list[str]) -> None:
    """One settings row per served agent, so an operator edits rather than adds."""
    for name in agents:
        AgentSetting.objects.get_or_create(agent=name)
