"""The console's words for what a pause carries: origins, reasons, decisions.

Each is marked for translation where it is written; ``origin_words`` and
``reason_words`` turn the wire's codes (``typed``, ``result:2``,
``argument_origin: amount``) into a sentence a person reads, and
``proposer_words`` says who proposed a run from the door and caller it
recorded (an MCP client by its key's name, a LangGraph graph, a person's turn).
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from django.utils.timesince import timesince, timeuntil
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from threads.labels import DECISIONS, decision_words

__all__ = ["DECISIONS", "ORIGINS", "PROPOSERS", "REASONS", "decision_words", "origin_words", "proposer_words",
           "reason_words", "since_words", "until_words"]

LOCAL_CLIENT = "local"  # the MCP caller with no key (a loopback client, ``stalwart mcp`` over stdio)

ORIGINS = {
    "typed": _("you typed it"),
    "model": _("the assistant wrote it"),
    "reply": _("you gave it in answer to a question"),
    "context": _("it came with the page (signed context)"),
    "computed": _("worked out from the other values"),
    "staff": _("a staff member edited it"),
    "agent": _("the calling agent wrote it"),
    "person": _("a person edited it"),
}
# An argument of origin ``agent`` names the MCP client that sent it, where there is one.
AGENT_BY_CLIENT = _("the calling agent wrote it (MCP client {client})")
AGENT_BY_LOCAL = _("the calling agent wrote it (a local MCP client, no key)")

# Who proposed a run, by the door it came through (``Run.proposed_via``).
PROPOSERS = {
    "mcp": _("the MCP client {name}, by its key"),
    "mcp:local": _("a local MCP client with no key (loopback or stdio)"),
    "langgraph": _("the LangGraph graph {name}"),
    "langchain": _("the model of the LangChain agent {name} (its tool call)"),
    "agui": _("a person's turn, through an AG-UI client"),
    "widget": _("a person's turn, in the chat widget"),
    "http": _("a person's turn, in the chat or through the HTTP API"),
    "python": _("the Python API"),
}

REASONS = {
    "write": _("it writes"),
    "egress": _("it sends data out"),
    "argument_origin": _("the value of {argument} did not come from the person"),
    "tainted_call": _("an earlier step read from outside ({source})"),
    "langgraph": _("a LangGraph graph asks before it runs it"),
    "ask": _("it needs an answer from the person"),
    "unread": _("no tool reads what the person wrote: approving hands it to the agent's model"),
    "policy": _("the approval policy {policy} covers it"),
}


def origin_words(origin: str, *, client: str = "") -> str:
    """``result:2`` -> "from the result of step 2"; unknown origins are shown as they are.
    ``client``: the MCP client that proposed the call (its key's name, ``local``), named
    beside an ``agent`` origin."""
    if origin.startswith("result:") and origin[7:].isdigit():
        return gettext("from the result of step {step}").format(step=origin[7:])
    if origin == "agent" and client:
        return str(AGENT_BY_LOCAL) if client == LOCAL_CLIENT else str(AGENT_BY_CLIENT).format(client=client)
    words = ORIGINS.get(origin)
    return str(words) if words is not None else origin


def reason_words(reason: str) -> str:
    code, _sep, rest = reason.partition(":")
    rest = rest.strip()
    if code == "argument_origin":
        return str(REASONS[code]).format(argument=rest)
    if code == "tainted_call":
        return str(REASONS[code]).format(source=rest.removeprefix("untrusted:"))
    if code == "policy":
        return str(REASONS[code]).format(policy=rest)
    words = REASONS.get(code)
    return str(words) if words is not None else reason


def proposer_words(door: str, name: str = "") -> str:
    """Who proposed a run, in words ("" when its door was not recorded: a run stored before it was)."""
    if door == "mcp" and name in ("", LOCAL_CLIENT):
        return str(PROPOSERS["mcp:local"])
    words = PROPOSERS.get(door)
    return str(words).format(name=name) if words is not None else ""


LESS_THAN_A_MINUTE = _("less than a minute")


def since_words(moment: Any, now: Any = None) -> str:
    """How long ago ``moment`` was, in Django's plural forms ("4 minutes", "4 minutos"); under a
    minute "less than a minute", never "0 minutes" (Portuguese reads 0 as singular: "0 minuto")."""
    now = now or timezone.now()
    if (now - moment).total_seconds() < 60:
        return str(LESS_THAN_A_MINUTE)
    return timesince(moment, now)


def until_words(moment: Any, now: Any = None) -> str:
    """How long until ``moment``, as ``since_words`` says it."""
    now = now or timezone.now()
    if (moment - now).total_seconds() < 60:
        return str(LESS_THAN_A_MINUTE)
    return timeuntil(moment, now)
