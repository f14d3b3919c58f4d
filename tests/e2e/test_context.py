"""Signed context and privileges over a real server (docs/http-api.md, "Signed context (Stalwart-Context)")."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import jwt
import pytest

from examples.shop import tools as shop
from stalwart_site.context import context_token
from tests.e2e.conftest import fresh_shop
from tests.support.server import Browser, Server
from threads.errors import DETAIL_CONTEXT_INVALID
from threads.selectors import DETAIL_BODY_CONTEXT

pytestmark = pytest.mark.server

SECRET = "test-context-secret-" + "x" * 24

AGENT = """
agents:
  - name: Refunds
    language: en
    on_unread: refuse
    tools:
      search_orders:
        python: examples.shop.tools:search_orders
        read: true
      refund_card:
        python: examples.shop.tools:refund_card
        write: true
        privilege: refunds
        idempotency: {argument: idempotency_key}
"""


@pytest.fixture(scope="module")
def refunds_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("agent") / "agent.yaml"
    path.write_text(AGENT, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def signed_server(tmp_path_factory: pytest.TempPathFactory, refunds_file: Path):  # type: ignore[no-untyped-def]
    with Server(tmp_path_factory.mktemp("signed"), agent_file=refunds_file,
                env={"STALWART_CONTEXT_SECRET": SECRET}) as s:
        yield s


@pytest.fixture
def signed(signed_server: Server, monkeypatch: pytest.MonkeyPatch) -> Server:
    """Started once for the module: each test opens threads of its own, on a fresh shop."""
    return fresh_shop(signed_server, monkeypatch)


@pytest.fixture
def unsigned(data_dir: Path, refunds_file: Path):  # type: ignore[no-untyped-def]
    with Server(data_dir, agent_file=refunds_file) as s:  # no STALWART_CONTEXT_SECRET at all
        yield s


def thread() -> str:
    return f"ctx-{uuid.uuid4().hex[:8]}"


def header(**claims) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {"Stalwart-Context": context_token(secret=SECRET, **claims)}


def test_a_signed_customer_fills_the_search_with_origin_context(signed):
    browser = Browser(signed.url)
    body = browser.request("POST", f"/threads/{thread()}/messages", json={"text": "search orders"},
                           headers=header(ctx={"customer": "c-208"})).json()
    step = body["steps"][0]
    assert step["tool"] == "search_orders" and step["status"] == "succeeded"
    assert step["arguments"] == [{"name": "customer", "value": "c-208", "origin": "context"}]
    assert {o["order_id"] for o in step["result"]["orders"]} >= {"4411", "4412"}
    assert "Context: signed only" in signed.log()


def test_a_body_context_is_400_and_never_used_when_a_secret_is_set(signed):
    browser = Browser(signed.url)
    t = thread()
    response = browser.say(t, "search orders", context={"customer": "c-311"})
    assert response.status_code == 400
    assert response.json() == {"error": "bad_request", "detail": DETAIL_BODY_CONTEXT}
    # Nothing ran: the thread was never opened.
    assert browser.request("GET", f"/threads/{t}/interrupts").status_code == 404


def _expired() -> str:
    return context_token(secret=SECRET, ctx={"customer": "c-208"}, ttl=1, now=time.time() - 120)


@pytest.mark.parametrize("make", [
    lambda: context_token(secret="another-secret-" + "y" * 30, ctx={"customer": "c-208"}, priv=["refunds"]),
    _expired,
    lambda: "garbage",
    lambda: jwt.encode({"ctx": {"customer": "c-208"}, "priv": []}, SECRET, algorithm="HS256"),  # no exp
], ids=["another-secret", "expired", "garbage", "no-exp"])
def test_a_bad_token_is_401_and_nothing_runs(signed, make):
    browser = Browser(signed.url)
    t = thread()
    response = browser.request("POST", f"/threads/{t}/messages", json={"text": "refund 40 on order 4411"},
                               headers={"Stalwart-Context": make()})
    assert response.status_code == 401
    assert response.json() == {"error": "context_invalid", "detail": DETAIL_CONTEXT_INVALID}
    assert browser.request("GET", f"/threads/{t}/interrupts").status_code == 404
    plan = browser.request("POST", "/plan", json={"text": "search orders"}, headers={"Stalwart-Context": make()})
    assert plan.status_code == 401


@pytest.mark.parametrize("priv", [..., "refunds"], ids=["no-priv-claim", "priv-a-string"])
def test_a_token_of_exp_and_ctx_alone_is_read_with_no_privileges_and_a_string_priv_is_401(signed, priv):
    claims = {"exp": int(time.time()) + 60, "ctx": {"customer": "c-208"}}
    if priv is not ...:
        claims["priv"] = priv  # present, but not a list: refused, never read as the privilege "refunds"
    token = {"Stalwart-Context": jwt.encode(claims, SECRET, algorithm="HS256")}
    browser = Browser(signed.url)
    t = thread()
    response = browser.request("POST", f"/threads/{t}/messages", json={"text": "search orders"}, headers=token)
    if priv is not ...:
        assert response.status_code == 401
        assert response.json() == {"error": "context_invalid", "detail": DETAIL_CONTEXT_INVALID}
        assert browser.request("GET", f"/threads/{t}/interrupts").status_code == 404
        return
    assert response.status_code == 200
    assert response.json()["steps"][0]["arguments"] == [{"name": "customer", "value": "c-208", "origin": "context"}]
    refund = browser.request("POST", f"/threads/{t}/messages", json={"text": "refund 40 on order 4411"},
                             headers=token).json()
    assert refund["refusals"][0]["rule"] == "privilege:refunds"


def test_a_privileged_tool_is_refused_without_the_privilege(signed):
    browser = Browser(signed.url)
    body = browser.request("POST", f"/threads/{thread()}/messages", json={"text": "refund 40 on order 4411"},
                           headers=header(ctx={"customer": "c-208"}, priv=["reports"])).json()
    assert body["waiting"] == []
    assert body["refusals"][0]["tool"] == "refund_card" and body["refusals"][0]["rule"] == "privilege:refunds"
    assert "privilege" in body["reply"]["text"]
    assert shop.charges() == []


def test_a_privileged_tool_pauses_for_a_person_with_it_and_the_resume_keeps_it(signed):
    browser = Browser(signed.url)
    t = thread()
    body = browser.request("POST", f"/threads/{t}/messages", json={"text": "refund 40 on order 4411"},
                           headers=header(priv=["refunds"])).json()
    assert body["refusals"] == []
    pause = body["waiting"][0]
    assert pause["tool"] == "refund_card" and pause["kind"] == "confirm" and pause["reasons"] == ["write"]
    # The answer carries no token of its own: the run kept its privileges.
    answered = browser.resume(t, pause, "approve").json()
    assert answered["steps"][0]["status"] == "succeeded"
    assert [c["kind"] for c in shop.charges("4411")] == ["refund"]


def test_without_a_secret_body_context_is_taken_unsigned_and_gives_no_privilege(unsigned):
    browser = Browser(unsigned.url)
    body = browser.say(thread(), "search orders", context={"customer": "c-208"}).json()
    assert body["steps"][0]["arguments"] == [{"name": "customer", "value": "c-208", "origin": "context"}]
    refused = browser.say(thread(), "refund 40 on order 4411", context={"priv": ["refunds"]}).json()
    assert refused["refusals"][0]["rule"] == "privilege:refunds"
    # A token this server cannot check is refused, not ignored.
    response = browser.request("POST", f"/threads/{thread()}/messages", json={"text": "search orders"},
                               headers=header(ctx={"customer": "c-208"}))
    assert response.status_code == 401
    assert "UNSIGNED" in unsigned.log()
