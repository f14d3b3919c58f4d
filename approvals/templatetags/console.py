"""The console's work waiting (docs/decisions.md, "The queue staff live in"):
the count of open pauses a person may answer, for the admin's header and tab
title on every page, and the queue's summary (by kind, the oldest's age) that
opens the admin's index.

The count stops at the queue's cap (``approvals.admin.paging.COUNT_CAP``: an
exact number up to 10,000, "10,000+" above), read once per request; on the
queue's own pages it is read in the paginator's count statement (the same
count unfiltered, a second subquery of it filtered), so the queue costs no
query more. The live module (``static/stalwart/console.js``)
keeps both up to date from the staff stream.
"""

from __future__ import annotations

import re
from typing import Any

from django import template
from django.urls import reverse
from django.utils.formats import number_format
from django.utils.translation import gettext_lazy as _

from approvals.admin.paging import COUNT_CAP
from approvals.admin.results import queue_result_list
from approvals.words import decision_words, since_words
from threads.models import Interrupt

register = template.Library()

ANSWER_PERMISSION = "threads.answer_interrupt"


def count_words(count: int) -> str:
    if count > COUNT_CAP:
        return number_format(COUNT_CAP, force_grouping=True) + "+"
    return number_format(count, force_grouping=True)


def open_count() -> int:
    """Open pauses, counted up to the cap (one indexed read, whatever the queue's length)."""
    return int(Interrupt.objects.filter(status=Interrupt.Status.OPEN).order_by().values("pk")[:COUNT_CAP + 1]
               .count())


def _from_queue_page(context: Any) -> int | None:
    """On the queue's pages, the open pauses counted with the page's own count (``QueuePaginator``)."""
    changelist = context.get("cl")
    if changelist is None or getattr(changelist, "model", None) is not Interrupt:
        return None
    count = getattr(changelist.paginator, "open_count", None)
    return None if count is None else int(count)


@register.simple_tag(takes_context=True)
def work_waiting(context: Any) -> dict[str, Any] | None:
    """``{"count", "words", "url"}`` for a person who may answer pauses, else None."""
    request = context.get("request")
    user = getattr(request, "user", None)
    if request is None or user is None or not user.is_active or not user.is_staff \
            or not user.has_perm(ANSWER_PERMISSION):
        return None
    memo = getattr(request, "_stalwart_work_waiting", None)
    if memo is None:
        count = _from_queue_page(context)
        memo = {"count": open_count() if count is None else count, "url": reverse("admin:threads_interrupt_changelist"),
                "stream": reverse("admin:threads_interrupt_changelist") + "stream"}
        memo["words"] = count_words(memo["count"])
        request._stalwart_work_waiting = memo
    return dict(memo)


@register.simple_tag(takes_context=True)
def queue_summary(context: Any) -> list[dict[str, Any]]:
    """Each kind with open pauses: how many (up to the cap), the oldest's age and a link to them."""
    request = context.get("request")
    user = getattr(request, "user", None)
    if user is None or not user.has_perm("threads.view_interrupt"):
        return []
    queue = reverse("admin:threads_interrupt_changelist")
    out = []
    for kind, label in Interrupt.Kind.choices:
        pauses = Interrupt.objects.filter(kind=kind, status=Interrupt.Status.OPEN)
        oldest = pauses.order_by("created_at", "id").values_list("created_at", flat=True).first()
        if oldest is None:
            continue
        count = int(pauses.order_by().values("pk")[:COUNT_CAP + 1].count())
        out.append({"kind": kind, "label": label, "count": count, "words": count_words(count),
                    "oldest": since_words(oldest), "url": f"{queue}?kind__exact={kind}"})
    return out


@register.inclusion_tag("admin/change_list_results.html", name="queue_result_list")
def queue_result_list_tag(cl: Any) -> dict[str, Any]:
    """``{% result_list cl %}`` with the queue's rows (``approvals.admin.results``), in the
    admin's own ``change_list_results.html``."""
    return queue_result_list(cl)


# A pause's entry in the admin's log, as ``InterruptAdmin`` writes it: its object as
# ``Interrupt.__str__`` said it then ("confirm charge_card (open)") and what was done
# ("answered: approve", "answered: skip (bulk)", "edited: {...}"), said again in words
# in the reader's language (the log keeps codes, never one language's words).
LOG_ANSWERED = _("Answered “{decision}”: {call}")
LOG_ANSWERED_BULK = _("Answered “{decision}” from the list: {call}")
LOG_EDITED = _("Edited: {call}")
_PAUSE_REPR = re.compile(r"^(?P<kind>[a-z_]+) (?P<tool>.*?) ?\((?P<status>[a-z_]+)\)$")
_DONE = re.compile(r"^(?P<what>answered|edited): ?(?P<decision>[a-z_]*)(?P<bulk> \(bulk\))?")


@register.filter
def log_words(entry: Any) -> str:
    """A recent action in words: a pause's answer or edit ("Answered “Aprovar”: confirmar, charge_card");
    any other entry as Django wrote it."""
    ct = getattr(entry, "content_type", None)
    if ct is None or (ct.app_label, ct.model) != ("threads", "interrupt"):
        return str(entry.object_repr)
    shown, done = _PAUSE_REPR.match(entry.object_repr or ""), _DONE.match(entry.change_message or "")
    if shown is None or done is None:
        return str(entry.object_repr)
    kind = shown["kind"]
    kind_words = str(Interrupt.Kind(kind).label) if kind in Interrupt.Kind.values else kind
    call = f"{kind_words}, {shown['tool']}" if shown["tool"] else kind_words  # a delegate pause has no tool
    if done["what"] == "edited":
        return str(LOG_EDITED).format(call=call)
    said = LOG_ANSWERED_BULK if done["bulk"] else LOG_ANSWERED
    return str(said).format(decision=decision_words(done["decision"]) or done["decision"], call=call)
