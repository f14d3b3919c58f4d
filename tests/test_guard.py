"""``stalwart_site.guard``: what daphne's HTTP channel answers before Django
runs, driven directly over twisted's in-memory transport (issue 26).

Each refusal is twinned with the same request changed in one condition (one
byte under the limit, a well-formed line) that goes through to the
application. They pin the twisted names the guard overrides: if twisted
renames one, its refusal goes back to a bare 400 or a silent close and the
test says so. The same requests against a real `stalwart serve` are in
``tests/e2e/test_hostile_input.py``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.utils import translation
from twisted.internet.task import Clock
from twisted.internet.testing import StringTransport
from twisted.web.http_headers import Headers

from stalwart_site.errors import DETAIL_BAD_REQUEST
from stalwart_site.guard import GuardedChannel, GuardedHTTPFactory, GuardedRequest, Server


class Queue:
    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def put_nowait(self, message: dict[str, Any]) -> None:
        self.messages.append(message)


class FakeServer:
    """What daphne's request asks of its server; records what reached the application."""

    proxy_forwarded_address_header = None
    root_path = ""
    request_buffer_size = 8192
    server_name = "daphne"

    def __init__(self) -> None:
        self.scopes: list[dict[str, Any]] = []
        self.queue = Queue()

    def protocol_connected(self, protocol: Any) -> None:
        pass

    def protocol_disconnected(self, protocol: Any) -> None:
        pass

    def create_application(self, protocol: Any, scope: dict[str, Any]) -> Queue:
        self.scopes.append(scope)
        return self.queue

    def log_action(self, *args: Any) -> None:
        pass

    @property
    def body(self) -> bytes:
        return b"".join(m["body"] for m in self.queue.messages)


def send(data: bytes) -> tuple[FakeServer, StringTransport]:
    server = FakeServer()
    channel = GuardedHTTPFactory(server).buildProtocol(None)
    channel.callLater = Clock().callLater
    transport = StringTransport()
    channel.makeConnection(transport)
    channel.dataReceived(data)
    return server, transport


def answer(transport: StringTransport) -> tuple[int, dict[str, str], dict[str, Any]]:
    head, _, body = transport.value().partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v for k, v in (line.split(": ", 1) for line in lines)}
    return int(status_line.split()[1]), headers, json.loads(body)


def assert_refused(transport: StringTransport, status: int, code: str) -> dict[str, str]:
    got, headers, body = answer(transport)
    assert (got, body["error"]) == (status, code) and body["detail"]
    assert headers["content-type"] == "application/json" and headers["connection"] == "close"
    assert headers["x-content-type-options"] == "nosniff" and headers["x-frame-options"] == "DENY"
    assert headers["referrer-policy"] == "same-origin" and headers["x-request-id"]
    assert transport.disconnecting
    return headers


def request(path: bytes = b"/healthz", headers: bytes = b"", method: bytes = b"GET", body: bytes = b"") -> bytes:
    return method + b" " + path + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers + b"\r\n" + body


LONGEST_LINE = GuardedChannel.MAX_LENGTH  # 16 KiB, twisted's


@pytest.mark.parametrize("length", [100_000, LONGEST_LINE - 30])
def test_an_address_too_long_is_414(length):
    # 100,000 characters pass the longest line twisted reads; 16,354 fit in it
    # but, with the Host header, not in the 16 KiB all the headers may take.
    server, transport = send(request(b"/threads/" + b"t" * length))
    assert_refused(transport, 414, "uri_too_long")
    assert server.scopes == []


def test_the_twin_an_address_half_as_long_reaches_the_application():
    server, transport = send(request(b"/threads/" + b"t" * (LONGEST_LINE // 2)))
    assert transport.value() == b"" and len(server.scopes) == 1


@pytest.mark.parametrize("headers", [
    pytest.param(b"X-Big: " + b"a" * 100_000 + b"\r\n", id="one-100KB-header"),
    pytest.param(b"".join(b"X-%d: %s\r\n" % (i, b"a" * 1000) for i in range(20)), id="20KB-in-all"),
    pytest.param(b"".join(b"X-%d: 1\r\n" % i for i in range(GuardedChannel.maxHeaders + 1)), id="501-headers"),
])
def test_headers_over_the_limits_are_431(headers):
    server, transport = send(request(headers=headers))
    assert_refused(transport, 431, "headers_too_large")
    assert server.scopes == []


def test_the_twin_headers_under_every_limit_reach_the_application():
    headers = b"".join(b"X-%d: %s\r\n" % (i, b"a" * 100) for i in range(100))  # 100 headers, 11 KB
    server, transport = send(request(headers=headers))
    assert transport.value() == b"" and len(server.scopes) == 1


@pytest.mark.parametrize("data", [
    pytest.param(b"HELLO\r\n\r\n", id="no-request-line"),
    pytest.param(request(headers=b"no colon here\r\n"), id="header-without-colon"),
    pytest.param(request(method=b"POST", headers=b"Content-Length: -1\r\n"), id="negative-length"),
    pytest.param(request(method=b"POST", headers=b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
                         body=b"0\r\n\r\n"), id="length-and-chunked"),
    pytest.param(request(method=b"POST", headers=b"Transfer-Encoding: chunked\r\n", body=b"zz\r\nabc\r\n"),
                 id="malformed-chunk"),
    pytest.param(request(method=b"POST", headers=b"Transfer-Encoding: gzip\r\n"), id="unknown-coding"),
])
def test_what_twisted_cannot_parse_is_a_json_400_not_a_bare_one(data):
    server, transport = send(data)
    assert_refused(transport, 400, "bad_request")
    assert server.scopes == []


def test_a_malformed_multipart_body_reaches_the_application_which_answers_it():
    # twisted used to parse forms itself and answer a bad one with a bare 400.
    body = b"--XX\r\nContent-Disposition: form-data; name=\"text\"\r\n\r\nhi\r\n--XX--\r\n"
    headers = b"Content-Type: multipart/form-data\r\nContent-Length: %d\r\n" % len(body)
    server, transport = send(request(b"/threads/u-1/messages", headers, b"POST", body))
    assert transport.value() == b"" and server.body == body


def chunked(body: bytes, size: int = 8192) -> bytes:
    return b"".join(b"%x\r\n%s\r\n" % (len(body[i:i + size]), body[i:i + size])
                    for i in range(0, len(body), size)) + b"0\r\n\r\n"


def test_a_chunked_body_is_handed_on_with_its_length():
    body = b'{"text": "show order 4411"}'
    server, transport = send(request(b"/plan", b"Transfer-Encoding: chunked\r\n", b"POST", chunked(body, 7)))
    assert transport.value() == b""
    headers = dict(server.scopes[0]["headers"])
    assert headers[b"content-length"] == str(len(body)).encode() and b"transfer-encoding" not in headers
    assert server.body == body


@pytest.mark.parametrize(("extra", "refused"), [(1, True), (0, False)])
def test_a_chunked_body_over_the_limit_is_413_and_the_twin_at_the_limit_goes_on(settings, extra, refused):
    body = b"a" * (settings.STALWART_MAX_BODY + extra)
    server, transport = send(request(b"/plan", b"Transfer-Encoding: chunked\r\n", b"POST", chunked(body)))
    if refused:
        assert_refused(transport, 413, "too_large")
        assert server.scopes == []
    else:
        assert transport.value() == b"" and server.body == body


def test_daphnes_own_error_page_is_json_in_the_requests_language():
    # daphne answers a header value with a NUL itself, before any application.
    server, transport = send(request(headers=b"Accept-Language: pt-BR\r\nX-A: a\x0bb\r\n"))
    got, headers, body = answer(transport)
    with translation.override("pt-br"):
        assert (got, body) == (400, {"error": "bad_request", "detail": str(DETAIL_BAD_REQUEST)})
    assert body["detail"] != "The request is not valid."
    assert headers["content-type"] == "application/json" and headers["x-content-type-options"] == "nosniff"
    assert server.scopes == []


def test_an_application_that_raises_is_a_json_500_with_a_request_id():
    request_ = GuardedRequest.__new__(GuardedRequest)
    written: list[dict[str, Any]] = []
    request_.handle_reply = written.append  # type: ignore[method-assign]
    request_.requestHeaders = Headers()
    request_.handle_exception(RuntimeError("boom"))
    start, body = written
    assert start["status"] == 500 and (b"Content-Type", b"application/json") in start["headers"]
    payload = json.loads(body["body"])
    assert payload["error"] == "internal" and payload["request_id"]
    assert (b"X-Request-Id", payload["request_id"].encode()) in start["headers"]


def test_stalwart_serve_listens_with_the_guarded_factory():
    # daphne makes its factory inside run(): the property puts the guarded one in its place.
    from daphne.http_protocol import HTTPFactory

    server = Server(application=None, endpoints=["tcp:port=0"])
    server.http_factory = HTTPFactory(server)
    assert isinstance(server.http_factory, GuardedHTTPFactory) and server.http_factory.server is server
