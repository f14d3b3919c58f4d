"""Values that become part of a tool's address, and the ones refused (pure).

Only the ``http:`` binding builds an address from a call's values: its path,
query, header and cookie arguments. An ``mcp:`` tool is called by the name
its binding gives, on the server its binding gives, with the values as JSON;
a ``python:`` or ``langchain:`` tool gets them as Python values. So in those
bindings no value is ever part of an address, and there is nothing here to
check: what a tool's own code makes of its arguments is that code's business.

An HTTP path value is percent-encoded whole (``quote(v, safe="")``), which
leaves the unreserved ``.`` and ``~`` alone. httpx then removes dot segments
as RFC 3986 says, so ``GET /orders/{order_id}`` with ``..`` went to ``GET /``
and with ``.`` to ``GET /orders``, the list of every order; a write's ``POST
/orders/../refund`` became ``POST /refund``. A ``/``, even encoded as ``%2F``,
is decoded into a separator by many servers and proxies, and an empty value
makes ``/orders//charge``, which many normalise to ``/orders/charge``. None
of these can be encoded safely, so each is refused before any call, by the
check (rule ``arguments``) and again by the binding for the calls that do
not go through the check (an undo, a ``verify`` probe). Every other value is
percent-encoded and reaches the operation's own path.

Query and header values are encoded by httpx, so a ``/`` there is only a
character; ``.`` and ``..`` are refused there too, since a service that
routes on them (a file name, a redirect, a proxy's rewrite header) would be
steered the same way. A header or cookie value is sent as it is, so it must
be printable ASCII: a line break would end the header and start another,
and httpx refuses anything else only once the connection is open.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from catalogue.tools import Tool

DOT_SEGMENT = "'{value}' would send the call to another address"
EMPTY_SEGMENT = "an empty value would send the call to another address"
SLASH_IN_SEGMENT = "a '/' would send the call to another address"
UNSENDABLE_HEADER = "a {where} value must be printable ASCII, with no line break"

DOT_SEGMENTS = frozenset({".", ".."})
_PLACES = ("path", "query", "header", "cookie")


def address_problem(tool: Tool, values: Mapping[str, Any]) -> str:
    """One sentence naming the first argument whose value would change where
    the call goes (``"order_id: ..."``), or ``""``."""
    spec = tool.binding.get("http") if isinstance(tool.binding, Mapping) else None
    if not isinstance(spec, Mapping):
        return ""  # no value of an mcp:, python: or langchain: tool is part of an address
    places = spec.get("arguments") or {}
    for name, value in values.items():
        place = places.get(name) if isinstance(places, Mapping) else None
        where = place.get("in") if isinstance(place, Mapping) else None
        if where not in _PLACES:
            continue
        for one in _each(value):
            problem = value_problem(str(where), one)
            if problem:
                return f"{name}: {problem}"
    return ""


def value_problem(where: str, value: Any) -> str:
    """Why ``value`` cannot be sent in ``where`` (``path``, ``query``,
    ``header``, ``cookie``) as it is written, or ``""``."""
    text = str(value).lower() if isinstance(value, bool) else str(value)
    if text in DOT_SEGMENTS:
        return DOT_SEGMENT.format(value=text)
    if where == "path":
        if text == "":
            return EMPTY_SEGMENT
        if "/" in text:
            return SLASH_IN_SEGMENT
    if where in ("header", "cookie") and not _printable_ascii(text):
        return UNSENDABLE_HEADER.format(where=where)
    return ""


def _each(value: Any) -> Iterable[Any]:
    # A list in the query is sent as the same name repeated (httpx's params).
    return value if isinstance(value, (list, tuple)) else (value,)


def _printable_ascii(text: str) -> bool:
    return all(" " <= ch <= "~" or ch == "\t" for ch in text)
