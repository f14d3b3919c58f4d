"""What the run store can hold, checked before anything is stored.

PostgreSQL keeps no NUL in text or JSON, no string holds a lone surrogate as
UTF-8, and JSON has no ``NaN`` or ``Infinity``: a value holding any of them,
or nested deeper than ``MAX_DEPTH``, would fail (or be stored on SQLite and
fail later on PostgreSQL) after the fact. Each door's parser refuses such a
body already; the facade checks again what a caller hands it in process (the
Python API, a LangChain tool call, an MCP client's arguments, a graph's
interrupt), so every door refuses the same things, before anything is stored.

A proposed call (``call_propose``) is refused here, before its run is
stored, when its tool is not in the catalogue or its arguments cannot be
stored, are not ones its schema names, or do not fit it
(``proposal_refusal``): the same rules and sentences as the check's
(``catalogue.check``), but nothing to keep a trace of.
"""

from __future__ import annotations

import math
from typing import Any

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from catalogue.agentfile import AgentSpec
from catalogue.check import SENTENCE_ARGUMENTS, SENTENCE_UNKNOWN, argument_problem

MAX_DEPTH = 32  # as the HTTP parser's (stalwart_site.parsers)
MAX_TOOL = 200  # a step's tool column
DETAIL_UNSTORABLE = _("it holds a NUL character, a lone surrogate, NaN or Infinity, or nests deeper than {depth} "
                      "levels, which cannot be stored")


def encodable(value: Any) -> bool:
    """True when every string in ``value`` is valid UTF-8 text a database can hold."""
    if isinstance(value, str):
        if "\x00" in value:
            return False
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return False
        return True
    if isinstance(value, dict):
        return all(encodable(k) and encodable(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return all(encodable(v) for v in value)
    return True


def storable(value: Any, depth: int = MAX_DEPTH) -> bool:
    """True when ``value`` is JSON the run store can hold: encodable text, finite numbers, ``depth`` levels at most."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if level > depth:
            return False
        if isinstance(item, float) and not math.isfinite(item):
            return False
        if isinstance(item, str):
            if not encodable(item):
                return False
        elif isinstance(item, dict):
            for key, child in item.items():
                if not isinstance(key, str) or not encodable(key):
                    return False
                stack.append((child, level + 1))
        elif isinstance(item, list | tuple):
            stack.extend((child, level + 1) for child in item)
    return True


def storable_copy(value: Any, depth: int = MAX_DEPTH) -> Any:
    """``value`` as the run store can hold it, for what a team's own code hands
    the engine to show rather than a caller's input to refuse (a graph's
    interrupt, mirrored as a pause): a NUL or a lone surrogate becomes U+FFFD,
    ``NaN`` and the infinities their names as text, and what nests deeper than
    ``depth`` its text, shortened. Storable values come back equal."""
    if isinstance(value, str):
        if encodable(value):
            return value
        return "".join("\ufffd" if ch == "\x00" or "\ud800" <= ch <= "\udfff" else ch for ch in value)
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict | list | tuple) and depth <= 0:
        return storable_copy(repr(value)[:200])
    if isinstance(value, dict):
        return {str(storable_copy(str(k))): storable_copy(v, depth - 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [storable_copy(v, depth - 1) for v in value]
    return value


def proposal_refusal(agent: AgentSpec, tool: str, arguments: dict[str, Any]) -> tuple[str, str] | None:
    """The rule and sentence refusing a proposed call before anything is stored, or None."""
    found = agent.tool(tool) if len(tool) <= MAX_TOOL and encodable(tool) else None
    if found is None:
        return "unknown_tool", gettext(SENTENCE_UNKNOWN).format(tool=tool[:80])
    if not storable(arguments):
        problem = str(DETAIL_UNSTORABLE).format(depth=MAX_DEPTH)
    else:
        problem = argument_problem(found, arguments)
    if problem:
        return "arguments", gettext(SENTENCE_ARGUMENTS).format(tool=tool, detail=problem)
    return None
