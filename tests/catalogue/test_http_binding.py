from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest

from catalogue.bindings import http as binding
from catalogue.bindings import invoke
from catalogue.importers.openapi import import_openapi
from catalogue.tools import Tool
from examples.shop import tools as shop
from tests.catalogue.conftest import free_port
from tests.support.logging_http import LoggingShop


def _shop_tools(base_url: str) -> dict[str, Tool]:
    import httpx

    document = httpx.get(f"{base_url}/openapi.json").json()
    return {t.name: t for t in import_openapi(document)}


def test_reads_and_a_charge_with_its_idempotency_header(shop_http: str) -> None:
    tools = _shop_tools(shop_http)
    assert tools["get_order"].binding["http"]["base_url"] == shop_http
    assert invoke(tools["get_order"], {"order_id": "4411"}).result["status"] == "unpaid"
    found = invoke(tools["search_orders"], {"customer": "c-208"})
    assert [o["order_id"] for o in found.result["orders"]] == ["4411", "4412"]
    charge = invoke(tools["charge_card"], {"order_id": "4411", "amount": 40}, idempotency_key="key-1")
    assert charge.ok and charge.result == {"charge_id": "ch-4411", "order_id": "4411", "amount": 40}
    replay = invoke(tools["charge_card"], {"order_id": "4411", "amount": 40}, idempotency_key="key-1")
    assert replay.result == charge.result
    assert [c["idempotency_key"] for c in shop.charges("4411")] == ["key-1"]
    receipt = invoke(tools["send_receipt"], {"order_id": "4411", "email": "a@example.test"})
    assert receipt.result == {"order_id": "4411", "email": "a@example.test", "sent": True}


def test_a_refusal_is_refused_and_a_missing_argument_sends_nothing(shop_http: str) -> None:
    tools = _shop_tools(shop_http)
    unknown = invoke(tools["get_order"], {"order_id": "1"})
    assert unknown.transport == "refused" and "there is no order 1" in unknown.error
    missing = invoke(tools["charge_card"], {"order_id": "4411"})
    assert missing.transport == "refused" and missing.error == binding.MISSING_ARGUMENT.format(name="amount")


@pytest.mark.parametrize(("fault", "transport"), [
    ("charge_card=fail", "no_response"),       # a 5xx: ambiguous (docs/agent-file.md, "Bindings")
    ("charge_card=lose_reply", "no_response"),  # the effect applied, the connection dropped
])
def test_faults_are_ambiguous(shop_http: str, monkeypatch: pytest.MonkeyPatch, fault: str, transport: str) -> None:
    tools = _shop_tools(shop_http)
    monkeypatch.setenv("STALWART_SHOP_FAULTS", fault)
    outcome = invoke(tools["charge_card"], {"order_id": "4411", "amount": 40}, idempotency_key="k")
    assert outcome.transport == transport and outcome.ambiguous


def test_nothing_listening_is_refused(shop_http: str) -> None:
    tool = _shop_tools(shop_http)["get_order"]
    moved = Tool(**{**tool.to_json(), "binding": {"http": {**tool.binding["http"],
                                                            "base_url": f"http://127.0.0.1:{free_port()}"}}})
    assert invoke(moved, {"order_id": "4411"}).transport == "refused"


@pytest.fixture
def silent_server() -> Iterator[str]:
    """Accepts, reads, and never answers."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            held.append(conn)

    threading.Thread(target=accept, daemon=True).start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    listener.close()
    for conn in held:
        conn.close()


def test_no_answer_in_time_is_a_timeout(silent_server: str) -> None:
    tool = Tool(name="charge_card", binding={"http": {"base_url": silent_server, "method": "POST",
                                                      "path": "/charge", "arguments": {}}})
    outcome = invoke(tool, {"amount": 1}, timeout=0.5)
    assert outcome.transport == "timeout" and outcome.ambiguous


def test_where_each_argument_goes() -> None:
    tool = Tool(name="create_item", input_schema={"type": "object", "properties": {}, "required": ["id"]},
                binding={"http": {"base_url": "http://x.test/v1", "method": "POST", "path": "/items/{id}",
                                  "idempotency_header": "Idempotency-Key", "arguments": {
                                      "id": {"in": "path", "name": "id"}, "q": {"in": "query", "name": "q"},
                                      "tenant": {"in": "header", "name": "X-Tenant"},
                                      "title": {"in": "body", "name": "title"}}}})
    request = binding.build_request(tool, {"id": "a b?", "q": True, "tenant": "t1", "title": "T"},
                                    idempotency_key="k-9")
    assert str(request.url) == "http://x.test/v1/items/a%20b%3F?q=true"
    assert request.headers["X-Tenant"] == "t1" and request.headers["Idempotency-Key"] == "k-9"
    assert request.content == b'{"title":"T"}'


# Tool paths that cannot be steered (issue 26), against the shop's OpenAPI
# service recording every request target it is sent.


def test_httpx_removes_dot_segments_and_keeps_encoded_ones() -> None:
    # Why `.` and `..` are refused rather than encoded: httpx (RFC 3986)
    # resolves them before sending, and many servers decode %2E and %2F.
    import httpx

    assert httpx.Request("GET", "http://h/orders/../refund").url.raw_path == b"/refund"
    assert httpx.Request("GET", "http://h/orders/./charge").url.raw_path == b"/orders/charge"
    assert httpx.Request("GET", "http://h/orders/%2E%2E/refund").url.raw_path == b"/orders/%2E%2E/refund"


@pytest.fixture
def logging_shop() -> Iterator[LoggingShop]:
    with LoggingShop() as service:
        yield service


@pytest.mark.parametrize(("tool", "arguments"), [
    ("get_order", {"order_id": ".."}),
    ("get_order", {"order_id": "."}),
    ("get_order", {"order_id": ""}),
    ("get_order", {"order_id": "4411/../../inbox"}),
    ("refund_card", {"order_id": "..", "amount": 40}),
    ("search_orders", {"customer": ".."}),
])
def test_a_value_that_would_steer_the_call_sends_nothing(logging_shop: LoggingShop, tool: str,
                                                         arguments: dict[str, object]) -> None:
    tools = _shop_tools(logging_shop.url)
    outcome = invoke(tools[tool], arguments, idempotency_key="k-1")
    assert outcome.transport == "refused" and "would send the call to another address" in outcome.error
    assert logging_shop.seen == []  # the service was never called


@pytest.mark.parametrize(("value", "target"), [
    ("4411", "/orders/4411"),
    ("..4411", "/orders/..4411"),
    ("%2e%2e", "/orders/%252e%252e"),
    ("a b?c=d#e", "/orders/a%20b%3Fc%3Dd%23e"),
    ("pedido-é", "/orders/pedido-%C3%A9"),
])
def test_the_twin_every_other_value_reaches_the_operations_own_path(logging_shop: LoggingShop, value: str,
                                                                     target: str) -> None:
    outcome = invoke(_shop_tools(logging_shop.url)["get_order"], {"order_id": value})
    assert outcome.transport in ("ok", "refused")  # the shop knows 4411 only; either way it was asked
    assert logging_shop.seen == [("GET", target)]


def test_a_catalogue_whose_own_path_would_be_normalised_sends_nothing(logging_shop: LoggingShop) -> None:
    tool = _shop_tools(logging_shop.url)["get_order"]
    moved = Tool(**{**tool.to_json(), "binding": {"http": {**tool.binding["http"], "path": "/x/../orders/{order_id}"}}})
    outcome = invoke(moved, {"order_id": "4411"})
    assert outcome.transport == "refused" and "operation's own path" in outcome.error
    assert logging_shop.seen == []
