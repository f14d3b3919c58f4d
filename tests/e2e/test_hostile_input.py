"""Hostile input against a real `stalwart serve`: every failure is the HTTP
API's JSON error shape (docs/http-api.md, "Errors") with a 4xx status, nothing
is claimed or run, and the server keeps serving (issue 14)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator

import httpx
import pytest

from tests.support.server import Browser, Server

pytestmark = pytest.mark.server

RUN = uuid.uuid4().hex[:8]


def tid(name: str) -> str:
    return f"{name}-{RUN}"


def deep(levels: int) -> str:
    return "[" * levels + "]" * levels


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with Server(tmp_path_factory.mktemp("hostile")) as s:
        yield s


@pytest.fixture
def browser(served: Server) -> Iterator[Browser]:
    b = Browser(served.url)
    yield b
    b.close()


def open_pause(browser: Browser, thread: str) -> dict:
    body = browser.say(thread, "charge 40 to order 4411").json()
    assert body["waiting"], body
    return body["waiting"][0]


def assert_json_error(response: httpx.Response, status: int, code: str | None = None) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["Content-Type"].startswith("application/json")
    body = response.json()
    assert body["detail"]
    if code:
        assert body["error"] == code
    return body


def post_raw(browser: Browser, path: str, raw: bytes | str) -> httpx.Response:
    return browser.request("POST", path, content=raw, headers={"Content-Type": "application/json"})


HOSTILE_TURNS = [
    pytest.param(deep(1000), id="nested-1000"),
    pytest.param(deep(100_000), id="nested-100000"),
    pytest.param('{"text": "show order 4411", "context": ' + deep(40) + "}", id="nested-context"),
    pytest.param('{"text": "show \\ud800 order"}', id="surrogate-in-text"),
    pytest.param('{"text": "show order 4411", "context": {"customer": "\\udfff"}}', id="surrogate-in-context"),
    pytest.param('{"text": "show order 4411", "context": {"\\ud83d": 1}}', id="surrogate-in-key"),
    pytest.param(b'{"text": "show \xed\xa0\x80 order"}', id="invalid-utf8"),
    pytest.param('{"text": NaN}', id="nan"),
    pytest.param('{"text": "x", "context": {"n": Infinity}}', id="infinity"),
    pytest.param('{"text": "x", "context": {"n": -1e400}}', id="overflowing-float"),
    pytest.param('{"text": "x", "context": {"n": ' + "9" * 5000 + "}}", id="5000-digit-int"),
    pytest.param('{"text": "show order 4411", "context": {"customer": "c-\\u0000"}}', id="nul-in-context"),
    pytest.param('{"text": "show order 4411", "context": {"\\u0000": 1}}', id="nul-in-context-key"),
    pytest.param('{"text": 12}', id="text-number"),
    pytest.param('{"text": null}', id="text-null"),
    pytest.param('{"text": "show order 4411", "context": []}', id="context-list"),
    pytest.param('{"text": "show order 4411", "context": "c-208"}', id="context-string"),
    pytest.param('{"text": "show order 4411", "context": null}', id="context-null"),
    pytest.param('{"text": "show order 4411", "agent": 12}', id="agent-number"),
    pytest.param('{"text": "show order 4411", "language": ["en"]}', id="language-list"),
    pytest.param('{"text": "show order 4411", "language": "' + "x" * 5000 + '"}', id="language-long"),
    pytest.param('"show order 4411"', id="body-string"),
]


@pytest.mark.parametrize("raw", HOSTILE_TURNS)
@pytest.mark.parametrize("route", ["messages", "plan"])
def test_a_hostile_turn_is_a_400_and_opens_nothing(browser, raw, route):
    thread = tid(f"t-{uuid.uuid4().hex[:6]}")
    path = "/plan" if route == "plan" else f"/threads/{thread}/messages"
    assert_json_error(post_raw(browser, path, raw), 400, "bad_request")
    # Nothing was opened: the thread does not exist for this session either.
    assert browser.request("GET", f"/threads/{thread}/interrupts").status_code == 404
    assert browser.request("GET", "/healthz").status_code == 200


@pytest.mark.parametrize("route", ["messages", "plan"])
def test_an_unknown_agent_is_404_on_every_route(browser, route):
    thread = tid("agent")
    path = "/plan" if route == "plan" else f"/threads/{thread}/messages"
    response = browser.request("POST", path, json={"text": "show order 4411", "agent": "Nobody"})
    assert_json_error(response, 404, "not_found")
    assert browser.request("GET", f"/threads/{thread}/interrupts").status_code == 404


def test_an_oversized_thread_id_is_400(browser):
    response = browser.say("t" * 129, "show order 4411")
    assert_json_error(response, 400, "bad_request")


def resume_bodies(pause: dict) -> list[tuple[str, bytes | str, int, str]]:
    good = {"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]}

    def with_(**over: object) -> str:
        return json.dumps({**good, **over})

    return [
        ("decision-tab-newline", with_(decision="\tapprove\n"), 422, "invalid_decision"),
        ("decision-upper", with_(decision="APPROVE"), 422, "invalid_decision"),
        ("decision-number", with_(decision=1), 400, "bad_request"),
        ("decision-long", with_(decision="a" * 5000), 400, "bad_request"),
        ("token-newline", with_(token=pause["token"] + "\n"), 409, "interrupt_stale"),
        ("token-space", with_(token=" " + pause["token"]), 409, "interrupt_stale"),
        ("token-non-ascii", with_(token="é" * 64), 409, "interrupt_stale"),
        ("token-list", with_(token=[pause["token"]]), 400, "bad_request"),
        ("token-long", with_(token="a" * 10_000), 400, "bad_request"),
        ("id-long", with_(interrupt_id="p-" + "0" * 10_000), 400, "bad_request"),
        ("id-object", with_(interrupt_id={"id": pause["id"]}), 400, "bad_request"),
        ("id-unknown", with_(interrupt_id="p-nothing"), 404, "not_found"),
        ("nested", json.dumps({**good, "answer": json.loads(deep(40))}), 400, "bad_request"),
        ("nested-1000", deep(1000), 400, "bad_request"),
        ("surrogate", with_(decision="approve").replace('"approve"', '"appr\\ud800ove"'), 400, "bad_request"),
        ("surrogate-answer", with_().replace("}", ', "answer": {"kind": "open", "text": "\\udc00"}}'), 400,
         "bad_request"),
        ("nan", with_().replace("}", ', "answer": NaN}'), 400, "bad_request"),
        ("nul-answer", with_().replace("}", ', "answer": {"kind": "open", "text": "4\\u00000"}}'), 400,
         "bad_request"),
    ]


def test_hostile_answers_change_nothing_and_the_right_one_still_works(browser):
    thread = tid("r-1")
    pause = open_pause(browser, thread)
    for name, raw, status, code in resume_bodies(pause):
        response = post_raw(browser, f"/threads/{thread}/resume", raw)
        assert response.status_code == status, (name, response.text)
        assert response.json()["error"] == code, name
        # Nothing was claimed: the same pause is still open.
        waiting = browser.request("GET", f"/threads/{thread}/interrupts").json()["interrupts"]
        assert [p["id"] for p in waiting] == [pause["id"]], name
    approved = browser.resume(thread, pause, "approve")
    assert approved.status_code == 200 and "ch-4411" in approved.json()["reply"]["text"]


def test_a_surrogate_in_an_asks_answer_is_400_before_the_claim(browser):
    thread = tid("ask")
    body = browser.say(thread, "charge order 4411").json()
    asks = [p for p in body["waiting"] if p["kind"] == "ask"]
    assert asks, body
    pause = asks[0]
    raw = json.dumps({"interrupt_id": pause["id"], "decision": "answer", "token": pause["token"]})
    raw = raw[:-1] + ', "answer": {"kind": "open", "text": "4\\ud8000"}}'
    assert_json_error(post_raw(browser, f"/threads/{thread}/resume", raw), 400, "bad_request")
    waiting = browser.request("GET", f"/threads/{thread}/interrupts").json()["interrupts"]
    assert [p["id"] for p in waiting] == [pause["id"]]


def test_hostile_headers_never_make_a_500(browser):
    for value in (b"\xed\xa0\x80", b"\xff" * 300, "9" * 5000):
        response = browser.client.post(f"/threads/{tid('h')}/messages", json={"text": "show order 4411"},
                                       headers={"Stalwart-Session": value, "Idempotency-Key": value})
        assert response.status_code < 500, response.text


@pytest.fixture(scope="module")
def signed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with Server(tmp_path_factory.mktemp("signed"),
                env={"STALWART_RESUME_SECRET": "s3cret-of-the-channel-long-enough-to-sign"}) as s:
        yield s


@pytest.mark.parametrize("signature", [
    pytest.param("t=١٢٣٤٥٦٧٨٩٠,v1=" + "a" * 64, id="arabic-digits"),
    pytest.param("t=" + "9" * 5000 + ",v1=" + "a" * 64, id="5000-digits"),
    pytest.param("t=1700000000,v1=" + "é" * 64, id="non-ascii-hex"),
    pytest.param("v1=" * 2000, id="long"),
])
def test_a_malformed_signature_is_401_never_500(signed, signature):
    browser = Browser(signed.url)
    response = browser.request("POST", f"/threads/{tid('s')}/resume",
                               content=json.dumps({"interrupt_id": "p-1", "decision": "approve", "token": "x"}),
                               headers={"Content-Type": "application/json",
                                        "Stalwart-Signature": signature.encode()})
    assert_json_error(response, 401, "signature_invalid")
    browser.close()


def test_a_500_is_json_with_a_request_id(monkeypatch):
    """In process: a view that fails unexpectedly answers the JSON shape, never an HTML page."""
    from django.test import Client

    import doors.http.api as api
    from stalwart_site.errors import DETAIL_INTERNAL

    monkeypatch.setattr(api.HealthApi, "get", lambda self, request: 1 / 0)
    response = Client(raise_request_exception=False).get("/healthz")
    assert response.status_code == 500
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["error"] == "internal" and body["detail"] == DETAIL_INTERNAL
    assert body["request_id"] == response["X-Request-Id"] and len(body["request_id"]) == 32


def test_a_header_holding_a_lone_surrogate_is_400_in_process():
    """An ASGI server hands headers over as bytes (daphne decodes them as
    Latin-1, so no surrogate survives the wire); a server that decoded them
    otherwise would reach this guard."""
    from django.test import Client

    from stalwart_site.middleware import DETAIL_BAD_HEADER

    response = Client().post("/plan", '{"text": "show order 4411"}', content_type="application/json",
                             HTTP_STALWART_SESSION="abc\ud800def")
    assert response.status_code == 400
    assert response.json() == {"error": "bad_request", "detail": DETAIL_BAD_HEADER}


# What daphne and the libraries answered before Django's views (issue 26):
# each malformed request below is sent as raw bytes, and each answer must be
# the JSON error shape with the security headers; the server keeps serving.

SECURITY_HEADERS = {"x-content-type-options": "nosniff", "x-frame-options": "DENY", "referrer-policy": "same-origin"}
MULTIPART = b"--XX\r\nContent-Disposition: form-data; name=\"text\"\r\n\r\nshow order 4411\r\n--XX--\r\n"


def wire(server: Server, data: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send ``data`` as it is; the answer's status, headers and (de-chunked) body."""
    import http.client
    import socket

    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
        sock.sendall(data)
        answer = http.client.HTTPResponse(sock)
        answer.begin()
        return answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read()


def http11(method: str, target: bytes, headers: bytes = b"", body: bytes = b"") -> bytes:
    return (method.encode() + b" " + target + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" + headers
            + b"\r\n" + body)


def chunked(body: bytes, size: int = 4096) -> bytes:
    return b"".join(b"%x\r\n%s\r\n" % (len(body[i:i + size]), body[i:i + size])
                    for i in range(0, len(body), size)) + b"0\r\n\r\n"


def assert_wire_error(answer: tuple[int, dict[str, str], bytes], status: int, code: str) -> dict:
    got, headers, body = answer
    assert got == status, body
    assert headers["content-type"] == "application/json", headers
    assert {k: headers.get(k) for k in SECURITY_HEADERS} == SECURITY_HEADERS
    payload = json.loads(body)
    assert payload["error"] == code and payload["detail"], payload
    return payload


MALFORMED = [
    pytest.param(http11("POST", b"/threads/t-mp/messages",
                        b"Content-Type: multipart/form-data\r\nContent-Length: %d\r\n" % len(MULTIPART), MULTIPART),
                 415, "bad_request", id="multipart-without-boundary"),
    pytest.param(http11("POST", b"/plan", b"Content-Type: multipart/form-data; boundary=YY\r\n"
                        b"Content-Length: %d\r\n" % len(MULTIPART), MULTIPART),
                 415, "bad_request", id="multipart-other-boundary"),
    pytest.param(http11("GET", b"/threads/" + b"t" * 100_000 + b"/interrupts"), 414, "uri_too_long",
                 id="100000-character-thread-id"),
    pytest.param(http11("GET", b"/healthz", b"X-Big: " + b"a" * 100_000 + b"\r\n"), 431, "headers_too_large",
                 id="100KB-header"),
    pytest.param(http11("POST", b"/plan", b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n",
                        chunked(b'{"text": "' + b"a" * 300_000 + b'"}')), 413, "too_large", id="chunked-over-limit"),
    pytest.param(http11("POST", b"/plan", b"Content-Type: application/json\r\nContent-Length: 5\r\n"
                        b"Transfer-Encoding: chunked\r\n", b"0\r\n\r\n"), 400, "bad_request",
                 id="length-and-chunked"),
    pytest.param(b"HELLO\r\n\r\n", 400, "bad_request", id="no-request-line"),
    pytest.param(http11("GET", b"/healthz", b"X Y: 1\r\n"), 400, "bad_request", id="bad-header-name"),
    pytest.param(http11("GET", "/h\u00e9".encode()), 400, "bad_request", id="path-not-ascii"),
    pytest.param(http11("GET", b"/static/%2e%2e/x"), 404, "not_found", id="static-encoded-dot-dot"),
    pytest.param(http11("GET", b"/static/../settings.py"), 404, "not_found", id="static-dot-dot"),
    pytest.param(http11("GET", b"/api/schema/?format=xml"), 404, "not_found", id="schema-format-xml"),
    pytest.param(http11("GET", b"/api/schema/?format=openapi"), 404, "not_found", id="schema-format-openapi"),
    pytest.param(http11("GET", b"/api/schema/?format=html"), 404, "not_found", id="schema-format-html"),
    pytest.param(http11("GET", b"/api/docs/?format=xml"), 404, "not_found", id="docs-format-xml"),
    pytest.param(http11("GET", b"/api/schema/", b"Accept: text/html\r\n"), 406, "not_acceptable",
                 id="schema-accept-html"),
    pytest.param(http11("POST", b"/plan", b"Content-Type: application/json\r\nContent-Length: 300000\r\n",
                        b"{" * 300_000), 413, "too_large", id="declared-over-limit"),
]


@pytest.mark.parametrize(("data", "status", "code"), MALFORMED)
def test_a_malformed_request_is_answered_in_json_with_the_security_headers(served, data, status, code):
    assert_wire_error(wire(served, data), status, code)
    assert httpx.get(f"{served.url}/healthz").status_code == 200


@pytest.mark.parametrize("target", [b"/api/schema/?format=json", b"/api/schema/?format=yaml", b"/api/docs/",
                                    b"/static/stalwart/index.js"])
def test_the_twins_the_document_its_page_and_a_static_file_are_served(served, target):
    status, headers, body = wire(served, http11("GET", target))
    assert status == 200 and body
    assert headers["x-content-type-options"] == "nosniff"
    if target.endswith(b"json"):
        assert json.loads(body)["openapi"] == "3.1.0"


@pytest.mark.parametrize("framing", ["chunked", "content-length"])
def test_a_chunked_turn_is_read_like_a_declared_one(served, framing):
    # The twin pair: the same turn, framed two ways. Chunked used to be read as empty
    # ("text: This field is required").
    turn = json.dumps({"text": "show order 4411"}).encode()
    head = b"Content-Type: application/json\r\n"
    head += b"Transfer-Encoding: chunked\r\n" if framing == "chunked" else b"Content-Length: %d\r\n" % len(turn)
    status, _, body = wire(served, http11("POST", f"/threads/{tid('chunk-' + framing)}/messages".encode(), head,
                                          chunked(turn, 5) if framing == "chunked" else turn))
    assert status == 200, body
    assert "visa-0019" in json.loads(body)["reply"]["text"]
