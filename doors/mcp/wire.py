"""What the gateway's HTTP side sends, between the MCP SDK and the client
(docs/mcp.md, "On the wire").

- ``json_rpc_errors`` wraps ``send``: the SDK's own refusals that are not
  JSON (``413`` "Request body too large", ``400`` "Invalid Content-Type
  header", ``421`` "Invalid Host header", ``403`` "Invalid Origin header",
  an empty ``405`` or ``406`` of the current protocol) go out as a JSON-RPC
  error, ``{"jsonrpc": "2.0", "id": null, "error": {"code": -32600,
  "message"}}`` with ``application/json``, the status and the other headers
  kept, the message in the request's language. JSON and SSE answers, and
  the bodiless ``202``/``200`` of a notification or a session's end, pass
  as they are.
- ``Deliveries``: a held call's outcome counts as delivered once the
  response carrying it was sent to a client still connected, on the POST
  that made the call or on the ``GET`` with ``Last-Event-ID`` that resumed
  its stream (``doors.mcp.events``). The handler names the call's journal
  row by its request id (``DELIVER`` on the request's scope) before it
  returns; ``serve`` matches each JSON-RPC response sent in the same
  session (or, with no session, the same request) to it.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections import OrderedDict
from http import HTTPStatus
from typing import Any

from django.utils import translation
from django.utils.translation import gettext_lazy as _
from mcp.types import INVALID_REQUEST

from doors.mcp import calls
from doors.mcp.server import DELIVER, db

WIRE_TYPES = (b"application/json", b"text/event-stream")
SENTENCES: dict[int, Any] = {
    400: _("An MCP request is a POST whose Content-Type is application/json."),
    403: _("This MCP endpoint does not take calls from that origin."),
    405: _("This MCP endpoint does not take that method."),
    406: _("An MCP client must accept application/json and text/event-stream."),
    413: _("The body is larger than this server takes ({limit} bytes)."),
    421: _("This server does not answer to that host name."),
}
KEEP = 600.0  # seconds a call's outcome waits to be delivered on a resumed stream (as doors.mcp.events keeps it)
PENDING = 10_000  # outcomes waiting to be delivered, at most, on this worker


def _language(headers: dict[str, str]) -> str | None:
    if not headers.get("accept-language"):
        return None
    from django.http import HttpRequest

    request = HttpRequest()
    request.META["HTTP_ACCEPT_LANGUAGE"] = headers["accept-language"]
    return translation.get_language_from_request(request)


def error_body(status: int, said: bytes, headers: dict[str, str]) -> bytes:
    """The JSON-RPC error a non-JSON refusal of the SDK's becomes."""
    from django.conf import settings

    with translation.override(_language(headers)):
        sentence = SENTENCES.get(status)
        if sentence is not None:
            message = str(sentence).format(limit=settings.STALWART_MAX_BODY)
        else:
            message = said.decode("utf-8", "replace").strip()[:200] or HTTPStatus(status).phrase
    return json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message": message}}).encode()


def json_rpc_errors(send: Any, headers: dict[str, str]) -> Any:
    """``send``, with the SDK's non-JSON refusals turned into JSON-RPC errors (see the module's docstring)."""
    held: dict[str, Any] = {}
    parts: list[bytes] = []

    async def sending(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start" and message.get("status", 200) >= 400:
            given = dict((k.lower(), v) for k, v in message.get("headers", []))
            if given.get(b"content-type", b"").split(b";")[0].strip().lower() not in WIRE_TYPES:
                held.update(message)
                return
        if held and message["type"] == "http.response.body":
            parts.append(message.get("body") or b"")
            if message.get("more_body"):
                return
            body = error_body(held["status"], b"".join(parts), headers)
            kept = [(k, v) for k, v in held.get("headers", []) if k.lower() not in (b"content-type", b"content-length")]
            await send({"type": "http.response.start", "status": held["status"], "headers": [
                *kept, (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
            return
        await send(message)

    return sending


def response_ids(body: bytes) -> list[str]:
    """The ids of the JSON-RPC responses in a body sent: a JSON one, or the SSE events of a stream."""
    if b'"id"' not in body:
        return []
    texts = [line[5:] for line in body.splitlines() if line.startswith(b"data:")] or [body]
    ids = []
    for text in texts:
        try:
            sent = json.loads(text)
        except ValueError:
            continue
        if isinstance(sent, dict) and "method" not in sent and ("result" in sent or "error" in sent) \
                and sent.get("id") is not None:
            ids.append(str(sent["id"]))
    return ids


class Deliveries:
    """The outcomes this worker's held calls are about to send, by session (or request) and request id."""

    def __init__(self) -> None:
        self._pending: OrderedDict[tuple[str, str], tuple[int, float]] = OrderedDict()
        self._recording: set[asyncio.Task[None]] = set()

    def expect(self, key: str, request_id: Any, replay_id: int) -> None:
        now = time.monotonic()
        while self._pending and (len(self._pending) >= PENDING or now - next(iter(self._pending.values()))[1] > KEEP):
            self._pending.popitem(last=False)
        self._pending[(key, str(request_id))] = (replay_id, now)

    def taken(self, key: str, body: bytes) -> list[int]:
        return [found[0] for rid in response_ids(body) if (found := self._pending.pop((key, rid), None))]

    def forget(self, key: str, request_ids: list[str]) -> None:
        for rid in request_ids:
            self._pending.pop((key, rid), None)

    async def record(self, replay_ids: list[int]) -> None:
        """Store that these outcomes went out. A client that has read its result may close the stream at
        once, and the SDK then cancels what is sending: the record is shielded from that, else it could be
        dropped before its worker thread started and the outcome would be sent again to the same call."""
        async def stored() -> None:
            for replay_id in replay_ids:
                await db(calls.delivered)(replay_id)

        task = asyncio.ensure_future(stored())
        self._recording.add(task)  # the loop keeps only a weak reference to a task
        task.add_done_callback(self._recording.discard)
        await asyncio.shield(task)


async def serve(manager: Any, deliveries: Deliveries, scope: dict[str, Any], receive: Any, send: Any) -> None:
    """One request to the SDK's session manager, its answers on the wire as the module's docstring says."""
    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
    session = headers.get("mcp-session-id", "")
    key = f"session:{session}" if session else f"request:{uuid.uuid4().hex}"
    named: list[str] = []
    gone = asyncio.Event()

    def deliver(request_id: Any, replay_id: int) -> None:
        named.append(str(request_id))
        deliveries.expect(key, request_id, replay_id)

    async def watched() -> Any:
        message = await receive()
        if message.get("type") == "http.disconnect":
            gone.set()
        return message

    out = json_rpc_errors(send, headers)

    async def sending(message: dict[str, Any]) -> None:
        await out(message)
        if message["type"] == "http.response.body" and not gone.is_set():
            taken = deliveries.taken(key, message.get("body") or b"")
            if taken:  # its result went out to a client still there
                await deliveries.record(taken)

    try:
        await manager.handle_request({**scope, DELIVER: deliver}, watched, sending)
    finally:
        if not session:  # nothing resumes a request of no session: what it did not send is the same call's replay
            deliveries.forget(key, named)
