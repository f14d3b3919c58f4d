"""The ``http:`` binding: a tool imported from OpenAPI, called with httpx.

The binding (see ``catalogue.importers.openapi``) gives the base URL, the
method, the path and where each argument goes (path, query, header, cookie,
body). The idempotency key, where the tool declares a header for it, is sent
in that header: the same key on every attempt of the same step.

Transport outcomes (docs/agent-file.md, "Bindings"), by what the caller can know about the effect:

- ``ok``: a 2xx; the JSON body (or the text) is the result.
- ``refused``: nothing was applied: a 4xx, a connection that could not be made
  (nothing was sent), a missing required argument, a bad binding, or a value
  that would change the address the call goes to (``catalogue.addresses``:
  ``..`` as a path argument; refused here too for the calls that do not pass
  the check, an undo or a ``verify`` probe).
- ``timeout``: sent, and no answer in time (a read or write timeout, a 504).
- ``no_response``: sent, and the connection dropped, or a 5xx: a 5xx counts
  as ambiguous, since the server may have applied the effect first.
- ``error``: an answer that fits none of these (a redirect not followed).

``timeout`` and ``no_response`` are ambiguous: the engine never resends blindly.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, unquote, urlsplit

import httpx

from catalogue.addresses import address_problem
from catalogue.bindings.outcome import Outcome
from catalogue.tools import Tool

MISSING_ARGUMENT = "the argument '{name}' is required"
NO_BASE_URL = "the tool's http binding has no base_url"
CONNECT_FAILED = "could not connect to {url}: {reason}"
NO_ANSWER = "sent, and no answer within {timeout:g}s"
DROPPED = "sent, and the connection dropped before an answer: {reason}"
HTTP_STATUS = "HTTP {status}: {detail}"
ADDRESS_CHANGED = "the call would not go to the operation's own path ({expected}), but to {sent}"


def build_request(tool: Tool, arguments: Mapping[str, Any], *, idempotency_key: str | None) -> httpx.Request:
    """The request a call makes; ``ValueError`` for what cannot be sent."""
    spec = tool.binding["http"]
    base_url = str(spec.get("base_url") or "")
    if not base_url:
        raise ValueError(NO_BASE_URL)
    places: Mapping[str, Mapping[str, str]] = spec.get("arguments") or {}
    path = str(spec.get("path") or "/")
    query: dict[str, Any] = {}
    headers: dict[str, str] = {}
    cookies: dict[str, str] = {}
    body: Any = None
    for name in tool.required:
        if name not in arguments:
            raise ValueError(MISSING_ARGUMENT.format(name=name))
    problem = address_problem(tool, arguments)
    if problem:
        raise ValueError(problem)
    for name, value in arguments.items():
        place = places.get(name, {"in": "body", "name": name})
        where, field = place.get("in", "body"), place.get("name", name)
        if where == "path":
            path = path.replace("{" + field + "}", quote(str(value), safe=""))
        elif where == "query":
            query[field] = value if not isinstance(value, bool) else str(value).lower()
        elif where == "header":
            headers[field] = str(value)
        elif where == "cookie":
            cookies[field] = str(value)
        elif "name" in place:
            body = {} if body is None else body
            body[field] = value
        else:  # the whole body is this one argument
            body = value
    header = spec.get("idempotency_header")
    if header and idempotency_key:
        headers[str(header)] = idempotency_key
    url = base_url.rstrip("/") + "/" + path.lstrip("/")
    request = httpx.Request(
        str(spec.get("method") or "GET").upper(),
        url,
        params=query or None,
        headers=headers,
        cookies=cookies or None,
        json=body,
    )
    # Every value is encoded above, so httpx has nothing left to normalise; if
    # it ever did (a dot segment in the catalogue's own base URL or path, a new
    # rule of httpx), the call would land elsewhere: the path sent must be the
    # path built (compared decoded, since httpx may encode what a template left).
    built = urlsplit(url).path
    sent = request.url.raw_path.split(b"?", 1)[0].decode("ascii", "replace")
    if unquote(sent) != unquote(built or "/"):
        raise ValueError(ADDRESS_CHANGED.format(expected=built, sent=sent))
    return request


def classify(response: httpx.Response) -> Outcome:
    status = response.status_code
    try:
        payload: Any = response.json()
    except ValueError:
        payload = response.text
    if 200 <= status < 300:
        return Outcome("ok", result=payload if response.content else None)
    detail = payload.get("detail", payload) if isinstance(payload, dict) else payload
    text = HTTP_STATUS.format(status=status, detail=str(detail)[:500])
    if status == 504:
        return Outcome("timeout", result=payload, error=text)
    if status >= 500:
        return Outcome("no_response", result=payload, error=text)
    if 400 <= status < 500:
        return Outcome("refused", result=payload, error=text)
    return Outcome("error", result=payload, error=text)


def invoke_http(tool: Tool, arguments: Mapping[str, Any], *, idempotency_key: str | None = None,
                timeout: float = 30.0) -> Outcome:
    try:
        request = build_request(tool, arguments, idempotency_key=idempotency_key)
    except ValueError as exc:
        return Outcome("refused", error=str(exc))
    # The connect phase gets its own short bound: failing it proves nothing was sent.
    limits = httpx.Timeout(timeout, connect=min(timeout, 10.0))
    try:
        with httpx.Client(timeout=limits, follow_redirects=False) as client:
            response = client.send(request)
    except (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout, httpx.UnsupportedProtocol,
            httpx.InvalidURL) as exc:
        return Outcome("refused", error=CONNECT_FAILED.format(url=request.url, reason=exc))
    except (httpx.ReadTimeout, httpx.WriteTimeout):
        return Outcome("timeout", error=NO_ANSWER.format(timeout=timeout))
    except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError) as exc:
        return Outcome("no_response", error=DROPPED.format(reason=exc or type(exc).__name__))
    except httpx.HTTPError as exc:
        return Outcome("no_response", error=DROPPED.format(reason=exc or type(exc).__name__))
    return classify(response)
