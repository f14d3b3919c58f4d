"""Tool paths that cannot be steered (issue 26), against a real `stalwart serve`
whose shop runs over its OpenAPI service, recording every request target it
is sent: answering "Which order?" with `..` or `.` is refused like any other
refusal (rule `arguments`, a sentence naming the argument, no tool call), and
the service sees nothing; the right answer reaches exactly its path."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from catalogue.check import SENTENCE_ARGUMENTS
from tests.support.logging_http import LoggingShop
from tests.support.server import Browser, Server

pytestmark = pytest.mark.server


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LoggingShop, Server]]:
    folder = tmp_path_factory.mktemp("paths")
    (folder / "data").mkdir()
    with LoggingShop() as service, Server(folder / "data", agent_file=service.agent_folder(folder / "agent")) as s:
        yield service, s


@pytest.fixture
def browser(shop: tuple[LoggingShop, Server]) -> Iterator[Browser]:
    b = Browser(shop[1].url)
    yield b
    b.close()


def ask_then_answer(browser: Browser, turn: str, answer: str) -> dict:
    thread = f"p-{uuid.uuid4().hex[:8]}"
    asked = browser.say(thread, turn).json()
    pause = asked["waiting"][0]
    assert (pause["kind"], pause["question"]) == ("ask", "Which order?"), asked
    response = browser.resume(thread, pause, "answer", answer={"kind": "open", "text": answer})
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.parametrize("answer", ["..", ".", "4411/../../inbox"])
@pytest.mark.parametrize(("turn", "tool"), [("show the order", "get_order"), ("charge 40 to the order", "charge_card")])
def test_an_answer_that_would_steer_the_call_is_refused_and_nothing_is_sent(shop, browser, turn, tool, answer):
    service, _ = shop
    service.seen.clear()
    body = ask_then_answer(browser, turn, answer)
    refusal = body["refusals"][0]
    assert (refusal["tool"], refusal["rule"]) == (tool, "arguments")
    detail = "order_id: " + ("a '/' would send the call to another address" if "/" in answer
                             else f"'{answer}' would send the call to another address")
    assert refusal["sentence"] == SENTENCE_ARGUMENTS.format(tool=tool.replace("_", " "), detail=detail)  # in words
    assert body["waiting"] == []  # not even a write's confirm: the check refused it first
    assert service.seen == []  # the shop's service never heard of it


@pytest.mark.parametrize(("turn", "target"), [("show the order", ("GET", "/orders/4411"))])
def test_the_twin_the_right_answer_reaches_exactly_its_path(shop, browser, turn, target):
    service, _ = shop
    service.seen.clear()
    body = ask_then_answer(browser, turn, "4411")
    assert body["refusals"] == [] and "visa-0019" in body["reply"]["text"]
    assert service.seen == [target]


def test_a_path_value_that_needs_encoding_reaches_its_own_segment(shop, browser):
    service, _ = shop
    service.seen.clear()
    body = ask_then_answer(browser, "show the order", "%2e%2e")
    # Not an order the shop has: it says so (its 404), having been asked at the right path.
    assert body["refusals"] == []
    assert service.seen == [("GET", "/orders/%252e%252e")]


def test_the_service_log_is_what_the_shop_was_sent(shop, tmp_path: Path):
    # The recorder itself: a request it is sent is a request it records, raw.
    import httpx

    service, _ = shop
    service.seen.clear()
    httpx.get(f"{service.url}/orders/..%2F", timeout=5)
    assert service.seen == [("GET", "/orders/..%2F")]
