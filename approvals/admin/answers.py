"""The console's answers: what an answer says (what came of it, who won a
race, the next open pause), the token a queue row carries, and where an
answer from the queue goes back to."""

from __future__ import annotations

import re
from typing import Any

from django.conf import settings
from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import get_language, get_language_info, gettext
from django.utils.translation import gettext_lazy as _

from approvals.words import decision_words
from threads.engine import Answer, token_for
from threads.errors import InvalidAnswer
from threads.models import Interrupt, Message
from threads.tokens import pause_token

MESSAGE_ANSWERED = _("Answered: {decision}.")
MESSAGE_ANSWERED_CALL = _("Answered: {decision} ({call}).")
# What came of the answered call, by its step's status after the answer.
OUTCOMES = {
    "succeeded": _("It ran."),
    "failed": _("It ran and failed."),
    "refused": _("It was refused."),
    "skipped": _("It was skipped."),
    "cancelled": _("It was cancelled."),
    "outcome_unknown": _("Whether it took effect is not known."),
    "undone": _("It was undone."),
}
MESSAGE_REPLY = _("The reply: “{reply}”")
MESSAGE_REPLY_IN = _("The reply, in {language} (the thread's language): “{reply}”")
MESSAGE_GRAPH = _("What the graph then returned: “{reply}”")  # a mirrored pause's graph, once it carried on
MESSAGE_NEXT = _("Next open pause: {kind}, {tool} ({thread})")
MESSAGE_NONE_OPEN = _("No pause is open now.")
MESSAGE_STALE_WON = _("Nothing changed: this pause was already answered “{decision}” by {who} ({when}).")
MESSAGE_STALE_WON_CUSTOMER = _("Nothing changed: the customer already answered this pause “{decision}” ({when}).")
MESSAGE_STALE_CLOSED = _("Nothing changed: this pause is no longer open ({status}).")
SELECT_FOR_ACTION = _("Select this pause for an action: {}")
BULK_NOT_CONFIRM = _("Not answered: only a confirm is answered from the list; open it to answer.")
MESSAGE_EDITED = _("Edited: the call was checked again and waits as a new proposal.")
MESSAGE_NOT_OFFERED = _("Nothing changed: this pause's page does not offer “{decision}”.")
MESSAGE_NOT_A_CHOICE = _("Nothing changed: that is not one of the question's choices.")
CHOICE_RE = re.compile(r"[0-9]{1,6}")  # a choice's index as the page sends it (ASCII digits)
MESSAGE_STALE_TOKEN = _("Nothing changed: the call changed since this page was shown. Open the pause again.")


def when(moment: Any) -> str:
    return date_format(timezone.localtime(moment), "DATETIME_FORMAT") if moment else ""


def by_customer(by: str | None) -> bool:
    """An answer from the thread's own session (POST /resume, the widget), not a staff member's."""
    return by in (None, "", "session")


def answered_words(pause: Interrupt) -> str:
    """The queue's "answered" cell: the decision, who gave it and when ("" while nothing was answered)."""
    if not pause.answered_at or pause.status not in (Interrupt.Status.ANSWERED, Interrupt.Status.EDITED):
        return ""
    if by_customer(pause.answered_by):  # its own words: pt-BR says "pelo cliente", never "por o cliente"
        return gettext("{decision} by the customer, {when}").format(
            decision=decision_words(pause.decision), when=when(pause.answered_at))
    return gettext("{decision} by {who}, {when}").format(
        decision=decision_words(pause.decision), who=pause.answered_by, when=when(pause.answered_at))


def stale_message(extra: dict[str, Any]) -> str:
    pause = extra.get("interrupt") or {}
    if pause.get("status") == Interrupt.Status.ANSWERED:
        answered_at = pause.get("answered_at")
        moment = when(timezone.datetime.fromisoformat(answered_at)) if answered_at else ""
        by = pause.get("answered_by") or ""
        decision = decision_words(pause.get("decision") or "")
        if by_customer(by):  # its own sentence: pt-BR says "pelo cliente", never "por o cliente"
            return str(MESSAGE_STALE_WON_CUSTOMER).format(decision=decision, when=moment)
        return str(MESSAGE_STALE_WON).format(decision=decision, who=by, when=moment)
    if pause.get("status") == Interrupt.Status.OPEN:
        return str(MESSAGE_STALE_TOKEN)
    return str(MESSAGE_STALE_CLOSED).format(status=Interrupt.Status(pause.get("status")).label
                                            if pause.get("status") in Interrupt.Status.values else "")


def row_token(pause: Interrupt) -> str:
    """``token_for(pause)`` from the row as the queue reads it (its step's index
    annotated as ``step_at``): the same HMAC over the same fields, no query; made once per
    pause read (the row's checkbox and its answer form both carry it)."""
    if not hasattr(pause, "step_at"):
        return token_for(pause)
    token = pause.__dict__.get("_row_token")
    if token is None:
        token = pause.__dict__["_row_token"] = pause_token(
            settings.SECRET_KEY, pause=pause.id, tool=pause.tool, arguments=pause.payload.get("arguments"),
            run_id=pause.run_id, step=pause.step_at)
    return str(token)


def answerable_from_row(pause: Interrupt) -> bool:
    """An open confirm without a policy's quorum (one under a policy is answered on its page, which says
    who may answer it)."""
    return (pause.status == Interrupt.Status.OPEN and pause.kind == Interrupt.Kind.CONFIRM
            and "approvals" not in (pause.payload or {}))


def back_to(request: HttpRequest, fallback: str) -> str:
    """The page the answer came from (the queue with its filters), if it is this site's."""
    wanted = str(request.POST.get("next", ""))
    if wanted and url_has_allowed_host_and_scheme(wanted, allowed_hosts={request.get_host()},
                                                  require_https=request.is_secure()):
        return wanted
    return fallback


def decision_of(request: HttpRequest, pause: Interrupt) -> tuple[str, Any]:
    """The decision and answer a pause page's form sends; a question's choice that the page
    cannot have sent ("²", a number of thousands of digits) is refused (``InvalidAnswer``)."""
    if pause.kind != Interrupt.Kind.ASK:
        return str(request.POST.get("decision", "")), None
    choice = str(request.POST.get("choice", ""))
    if not choice:
        return "answer", {"kind": "open", "text": str(request.POST.get("text", ""))}
    if not CHOICE_RE.fullmatch(choice):
        raise InvalidAnswer(MESSAGE_NOT_A_CHOICE)
    return "answer", {"kind": "choice", "index": int(choice)}


def outcome_of(pause: Interrupt, result: Answer) -> str:
    step = result.step(pause.step.index) if pause.step_id else None
    return step.status if step else ""

def said_after(pause: Interrupt, since: Any) -> str:
    """What the pause's run said from ``since`` on (its replies; a mirrored run: what the graph
    did once handed its answer), oldest first; "" when it said nothing yet."""
    if since is None:
        return ""
    texts = Message.objects.filter(run_id=pause.run_id, role=Message.Role.ASSISTANT,
                                   created_at__gte=since).order_by("created_at").values_list("text", flat=True)
    return "\n".join(t.strip() for t in texts if t.strip())


def language_name(code: str) -> str:
    """A language's name in the console's language ("inglês"), else its code."""
    try:
        return str(get_language_info(code)["name_translated"]).lower()
    except KeyError:
        return code


def reply_words(reply: str, language: str) -> str:
    """The run's reply quoted as it was said to the person, in the thread's language; that
    language named when it is not the console's (the console does not translate a reply)."""
    mine = (get_language() or "en").lower()
    theirs = (language or "en").lower()
    if theirs.split("-")[0] == mine.split("-")[0]:
        return str(MESSAGE_REPLY).format(reply=reply)
    return str(MESSAGE_REPLY_IN).format(reply=reply, language=language_name(language))


def answered_message(pause: Interrupt, decision: str, result: Answer, since: Any = None) -> str:
    """Answered, what came of it (ran, failed), what the run then said (its reply, a graph's
    output, read back from ``since``: the moment before the answer), and a link to the next open pause."""
    parts = [str(MESSAGE_ANSWERED).format(decision=decision_words(decision))]
    outcome = OUTCOMES.get(outcome_of(pause, result))
    if outcome is not None:
        parts.append(str(outcome))
    reply = said_after(pause, since) or (result.reply.text if result.reply else "").strip()
    if reply and pause.payload.get("handback"):  # the graph's own output: no person was told it
        parts.append(str(MESSAGE_GRAPH).format(reply=reply))
    elif reply:
        parts.append(reply_words(reply, pause.run.language))
    said = " ".join(parts)
    # The same thread's next pause first (the run may wait again), else the oldest open one.
    open_ = Interrupt.objects.filter(status=Interrupt.Status.OPEN).exclude(pk=pause.pk)
    following = (open_.filter(thread_id=pause.thread_id).order_by("created_at").first()
                 or open_.order_by("created_at").first())
    if following is None:
        return format_html("{} {}", said, MESSAGE_NONE_OPEN)
    return format_html('{} <a class="next-pause" href="{}">{}</a>', said,
                       reverse("admin:threads_interrupt_change", args=[following.pk]),
                       str(MESSAGE_NEXT).format(kind=following.get_kind_display(), tool=following.tool or "—",
                                                thread=following.thread_id))
