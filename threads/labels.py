"""The words a person reads for a pause's decisions, in the console and the trace."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

DECISIONS = {
    "approve": _("Approve"),
    "skip": _("Skip"),
    "cancel_all": _("Cancel all"),
    "happened": _("It happened"),
    "did_not_happen": _("It did not happen"),
    "retry": _("Retry the undo"),
    "done_by_hand": _("Undone by hand"),
    "abandon": _("Abandon"),
    "answer": _("Answer"),
    "decline": _("Decline"),
    "edit": _("Edited"),
    "reject": _("Reject"),  # a mirrored LangGraph pause (docs/langgraph.md)
    "respond": _("Respond"),
}


def decision_words(decision: str) -> str:
    words = DECISIONS.get(decision)
    return str(words) if words is not None else decision
