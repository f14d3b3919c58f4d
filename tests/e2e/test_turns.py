"""The example shop's turns, in both languages, over a real server (docs/getting-started.md)."""

from __future__ import annotations

import uuid

import pytest

from tests.support.server import Browser, Server

pytestmark = pytest.mark.server


@pytest.fixture
def server(shared_server: Server) -> Server:
    """One server for the module's tests: each opens threads of its own (a random id)."""
    return shared_server


SPEC_TURNS = [
    ("en", "show order 4411", "get_order", {"order_id": "4411"}),
    ("en", "charge 40 to order 4411", "charge_card", {"amount": 40, "order_id": "4411"}),
    ("en", "refund 40 on order 4411", "refund_card", {"amount": 40, "order_id": "4411"}),
    ("en", "search orders for customer c-208", "search_orders", {"customer": "c-208"}),
    ("en", "archive order 4412", "archive_order", {"order_id": "4412"}),
    ("pt-BR", "mostre o pedido 4411", "get_order", {"order_id": "4411"}),
    ("pt-BR", "cobre 40 no pedido 4411", "charge_card", {"amount": 40, "order_id": "4411"}),
    ("pt-BR", "estorne 40 do pedido 4411", "refund_card", {"amount": 40, "order_id": "4411"}),
    ("pt-BR", "busque os pedidos do cliente c-208", "search_orders", {"customer": "c-208"}),
]


def test_the_spec_turns_plan_as_expected_in_both_languages(server):
    browser = Browser(server.url)
    for language, text, tool, arguments in SPEC_TURNS:
        plan = browser.request("POST", "/plan", json={"text": text, "language": language}).json()
        assert plan["read"] is True and plan["language"] == language, text
        assert [c["tool"] for c in plan["calls"]] == [tool], text
        got = {a["name"]: a["value"] for a in plan["calls"][0]["arguments"]}
        assert got == arguments and plan["asks"] == [], text
        assert {a["origin"] for a in plan["calls"][0]["arguments"]} == {"typed"}, text
    browser.close()


@pytest.mark.parametrize(("language", "text", "answer"), [("en", "show order", "4411"),
                                                           ("pt-BR", "mostre o pedido", "4411")])
def test_show_order_asks_for_the_order_and_the_answer_carries_the_run_on(server, language, text, answer):
    browser = Browser(server.url)
    thread = f"ask-{uuid.uuid4().hex[:8]}"
    asked = browser.say(thread, text, language=language).json()
    pause = asked["waiting"][0]
    assert pause["kind"] == "ask" and pause["argument"] == "order_id" and pause["question"]
    answered = browser.resume(thread, pause, "answer", answer={"kind": "open", "text": answer})
    assert answered.status_code == 200
    body = answered.json()
    assert "visa-0019" in body["reply"]["text"] and body["waiting"] == []
    wrong = browser.resume(thread, pause, "answer", answer={"kind": "open", "text": answer})
    assert wrong.status_code == 409
    browser.close()


def test_an_answer_of_the_wrong_kind_is_422_invalid_answer(server):
    browser = Browser(server.url)
    thread = f"ask-{uuid.uuid4().hex[:8]}"
    pause = browser.say(thread, "show order").json()["waiting"][0]
    response = browser.resume(thread, pause, "answer", answer={"kind": "choice", "index": 7})
    assert response.status_code == 422 and response.json()["error"] == "invalid_answer"
    browser.close()


@pytest.mark.parametrize("text", ["", "   ", "x" * 4000, "🙂🙂🙂", "show\x00order\x07 4411", "показать order 4411",
                                  "charge 1,234.50 to order 4411", "cobre 1.234,50 no pedido 4411"])
def test_odd_turns_are_planned_or_unread_never_an_error(server, text):
    browser = Browser(server.url)
    for language in ("en", "pt-BR"):
        response = browser.say(f"odd-{uuid.uuid4().hex[:8]}", text, language=language)
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["reply"]["text"]
        assert all(s["tool"] for s in body["steps"])
    browser.close()
