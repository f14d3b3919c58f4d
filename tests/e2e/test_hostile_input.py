"""Hostile input against a real `stalwart serve`: every failure is SPEC §10's
JSON error shape with a 4xx status, nothing is claimed or run, and the server
keeps serving (issue 14)."""

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
    with Server(tmp_path_factory.mktemp("signed"), env={"STALWART_RESUME_SECRET": "s3cret-of-the-channel"}) as s:
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

    import threads.api as api
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
