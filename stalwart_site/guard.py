"""What daphne answers before Django runs, in the HTTP API's error shape (docs/http-api.md, "Errors"; issue 26).

daphne reads requests with twisted's ``HTTPChannel``, which answers some of
them itself, before any ASGI application sees them:

- a request line, header line or chunk it cannot parse, two
  ``Content-Length``/``Transfer-Encoding`` headers, more than 500 headers, or
  more than 16 KiB of them in all: ``_respondToBadRequestAndDisconnect``
  writes a bare ``HTTP/1.1 400 Bad Request`` (no header, no body) and closes;
- a request line or header line over 16 KiB (``LineReceiver.MAX_LENGTH``):
  ``lineLengthExceeded`` closes the connection with no answer at all;
- a ``multipart/form-data`` POST: twisted parses the form itself (for its
  own ``request.args``, which daphne never reads) and answers a malformed one
  with the same bare 400;
- a chunked body: read, then handed to the application with no
  ``Content-Length``, which DRF (and Django's own size check) read as empty.

daphne's own refusals (an invalid header name or value, a path that is not
ASCII, an application that raised, a timeout) are HTML pages. Here each of
these is answered with the JSON error shape and the headers Django's
middleware gives every other answer: a malformed request ``400 bad_request``,
an over-long request line ``414 uri_too_long``, over-large headers ``431
headers_too_large``, an application failure ``500 internal`` (with a
request id), a timeout ``503 unavailable``. Twisted's form parsing is turned
off with its own ``parsePOSTFormSubmission`` switch (Django parses the forms
it needs itself). A chunked body is read, then given a ``Content-Length``
(and its ``Transfer-Encoding`` removed) before the application sees it; one
over ``STALWART_MAX_BODY`` stops being kept and is answered ``413
too_large`` once it ends, like a declared one.

The twisted names used are not all public (``_respondToBadRequestAndDisconnect``
is private, and ``GuardedChannel`` reads three private counters);
``tests/test_guard.py`` drives a channel directly and fails if they change. ``Server`` is daphne's with this factory; ``stalwart serve``
uses it (``stalwart_site.cli``). A team serving ``make_app`` under a server
of its own gets that server's answers for these.
"""

from __future__ import annotations

import json
import logging
import uuid
from typing import Any

import daphne.server  # first: it installs twisted's asyncio reactor before anything else of twisted loads
from daphne.http_protocol import HTTPFactory, WebRequest
from django.utils import translation
from django.utils.translation import gettext_lazy as _
from twisted.web.http import RESPONSES, HTTPChannel

from stalwart_site.errors import DETAIL_BAD_REQUEST, DETAIL_INTERNAL, DETAIL_TOO_LARGE, security_headers

log = logging.getLogger("stalwart.guard")

DETAIL_URI_TOO_LONG = _("The address is longer than this server takes ({limit} bytes).")
DETAIL_HEADERS_TOO_LARGE = _("The request's headers are larger than this server takes ({limit} bytes).")
DETAIL_UNAVAILABLE = _("The server did not answer in time. Nothing was lost: try again.")

# daphne's own refusals by status: the code and sentence each becomes.
BASIC_ERRORS: dict[int, tuple[str, Any]] = {
    400: ("bad_request", DETAIL_BAD_REQUEST),
    500: ("internal", DETAIL_INTERNAL),
    503: ("unavailable", DETAIL_UNAVAILABLE),
}


def error_body(code: str, detail: Any, accept_language: bytes | None = None, **extra: str) -> bytes:
    """The API's ``{"error", "detail"}`` (docs/http-api.md, "Errors"), the sentence in the request's language
    where it said one."""
    with translation.override(_language(accept_language)):
        return json.dumps({"error": code, "detail": str(detail), **extra}).encode()


def _language(accept_language: bytes | None) -> str | None:
    if not accept_language:
        return None
    from django.http import HttpRequest

    request = HttpRequest()
    request.META["HTTP_ACCEPT_LANGUAGE"] = accept_language.decode("latin-1")
    return translation.get_language_from_request(request)


REASONS = {431: b"Request Header Fields Too Large"}  # RFC 6585; twisted's table stops before it


def response_bytes(status: int, body: bytes) -> bytes:
    """A whole HTTP/1.1 answer that closes the connection."""
    lines = [b"HTTP/1.1 %d %s" % (status, REASONS.get(status) or RESPONSES.get(status, b"Error")),
             b"Content-Type: application/json", b"Content-Length: %d" % len(body), b"Connection: close",
             b"X-Request-Id: " + uuid.uuid4().hex.encode(),
             b"Cache-Control: no-store",
             *(f"{name}: {value}".encode("latin-1") for name, value in security_headers())]
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


class GuardedChannel(HTTPChannel):
    """twisted's HTTP/1.1 channel, answering what it refuses in JSON.

    Besides the one private method overridden, it reads three of twisted's
    private counters (``_command``, set while a request's headers are read;
    ``_receivedHeaderSize``; ``_receivedHeaderCount``)."""

    request_line_length = 0

    def refuse(self, status: int, body: bytes) -> None:
        """Answer and close, as twisted's own refusals do (nothing more is read)."""
        peer = getattr(self.transport, "getPeer", lambda: None)()
        log.info("refused before the application: %s from %s", status, getattr(peer, "host", "?"))
        if self.transport is not None:
            self.transport.write(response_bytes(status, body))
        self.loseConnection()

    def _respondToBadRequestAndDisconnect(self) -> None:  # twisted's bare "HTTP/1.1 400"
        self.refuse(400, error_body("bad_request", DETAIL_BAD_REQUEST))

    def lineLengthExceeded(self, line: bytes) -> None:  # twisted closes with no answer
        if getattr(self, "_command", None) is None:  # still the request line: the address is too long
            self.uri_too_long()
        else:
            self.headers_too_large()

    def lineReceived(self, line: bytes) -> None:
        if getattr(self, "_command", None) is None:
            self.request_line_length = len(line)
        # twisted answers a bare 400 past totalHeadersSize (the request line
        # counts): 414 when the address takes most of it, else 431.
        total = self._receivedHeaderSize + len(line)
        if total > self.totalHeadersSize:
            if self.request_line_length > total - self.request_line_length:
                self.uri_too_long()
            else:
                self.headers_too_large()
            return None
        return super().lineReceived(line)

    def headerReceived(self, line: bytes) -> bool:
        if self._receivedHeaderCount >= self.maxHeaders:  # twisted's bare 400 for the one past the limit
            self.headers_too_large()
            return False
        return bool(super().headerReceived(line))

    def uri_too_long(self) -> None:
        self.refuse(414, error_body("uri_too_long", DETAIL_URI_TOO_LONG.format(limit=self.MAX_LENGTH)))

    def headers_too_large(self) -> None:
        self.refuse(431, error_body("headers_too_large", DETAIL_HEADERS_TOO_LARGE.format(limit=self.totalHeadersSize)))


class GuardedRequest(WebRequest):
    """daphne's request: no form parsing by twisted, a chunked body handed on
    with its length, and daphne's own error pages in JSON."""

    def __init__(self, channel: HTTPChannel, *args: Any, **kwargs: Any) -> None:
        # Django parses the forms it needs; twisted's own parse answered a bad multipart with a bare 400.
        kwargs["parsePOSTFormSubmission"] = False
        self.chunked_seen = 0
        super().__init__(channel, *args, **kwargs)

    def _chunked(self) -> bool:
        values = self.requestHeaders.getRawHeaders(b"transfer-encoding") or []
        return any(b"chunked" in v.lower() for v in values)

    def handleContentChunk(self, data: bytes) -> None:
        if self._chunked():
            from django.conf import settings

            self.chunked_seen += len(data)
            if self.chunked_seen > settings.STALWART_MAX_BODY:
                return  # read to its end, never kept: answered 413 once it ends
        super().handleContentChunk(data)

    def requestReceived(self, command: bytes, path: bytes, version: bytes) -> None:
        if self._chunked():
            from django.conf import settings

            if self.chunked_seen > settings.STALWART_MAX_BODY:
                limit = settings.STALWART_MAX_BODY
                self.channel.refuse(413, error_body("too_large", DETAIL_TOO_LARGE.format(limit=limit),
                                                    self._accept_language()))
                return
            # The whole body is here: hand it on as if its length had been declared.
            self.requestHeaders.removeHeader(b"transfer-encoding")
            self.requestHeaders.setRawHeaders(b"content-length", [b"%d" % self.content.tell()])
        super().requestReceived(command, path, version)

    def _accept_language(self) -> bytes | None:
        values = self.requestHeaders.getRawHeaders(b"accept-language")
        return values[0] if values else None

    def basic_error(self, status: int, status_text: bytes, body: str) -> None:
        """daphne's HTML error page, as the API's JSON error (docs/http-api.md, "Errors")."""
        code, detail = BASIC_ERRORS.get(status) or BASIC_ERRORS[500 if status >= 500 else 400]
        request_id = uuid.uuid4().hex
        extra = {"request_id": request_id} if status >= 500 else {}
        content = error_body(code, detail, self._accept_language(), **extra)
        log.log(logging.ERROR if status >= 500 else logging.INFO, "daphne answered %s (%s) (request %s)",
                status, body, request_id)
        self.handle_reply({
            "type": "http.response.start", "status": status,
            "headers": [(b"Content-Type", b"application/json"), (b"Content-Length", b"%d" % len(content)),
                        (b"X-Request-Id", request_id.encode()), (b"Cache-Control", b"no-store"),
                        *((name.encode(), value.encode("latin-1")) for name, value in security_headers())],
        })
        self.handle_reply({"type": "http.response.body", "body": content})


class GuardedHTTPFactory(HTTPFactory):
    """daphne's factory, building guarded channels and requests.

    ``stalwart serve`` listens on plain TCP only, so the channel is built
    bare: twisted's wrapper around it (``_GenericHTTPChannelProtocol``) only
    switches to HTTP/2 after a TLS handshake negotiates it."""

    def protocol(self) -> GuardedChannel:  # twisted's Factory.buildProtocol calls self.protocol()
        return GuardedChannel()

    def buildProtocol(self, addr: Any) -> Any:
        channel = super().buildProtocol(addr)
        if channel is not None:
            channel.requestFactory = GuardedRequest
        return channel


class Server(daphne.server.Server):
    """daphne's ``Server``, listening with ``GuardedHTTPFactory``.

    daphne makes its factory inside ``run()`` (``self.http_factory =
    HTTPFactory(self)``); this property takes that one and puts the guarded
    one in its place, so nothing of ``run()`` is copied."""

    @property
    def http_factory(self) -> HTTPFactory:
        return self._http_factory

    @http_factory.setter
    def http_factory(self, factory: HTTPFactory) -> None:
        self._http_factory = factory if isinstance(factory, GuardedHTTPFactory) else GuardedHTTPFactory(self)
