"""The console's words for what a pause carries: origins, reasons, decisions.

Each is marked for translation where it is written; ``origin_words`` and
``reason_words`` turn the wire's codes (``typed``, ``result:2``,
``argument_origin: amount``) into a sentence a person reads.
"""

from __future__ import annotations

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from threads.labels import DECISIONS, decision_words

__all__ = ["DECISIONS", "ORIGINS", "REASONS", "decision_words", "origin_words", "reason_words"]

ORIGINS = {
    "typed": _("you typed it"),
    "model": _("the assistant wrote it"),
    "reply": _("you gave it in answer to a question"),
    "context": _("it came with the page (signed context)"),
    "computed": _("worked out from the other values"),
    "staff": _("a staff member edited it"),
    "agent": _("the calling agent wrote it"),
}

REASONS = {
    "write": _("it writes"),
    "egress": _("it sends data out"),
    "argument_origin": _("the value of {argument} did not come from the person"),
    "tainted_call": _("an earlier step read from outside ({source})"),
    "langgraph": _("a LangGraph graph asks before it runs it"),
    "ask": _("it needs an answer from the person"),
}


def origin_words(origin: str) -> str:
    """``result:2`` -> "from the result of step 2"; unknown origins are shown as they are."""
    if origin.startswith("result:") and origin[7:].isdigit():
        return gettext("from the result of step {step}").format(step=origin[7:])
    words = ORIGINS.get(origin)
    return str(words) if words is not None else origin


def reason_words(reason: str) -> str:
    code, _sep, rest = reason.partition(":")
    rest = rest.strip()
    if code == "argument_origin":
        return str(REASONS[code]).format(argument=rest)
    if code == "tainted_call":
        return str(REASONS[code]).format(source=rest.removeprefix("untrusted:"))
    words = REASONS.get(code)
    return str(words) if words is not None else reason
