"""Thumbs on replies (docs/http-api.md, "POST /threads/{id}/feedback"):
``feedback_give`` stores one per reply, from the session that was shown it (the
thread's own session: the view reaches the thread through ``thread_access``); a
second thumb on the same reply replaces the first. ``feedback_counts`` is what
the admin shows per agent."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Count, Q
from django.utils.translation import gettext_lazy as _

from threads.errors import BadRequest, NotFound
from threads.models import Feedback, Message, Thread

COMMENT_MAX = 2000
DETAIL_THUMB = _('A thumb is "up" or "down".')
DETAIL_COMMENT = _("A comment is at most {limit} characters.")
DETAIL_NO_REPLY = _("This thread has no reply with that id.")


@transaction.atomic
def feedback_give(*, thread: Thread, message_id: str, thumb: str, comment: str = "") -> Feedback:
    if thumb not in Feedback.Thumb.values:
        raise BadRequest(str(DETAIL_THUMB))
    if len(comment) > COMMENT_MAX:
        raise BadRequest(str(DETAIL_COMMENT).format(limit=COMMENT_MAX))
    message = (Message.objects.select_related("run")
               .filter(pk=message_id, thread=thread, role=Message.Role.ASSISTANT).first())
    if message is None:
        raise NotFound(str(DETAIL_NO_REPLY))
    agent = message.run.agent if message.run_id and message.run else thread.agent
    # One thumb per reply: the row is keyed by the message, so a second replaces the first.
    feedback, _created = Feedback.objects.update_or_create(
        message=message, defaults={"thread": thread, "agent": agent, "thumb": thumb, "comment": comment})
    return feedback


def feedback_counts(*, agent: str | None = None) -> dict[str, dict[str, int]]:
    """``{agent: {"up": n, "down": m}}``, every agent with any thumb (or just ``agent``)."""
    rows = Feedback.objects.all()
    if agent is not None:
        rows = rows.filter(agent=agent)
    counted = rows.values("agent").annotate(
        up=Count("pk", filter=Q(thumb=Feedback.Thumb.UP)), down=Count("pk", filter=Q(thumb=Feedback.Thumb.DOWN))
    ).order_by("agent")
    return {r["agent"]: {"up": r["up"], "down": r["down"]} for r in counted}
