"""Approvals under a policy (docs/policies.md): who may answer a pause a
policy covers, and the quorum it needs.

A pause a policy covers carries ``approvals``: ``{"needed": N, "given":
[...], "group": NAME | [NAMES] | None}``. ``approval_take`` runs inside the
answer's unit, after the token and the decision were checked and before the
claim, under the thread's lock (``threads.engine.unit``), so two answers to
one pause are counted one after the other on any number of workers:

- with a group named, only an active staff member of every named group may
  answer at all (through the console, where a person signs in); anyone else,
  the widget's session or another door's caller included, is
  ``403 not_an_approver`` and nothing changes;
- an approval from whoever proposed the call (a staff member who edited it,
  the MCP client or other caller that proposed the run) is
  ``403 not_an_approver``;
- an approval is stored on the pause with who gave it, through which door,
  when, and a digest of the token it carried; the same person again counts
  once;
- short of the quorum, ``ApprovalRecorded`` (202 on HTTP), the thread's
  ``approval`` event, and the pause stays open; the Nth distinct approval goes
  on to the claim (one conditional UPDATE, ``pauses.pause_close``, which
  stores it too): the call runs once.

``skip`` and ``cancel_all`` from anyone who may answer close the pause at
once, as for any pause. An edit makes a new proposal, a new pause with no
approvals.
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.contrib.auth import get_user_model
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from threads.engine.unit import Unit
from threads.errors import ApprovalRecorded, NotAnApprover, Stale
from threads.models import Event, Interrupt

DETAIL_GROUP = _("Only staff in {group} may answer this call.")
DETAIL_PROPOSER = _("You proposed this call, so other people approve it.")
DETAIL_NOBODY = _("This call needs approvals from people the server knows by name.")


def approvals_shown(approvals: dict[str, Any]) -> dict[str, Any]:
    """A pause's ``approvals`` as the doors show them: who approved, when, through which door."""
    return {"needed": approvals.get("needed", 1),
            "given": [{"by": g.get("by"), "at": g.get("at"), "door": g.get("door")}
                      for g in approvals.get("given") or []],
            "group": approvals.get("group")}


def groups_of(approvals: dict[str, Any]) -> list[str]:
    group = approvals.get("group")
    return [group] if isinstance(group, str) else [str(g) for g in group or []]


# Doors that are one door under two labels: the widget says it is the widget with a header any HTTP client
# can send or leave out (doors/http/resume.py), so a session is one person through either.
SAME_DOOR = {Interrupt.Via.WIDGET: Interrupt.Via.HTTP}


def approver_key(by: str, via: str) -> str:
    """One person, whichever answer they give: a staff member by their user name in the console; another
    door's caller by its door and name (the widget and the HTTP API are one door: a session)."""
    return by if via == Interrupt.Via.CONSOLE else f"{SAME_DOOR.get(via, via)}:{by}"


def in_groups(by: str, via: str, groups: list[str]) -> bool:
    """``by`` is an active staff member in every one of ``groups`` (answering from the console)."""
    if via != Interrupt.Via.CONSOLE or not by:
        return False
    user = get_user_model()
    found = user.objects.filter(**{user.USERNAME_FIELD: by}, is_active=True, is_staff=True).first()
    if found is None:
        return False
    return found.groups.filter(name__in=groups).count() == len(set(groups))


def proposed_by(pause: Interrupt, by: str, via: str) -> bool:
    """``by`` proposed the call: the caller that proposed the run, answering through the same door, or a staff
    member who edited the call in the console."""
    proposer = pause.payload.get("proposer") or {}
    if proposer.get("name") and via == proposer.get("door") and by == proposer.get("name"):
        return True
    if via != Interrupt.Via.CONSOLE or pause.step_id is None:
        return False
    return Interrupt.objects.filter(step_id=pause.step_id, status=Interrupt.Status.EDITED,
                                    answered_via=Interrupt.Via.CONSOLE, answered_by=by).exists()


def approval_refused(pause: Interrupt, *, decision: str, by: str, via: str) -> NotAnApprover | None:
    """The ``NotAnApprover`` the policy over ``pause`` answers ``by`` with for ``decision`` (an edit
    included), or None when it takes it (or no policy covers the pause)."""
    approvals = pause.payload.get("approvals") if pause.kind == Interrupt.Kind.CONFIRM else None
    if approvals is None:
        return None
    groups = groups_of(approvals)
    if groups and not in_groups(by, via, groups):
        return NotAnApprover(str(DETAIL_GROUP).format(group=", ".join(groups)))
    if decision != "approve":
        return None
    if not by:
        return NotAnApprover(DETAIL_NOBODY)
    if proposed_by(pause, by, via):
        return NotAnApprover(DETAIL_PROPOSER)
    return None


def approvals_check(thread_id: str, answers: list[tuple[str, str]], *, by: str, via: str) -> None:
    """Before a door gives several answers at once (``(pause id, decision)`` each): the first refusal
    any of them would get, raised, so that none is given when one would be refused. Each answer is
    checked again in its own unit as it is given."""
    pauses = {p.pk: p for p in Interrupt.objects.filter(thread_id=thread_id, pk__in=[a[0] for a in answers])}
    for pause_id, decision in answers:
        pause = pauses.get(pause_id)
        refused = approval_refused(pause, decision=decision, by=by, via=via) if pause is not None else None
        if refused is not None:
            raise refused


def approval_take(u: Unit, pause: Interrupt, *, decision: str, token: str, by: str,
                  via: str) -> dict[str, Any] | None:
    """Inside the answer's unit: refuse an answer the policy does not let ``by`` give (``NotAnApprover``);
    record an approval, raising ``ApprovalRecorded`` while the quorum is not met. Returns when the
    answer goes on to the claim: with the pause's payload to store with the claim (the approval that
    meets the quorum, written in the claim's own UPDATE), or None when nothing is to be added."""
    refused = approval_refused(pause, decision=decision, by=by, via=via)
    if refused is not None:
        raise refused
    if decision != "approve":
        return None
    approvals = dict(pause.payload["approvals"])
    key = approver_key(by, via)
    given = list(approvals.get("given") or [])
    needed = int(approvals.get("needed") or 1)
    if any(g.get("key") == key for g in given):  # the same person counts once
        if len(given) < needed:
            raise ApprovalRecorded(approvals_shown(approvals), pause.id)
        return None
    given.append({"by": by[:200], "door": via, "at": timezone.now().isoformat(), "key": key,
                  "token": hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()})
    approvals["given"] = given
    payload = {**pause.payload, "approvals": approvals}
    if len(given) >= needed:
        return payload  # stored by the claim (pauses.pause_close), told by its ``answered`` event
    if not Interrupt.objects.filter(pk=pause.pk, status=Interrupt.Status.OPEN).update(payload=payload):
        raise Stale()
    pause.payload = payload
    shown = approvals_shown(approvals)
    u.event(Event.Type.APPROVAL, {"interrupt": pause.id, "by": by[:200], "door": via, "approvals": shown})
    raise ApprovalRecorded(shown, pause.id)
