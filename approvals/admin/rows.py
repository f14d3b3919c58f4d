"""What a queue row says without opening the pause (docs/decisions.md, "The queue staff live in").

Each function takes a pause as the queue reads it (its payload, no join) and
returns the words or the marked-up cell: the call in words ("charge_card:
order_id 4411, amount 40"), the first reason in words, irreversible only when
true (a warning mark with its text for screen readers), the time left before
the deadline with an escalation mark, and the source of the call (a person's
turn, or a call an agent proposed: the MCP gateway's door).
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from approvals.words import LOCAL_CLIENT, reason_words, until_words
from threads.models import Interrupt

VALUE_LIMIT = 40  # characters of one value in a row; the pause page shows it whole
CALL_LIMIT = 140

SOURCE_TURN = _("a person's turn")
SOURCE_AGENT = _("an agent's call (MCP gateway)")
# Short, for the row (the pause's page says it whole: ``approvals.words.proposer_words``).
SOURCE_MCP = _("MCP client {name}")
SOURCE_LOCAL_MCP = _("a local MCP client")
SOURCES = {"langgraph": _("LangGraph graph {name}"), "langchain": _("LangChain agent {name}")}
IRREVERSIBLE = _("Irreversible")
ESCALATED = _("escalated")
OVERDUE = _("past its deadline")


def value_words(value: Any) -> str:
    text = value if isinstance(value, str) else ("" if value is None else str(value))
    return text if len(text) <= VALUE_LIMIT else text[:VALUE_LIMIT - 1] + "…"


def call_words(pause: Interrupt) -> str:
    """``tool: name value, name value`` (a question: its prompt; no tool: the kind). Made once per
    pause read: a queue row says it in its link, its checkbox's label and its buttons' labels."""
    said = pause.__dict__.get("_call_words")
    if said is None:
        said = pause.__dict__["_call_words"] = _call_words(pause)
    return str(said)


def _call_words(pause: Interrupt) -> str:
    p = pause.payload or {}
    if pause.kind == Interrupt.Kind.ASK:
        ask = p.get("ask") or {}
        prompt = str(ask.get("prompt") or p.get("question") or "")
        head = f"{pause.tool}: {prompt}" if pause.tool else prompt
        return head[:CALL_LIMIT]
    arguments = [a for a in p.get("arguments") or [] if isinstance(a, dict)]
    said = ", ".join(f"{a.get('name')} {value_words(a.get('value'))}" for a in arguments)
    name = pause.tool or str(pause.get_kind_display())
    text = f"{name}: {said}" if said else name
    return text if len(text) <= CALL_LIMIT else text[:CALL_LIMIT - 1] + "…"


def first_reason(pause: Interrupt) -> str:
    reasons = (pause.payload or {}).get("reasons") or []
    return reason_words(str(reasons[0])) if reasons else ""


def irreversible_mark(pause: Interrupt) -> SafeString | str:
    """A warning mark only when true; its word is read by screen readers and shown as a tooltip."""
    if not (pause.payload or {}).get("irreversible"):
        return ""
    return format_html('<span class="queue-irreversible" title="{}"><span aria-hidden="true">⚠</span>'
                       '<span class="visually-hidden">{}:</span></span> ', IRREVERSIBLE, IRREVERSIBLE)


def time_left(pause: Interrupt, now: Any = None) -> SafeString | str:
    """"in 4 minutes" before the deadline; marks for an escalation and for a deadline passed."""
    if pause.status != Interrupt.Status.OPEN:
        return ""
    now = now or timezone.now()
    marks = []
    if pause.escalated_at is not None or (pause.escalate_at is not None and pause.escalate_at <= now):
        marks.append(format_html('<span class="queue-escalated">{}</span>', ESCALATED))
    if pause.expires_at is None:
        left: Any = ""
    elif pause.expires_at <= now:
        left = format_html('<span class="queue-overdue">{}</span>', OVERDUE)
    else:
        left = gettext("in {time}").format(time=until_words(pause.expires_at, now))
    return format_html("{} {}", left, format_html(" ".join(["{}"] * len(marks)), *marks)) if marks \
        else format_html("{}", left)


def source_words(pause: Interrupt) -> str:
    """Where the call came from: who proposed its run (kept with the pause), else, for a pause
    stored before that was kept, a call an agent proposed carries arguments of origin ``agent``."""
    proposer = (pause.payload or {}).get("proposer")
    if isinstance(proposer, dict):
        door, name = str(proposer.get("door") or ""), str(proposer.get("name") or "")
        if door == "mcp":
            return str(SOURCE_LOCAL_MCP) if name in ("", LOCAL_CLIENT) else str(SOURCE_MCP).format(name=name)
        if door in SOURCES and name:
            return str(SOURCES[door]).format(name=name)
    arguments = (pause.payload or {}).get("arguments") or []
    if any(isinstance(a, dict) and a.get("origin") == "agent" for a in arguments):
        return str(SOURCE_AGENT)
    return str(SOURCE_TURN)
