"""A pause under an approval policy in the console (docs/policies.md, docs/operating.md "Approval policies
in the console"): how many approvals it has of how many it needs and whose, who may answer it, and the
queue's "waiting for me".

A pause a policy covers carries ``payload["approvals"]`` (``{"needed", "given", "group"}``); a pause
without one looks and answers as before. The engine decides at the claim (``NotAnApprover``,
``ApprovalRecorded``); the console only shows the same rules before anyone presses a button: a staff
member outside the policy's group, one who already approved, or one who edited the call
reads the pause without its answers, and is told why.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from approvals.admin.answers import when
from threads.engine import Via, approver_key, groups_of, in_groups, proposed_by
from threads.models import Interrupt

ONLY_GROUP = _("Only staff in {group} may answer this call.")
ONLY_NOT_EDITOR = _("You edited this call, so other people approve it.")
APPROVED_BY = _("{count}: {names}")
WAITS_MORE = _("You approved it; it waits for {left} more.")


def approvals_of(pause: Interrupt) -> dict[str, Any] | None:
    """The pause's approvals under a policy, else None (a pause without a policy)."""
    approvals = (pause.payload or {}).get("approvals")
    return approvals if isinstance(approvals, dict) else None


def count_words(approvals: dict[str, Any]) -> str:
    """"1 of 2 approvals"."""
    needed = int(approvals.get("needed") or 1)
    given = len(approvals.get("given") or [])
    return ngettext("{given} of {needed} approval", "{given} of {needed} approvals", needed).format(
        given=given, needed=needed)


def names_of(approvals: dict[str, Any]) -> list[str]:
    return [str(g.get("by") or "") for g in approvals.get("given") or [] if isinstance(g, dict)]


def row_words(pause: Interrupt) -> str:
    """A queue row's "1 of 2 approvals: ana" ("" without a policy; no names before the first)."""
    approvals = approvals_of(pause)
    if approvals is None:
        return ""
    names = names_of(approvals)
    if not names:
        return count_words(approvals)
    return str(APPROVED_BY).format(count=count_words(approvals), names=", ".join(names))


def door_words(door: str) -> str:
    return str(Interrupt.Via(door).label) if door in Interrupt.Via.values else door


def moment(at: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(at)) if at else None
    except ValueError:
        return None


def given_rows(approvals: dict[str, Any]) -> list[dict[str, str]]:
    """Each approval for the pause page: who, when (the console's time), through which door."""
    rows = []
    for g in approvals.get("given") or []:
        if not isinstance(g, dict):
            continue
        at = moment(g.get("at"))
        rows.append({"by": str(g.get("by") or ""), "when": when(at) if at else str(g.get("at") or ""),
                     "short": date_format(timezone.localtime(at), "SHORT_DATETIME_FORMAT") if at
                     else str(g.get("at") or ""), "door": door_words(str(g.get("door") or ""))})
    return rows


def csv_words(pause: Interrupt) -> str:
    """The decisions CSV's ``approvals`` cell: "ana (console, 2026-12-04T22:00Z); bruno (…)" in UTC."""
    approvals = approvals_of(pause)
    if approvals is None:
        return ""
    out = []
    for g in approvals.get("given") or []:
        if not isinstance(g, dict):
            continue
        at = moment(g.get("at"))
        stamp = at.astimezone(UTC).strftime("%Y-%m-%dT%H:%MZ") if at and at.tzinfo else str(g.get("at") or "")
        out.append(f"{g.get('by') or ''} ({g.get('door') or ''}, {stamp})")
    return "; ".join(out)


def group_words(approvals: dict[str, Any]) -> str:
    return ", ".join(groups_of(approvals))


class Staff:
    """One staff member as the policy rules read them: their groups and the calls they edited, read once
    (the queue's filter asks this for many pauses)."""

    def __init__(self, username: str, groups: set[str] | None = None) -> None:
        self.username = username
        self._groups = groups
        self._edited: set[int] | None = None

    def in_groups(self, groups: list[str]) -> bool:
        if not groups:
            return True
        if self._groups is None:  # one pause: the engine's own rule, as the claim reads it
            return in_groups(self.username, Via.CONSOLE, groups)
        return set(groups) <= self._groups

    def edited(self, pause: Interrupt) -> bool:
        """They edited the call (they proposed this one): the engine's own rule for one pause, which holds
        whatever ``STALWART_FOUR_EYES`` says; the same read once for the queue's filter."""
        if self._edited is None:
            return proposed_by(pause, self.username, Via.CONSOLE)
        return pause.step_id in self._edited

    def preload_edited(self, steps: list[int]) -> None:
        # threads.engine.proposed_by's read for a console user, for many steps at once.
        self._edited = set(Interrupt.objects.filter(
            step_id__in=steps, status=Interrupt.Status.EDITED, answered_via=Interrupt.Via.CONSOLE,
            answered_by=self.username).values_list("step_id", flat=True))

    def why_not(self, pause: Interrupt) -> str:
        """Why this staff member may not answer this pause from the console ("" when they may, or when no
        policy covers it)."""
        approvals = approvals_of(pause)
        if approvals is None or pause.status != Interrupt.Status.OPEN:
            return ""
        groups = groups_of(approvals)
        if not self.in_groups(groups):
            return str(ONLY_GROUP).format(group=", ".join(groups))
        if self.edited(pause):  # no run is proposed through the console: its proposer is who edited the call
            return str(ONLY_NOT_EDITOR)
        me = approver_key(self.username, Via.CONSOLE)
        if me in {g.get("key") for g in approvals.get("given") or [] if isinstance(g, dict)}:
            left = max(int(approvals.get("needed") or 1) - len(approvals.get("given") or []), 0)
            return str(WAITS_MORE).format(left=left)
        return ""


def recorded_message(approvals: dict[str, Any]) -> str:
    needed = int(approvals.get("needed") or 1)
    given = len(approvals.get("given") or [])
    return ngettext("Your approval is recorded: {given} of {needed} approval.",
                    "Your approval is recorded: {given} of {needed} approvals.", needed).format(
        given=given, needed=needed)


def under_policy() -> Q:
    return Q(payload__has_key="approvals")


def waiting_for(queryset: QuerySet[Interrupt], username: str, groups: set[str]) -> QuerySet[Interrupt]:
    """The open pauses of ``queryset`` this staff member may answer and has not approved: every pause without
    a policy (in SQL), and those under a policy whose rules let them (read in Python, their ids back to SQL)."""
    opened = queryset.filter(status=Interrupt.Status.OPEN)
    covered = list(Interrupt.objects.filter(under_policy(), status=Interrupt.Status.OPEN)
                   .only("id", "payload", "step_id", "status").order_by())
    staff = Staff(username, groups)
    staff.preload_edited([p.step_id for p in covered if p.step_id is not None])
    mine = [p.pk for p in covered if not staff.why_not(p)]
    return opened.filter(~under_policy() | Q(pk__in=mine))


__all__ = ["Staff", "approvals_of", "count_words", "csv_words", "given_rows", "group_words", "recorded_message",
           "row_words", "waiting_for"]
