"""Interface tier: the HTTP routes in process (Django's test client)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from doors.http.api import DETAIL_TURN_TOO_LONG
from examples.shop import tools as shop
from stalwart_site.errors import DETAIL_BAD_JSON
from threads.keys import thread_key
from threads.models import Thread
from threads.selectors import session_hash

pytestmark = pytest.mark.django_db(transaction=True)


class Session:
    def __init__(self) -> None:
        self.client = Client()
        self.session = ""

    def post(self, path: str, body: Any, raw: bool = False) -> Any:
        data = body if raw else json.dumps(body)
        headers = {"HTTP_STALWART_SESSION": self.session} if self.session else {}
        response = self.client.post(path, data=data, content_type="application/json", **headers)
        self.session = response.headers.get("Stalwart-Session", self.session)
        return response

    def get(self, path: str) -> Any:
        headers = {"HTTP_STALWART_SESSION": self.session} if self.session else {}
        response = self.client.get(path, **headers)
        self.session = response.headers.get("Stalwart-Session", self.session)
        return response

    def key(self, thread: str) -> str:
        """The stored key of this session's thread ``thread`` (how staff name it)."""
        return thread_key(thread, session_hash(self.session))


@pytest.fixture
def browser(shop_dir: Any) -> Session:
    return Session()


def test_a_turn_hands_out_a_session_and_answers_the_spec_shape(browser):
    response = browser.post("/threads/u-17/messages", {"text": "charge 40 to order 4411"})
    assert response.status_code == 200
    assert len(response.headers["Stalwart-Session"]) >= 16
    body = response.json()
    assert set(body) >= {"thread", "run", "reply", "waiting", "refusals", "rollback", "steps", "not_notified"}
    assert body["thread"] == "u-17" and body["run"].startswith("r-") and body["reply"]["id"].startswith("m-")
    assert body["waiting"][0]["tool"] == "charge_card"
    listed = browser.get("/threads/u-17/interrupts").json()
    assert [p["id"] for p in listed["interrupts"]] == [body["waiting"][0]["id"]]


def test_resume_approves_then_a_second_answer_is_409_with_the_outcome(browser):
    pause = browser.post("/threads/u-18/messages", {"text": "charge 40 to order 4411"}).json()["waiting"][0]
    answer = {"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]}
    first = browser.post("/threads/u-18/resume", answer)
    assert first.status_code == 200 and "ch-4411" in first.json()["reply"]["text"]
    second = browser.post("/threads/u-18/resume", answer)
    assert second.status_code == 409
    body = second.json()
    assert body["error"] == "interrupt_stale" and body["interrupt"]["decision"] == "approve"
    assert body["interrupt"]["answered_at"] and body["waiting"] == []
    assert len(shop.charges("4411")) == 1


def test_an_invalid_decision_is_422(browser):
    pause = browser.post("/threads/u-19/messages", {"text": "charge 40 to order 4411"}).json()["waiting"][0]
    response = browser.post("/threads/u-19/resume",
                            {"interrupt_id": pause["id"], "decision": "maybe", "token": pause["token"]})
    assert response.status_code == 422 and response.json()["error"] == "invalid_decision"
    assert shop.charges() == []


def test_another_session_gets_404_for_the_thread(browser):
    pause = browser.post("/threads/u-20/messages", {"text": "charge 40 to order 4411"}).json()["waiting"][0]
    stranger = Session()
    stranger.post("/threads/other/messages", {"text": "show order 4411"})  # a session of its own
    assert stranger.get("/threads/u-20/interrupts").status_code == 404
    response = stranger.post("/threads/u-20/resume",
                             {"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]})
    assert response.status_code == 404 and response.json()["error"] == "not_found"
    assert stranger.get(f"/threads/{browser.key('u-20')}/interrupts").status_code == 404  # nor by its key
    assert shop.charges() == []


def test_the_same_thread_id_from_another_session_is_another_thread(browser):
    """No one can squat an id or probe whether it exists: the same id from
    another session is that session's own thread (issue 26)."""
    mine = browser.post("/threads/u-22/messages", {"text": "charge 40 to order 4411"}).json()
    stranger = Session()
    theirs = stranger.post("/threads/u-22/messages", {"text": "show order 4411"})
    assert theirs.status_code == 200 and theirs.json()["thread"] == "u-22" and theirs.json()["waiting"] == []
    assert stranger.get("/threads/u-22/interrupts").json()["interrupts"] == []  # the charge is not theirs
    assert [p["id"] for p in browser.get("/threads/u-22/interrupts").json()["interrupts"]] == [
        mine["waiting"][0]["id"]]
    assert mine["thread"] == "u-22" and browser.key("u-22") != stranger.key("u-22")
    assert sorted(Thread.objects.filter(name="u-22").values_list("pk", flat=True)) == sorted(
        [browser.key("u-22"), stranger.key("u-22")])
    assert shop.charges() == []


@pytest.mark.parametrize(
    ("path", "body", "status", "code"),
    [
        ("/threads/u-21/messages", "{not json", 400, "bad_request"),
        ("/threads/u-21/messages", json.dumps({"language": "en"}), 400, "bad_request"),
        ("/threads/u-21/messages", json.dumps({"text": 12}), 400, "bad_request"),
        ("/threads/u-21/messages", json.dumps([1, 2]), 400, "bad_request"),
        ("/threads/u-21/messages", json.dumps({"text": "x" * (1024 * 1024)}), 413, "too_large"),
        ("/threads/u-21/messages", json.dumps({"text": "show order 4411 " * 600}), 413, "too_large"),
        ("/threads/nobody/resume", json.dumps({"interrupt_id": "p-1", "decision": "approve", "token": "x"}),
         404, "not_found"),
        ("/threads/u-21/resume", json.dumps({"decision": "approve"}), 400, "bad_request"),
        ("/plan", "{", 400, "bad_request"),
    ],
)
def test_bad_input_gets_a_json_error_and_the_server_keeps_serving(browser, path, body, status, code):
    response = browser.post(path, body, raw=True)
    assert response.status_code == status
    assert response.json()["error"] == code and response.json()["detail"]
    assert browser.get("/healthz").status_code == 200
    assert browser.post("/threads/u-22/messages", {"text": "show order 4411"}).status_code == 200


def test_error_sentences_are_the_modules_constants(browser):
    assert browser.post("/plan", "{", raw=True).json()["detail"] == DETAIL_BAD_JSON
    long = browser.post("/threads/u-23/messages", {"text": "a" * 9000}).json()["detail"]
    assert long == DETAIL_TURN_TOO_LONG.format(limit=8000)


def test_plan_route_plans_and_runs_nothing(browser):
    response = browser.post("/plan", {"text": "charge 40 to order 4411"})
    assert response.status_code == 200
    assert response.json() == {
        "language": "en", "read": True, "asks": [],
        "calls": [{"step": 1, "tool": "charge_card", "arguments": [
            {"name": "amount", "value": 40, "origin": "typed"},
            {"name": "order_id", "value": "4411", "origin": "typed"}]}],
    }
    assert shop.charges() == []


def test_health_and_config(browser):
    assert browser.get("/healthz").json() == {"ok": True}
    config = browser.get("/config.json").json()
    assert config["name"] == "Shop" and config["language"] == "en"
    assert "charge_card" in [c["tool"] for c in config["can"]]


def test_withdrawn_tools_are_not_in_what_i_can_do(browser):
    from catalogue.models import Withdrawal

    Withdrawal.objects.create(agent="Shop", tool="archive_order")
    assert "archive_order" not in [c["tool"] for c in browser.get("/config.json").json()["can"]]
    assert browser.post("/plan", {"text": "archive order 4412"}).json()["read"] is False


def test_the_chat_page_sends_a_strict_content_security_policy(browser):
    response = browser.client.get("/")
    assert response.status_code == 200
    assert b"<stalwart-chat" in response.content
    assert "default-src 'self'" in response["Content-Security-Policy"]


def test_listing_what_waits_takes_a_fixed_number_of_queries(browser, django_assert_max_num_queries):
    browser.post("/threads/u-30/messages", {"text": "charge 40 to order 4411"})
    with django_assert_max_num_queries(4):
        response = browser.get("/threads/u-30/interrupts")
    assert len(response.json()["interrupts"]) == 1


@pytest.mark.parametrize("raw_text", ['"\\ud800"', '"ok\\udfff"', '"a\\u0000b"'])
def test_an_unencodable_answer_over_http_is_refused_and_the_pause_stays_open(browser, raw_text):
    # Over HTTP the strict body parser (a lone surrogate) or the serializer (a
    # NUL) refuses it as 400 before any view code; the service's own 422
    # (approvals.answers.DETAIL_UNENCODABLE) is for the Python API.
    said = browser.post("/threads/t-surrogate/messages", {"text": "refund on order 4411"}).json()
    ask = next(p for p in said["waiting"] if p["kind"] == "ask")
    head = json.dumps({"interrupt_id": ask["id"], "decision": "answer", "token": ask["token"]})[:-1]
    body = head + ', "answer": {"kind": "open", "text": ' + raw_text + "}}"
    refused = browser.post("/threads/t-surrogate/resume", body, raw=True)
    assert refused.status_code == 400
    assert refused.json()["error"] == "bad_request" and refused.json()["detail"]
    listed = browser.get("/threads/t-surrogate/interrupts").json()["interrupts"]
    assert [p["id"] for p in listed] == [ask["id"]]


def test_rollback_route_checks_the_operator_before_the_thread(browser, settings):
    from doors.http.api import DETAIL_NO_OPERATOR_TOKEN

    settings.OPERATOR_TOKEN = ""
    client = Client()
    none = client.post("/threads/anything/rollback", HTTP_AUTHORIZATION="Bearer x")
    assert none.status_code == 403 and none.json()["detail"] == DETAIL_NO_OPERATOR_TOKEN
    settings.OPERATOR_TOKEN = "right-token-of-24-characters-or-more"
    wrong = client.post("/threads/anything/rollback", HTTP_AUTHORIZATION="Bearer wrong")
    assert wrong.status_code == 401 and wrong.headers["WWW-Authenticate"] == 'Bearer realm="stalwart"'
    unknown = client.post("/threads/anything/rollback", HTTP_AUTHORIZATION="Bearer right-token-of-24-characters-or-more")
    assert unknown.status_code == 404 and unknown.json()["error"] == "not_found"
