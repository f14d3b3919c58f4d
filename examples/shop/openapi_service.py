"""The example shop as a small HTTP service with its OpenAPI document (docs/getting-started.md, "The commands").

Standard library only (``ThreadingHTTPServer``): each operation calls the
same function of ``examples/shop/tools.py``, so the state is the same
``shop.db`` in ``STALWART_DATA_DIR``. ``GET /openapi.json`` answers the
document with ``servers[0].url`` set to where this server listens.

Answers: 200 with the tool's JSON; 404/422 for a call the shop refuses before
any effect (``ShopError``); 500 for a tool that fails (the ``fail`` fault);
and for a lost reply (the ``lose_reply`` fault, a ``TimeoutError`` after the
effect) the connection is closed without an answer, as a real lost reply is.

    python -m examples.shop.openapi_service --port 8701
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from examples.shop import tools as shop

DEFAULT_PORT = 8701
_ID = {"type": "string", "description": "The order's number, e.g. 4411."}
_MONEY_BODY = {
    "required": True,
    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Money"}}},
}


def _json(ref: str) -> dict[str, Any]:
    return {"200": {"description": "OK", "content": {"application/json": {"schema": {"$ref": ref}}}}}


def openapi_document(base_url: str = f"http://127.0.0.1:{DEFAULT_PORT}") -> dict[str, Any]:
    """The shop's OpenAPI 3.1 document; its declarations match agent.yaml."""
    order_param = {"$ref": "#/components/parameters/OrderId"}
    idem = {"name": "Idempotency-Key", "in": "header", "required": False, "schema": {"type": "string"}}
    return {
        "openapi": "3.1.0",
        "info": {"title": "Example shop", "version": "1.0.0"},
        "servers": [{"url": base_url}],
        "paths": {
            "/orders": {"get": {
                "operationId": "search_orders", "summary": "Search a customer's orders.",
                "parameters": [{"name": "customer", "in": "query", "required": True, "schema": {"type": "string"}}],
                "responses": _json("#/components/schemas/OrderList"),
            }},
            "/orders/{order_id}": {"parameters": [order_param], "get": {
                "operationId": "get_order", "summary": "Show an order: its customer, card, total and status.",
                "responses": _json("#/components/schemas/Order"),
            }},
            "/orders/{order_id}/charge": {"parameters": [order_param], "post": {
                "operationId": "charge_card", "summary": "Charge an order's card.",
                "parameters": [idem], "requestBody": _MONEY_BODY,
                "x-stalwart-idempotency-key": "Idempotency-Key",
                "x-stalwart": {"compensation": {"tool": "refund_card", "arguments": {
                    "order_id": "$args.order_id", "amount": "$args.amount"}}},
                "responses": _json("#/components/schemas/Charge"),
            }},
            "/orders/{order_id}/refund": {"parameters": [order_param], "post": {
                "operationId": "refund_card", "summary": "Refund an order's card.",
                "parameters": [idem], "requestBody": _MONEY_BODY,
                "x-stalwart-idempotency-key": "Idempotency-Key",
                "x-stalwart": {"irreversible": True},
                "responses": _json("#/components/schemas/Refund"),
            }},
            "/orders/{order_id}/archive": {"parameters": [order_param], "post": {
                "operationId": "archive_order", "summary": "Archive an order.",
                "responses": {"200": {"description": "Archived"}},
            }},
            "/inbox": {"get": {
                "operationId": "read_inbox", "summary": "Read the shop's inbox (text from outside: untrusted).",
                "x-stalwart": {"reads_outside": True},
                "responses": _json("#/components/schemas/Inbox"),
            }},
            "/orders/{order_id}/receipt": {"parameters": [order_param], "post": {
                "operationId": "send_receipt", "summary": "Send an order's receipt by e-mail.",
                "requestBody": {"required": True, "content": {"application/json": {"schema": {
                    "type": "object", "required": ["email"], "properties": {"email": {"type": "string"}}}}}},
                "x-stalwart": {"egress": True, "irreversible": True},
                "responses": {"200": {"description": "Sent"}},
            }},
        },
        "components": {
            "parameters": {"OrderId": {"name": "order_id", "in": "path", "required": True, "schema": _ID}},
            "schemas": {
                "Money": {"type": "object", "required": ["amount"], "properties": {"amount": {"type": "number"}}},
                "Order": {"type": "object", "properties": {k: {"type": "string"} for k in
                          ("order_id", "customer", "card", "total", "status")}},
                "OrderList": {"type": "object", "properties": {"customer": {"type": "string"},
                              "orders": {"type": "array", "items": {"$ref": "#/components/schemas/Order"}}}},
                "Charge": {"type": "object", "properties": {"charge_id": {"type": "string"},
                           "order_id": {"type": "string"}, "amount": {"type": "number"}}},
                "Refund": {"type": "object", "properties": {"refund_id": {"type": "string"},
                           "order_id": {"type": "string"}, "amount": {"type": "number"}}},
                "Inbox": {"type": "object", "properties": {"messages": {"type": "array", "items": {"type": "object"}}}},
            },
        },
    }


Route = tuple[str, re.Pattern[str], Callable[[dict[str, str], dict[str, Any], dict[str, str]], Any]]


def _money_call(func: Callable[..., Any]) -> Callable[[dict[str, str], dict[str, Any], dict[str, str]], Any]:
    def call(path: dict[str, str], body: dict[str, Any], headers: dict[str, str]) -> Any:
        return func(path["order_id"], body.get("amount"), idempotency_key=headers.get("idempotency-key"))
    return call


ROUTES: list[Route] = [
    ("GET", re.compile(r"^/orders$"), lambda p, b, h: shop.search_orders(p["customer"])),
    ("GET", re.compile(r"^/orders/(?P<order_id>[^/]+)$"), lambda p, b, h: shop.get_order(p["order_id"])),
    ("POST", re.compile(r"^/orders/(?P<order_id>[^/]+)/charge$"), _money_call(shop.charge_card)),
    ("POST", re.compile(r"^/orders/(?P<order_id>[^/]+)/refund$"), _money_call(shop.refund_card)),
    ("POST", re.compile(r"^/orders/(?P<order_id>[^/]+)/archive$"), lambda p, b, h: shop.archive_order(p["order_id"])),
    ("GET", re.compile(r"^/inbox$"), lambda p, b, h: shop.read_inbox()),
    ("POST", re.compile(r"^/orders/(?P<order_id>[^/]+)/receipt$"),
     lambda p, b, h: shop.send_receipt(p["order_id"], str(b.get("email", "")))),
]


class ShopHandler(BaseHTTPRequestHandler):
    server_version = "StalwartShop/1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet in tests and demos
        pass

    def _answer(self, status: int, payload: Any) -> None:
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _handle(self, method: str) -> None:
        url = urlsplit(self.path)
        if method == "GET" and url.path == "/openapi.json":
            host = self.headers.get("Host") or f"127.0.0.1:{self.server.server_address[1]}"
            self._answer(200, openapi_document(f"http://{host}"))
            return
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}") if length else {}
        except json.JSONDecodeError:
            self._answer(400, {"error": "bad_request", "detail": "the body is not JSON"})
            return
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        headers = {k.lower(): v for k, v in self.headers.items()}
        for verb, pattern, call in ROUTES:  # noqa: B007 - the matched route is used after the loop
            match = pattern.match(url.path)
            if verb == method and match:
                break
        else:
            self._answer(404, {"error": "not_found", "detail": f"no route {method} {url.path}"})
            return
        try:
            result = call({**query, **match.groupdict()}, body if isinstance(body, dict) else {}, headers)
        except KeyError as exc:
            self._answer(422, {"error": "missing_argument", "detail": f"{exc.args[0]} is required"})
        except shop.ShopError as exc:
            status = 404 if "there is no order" in str(exc) else 422
            self._answer(status, {"error": "refused", "detail": str(exc)})
        except TimeoutError:
            # The effect happened and the reply is lost: close without answering.
            self.close_connection = True
            self.connection.shutdown(2)
        except Exception as exc:  # like any service: a failure it did not foresee is its 500
            self._answer(500, {"error": "failed", "detail": str(exc)})
        else:
            self._answer(200, result)

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")


def make_server(host: str = "127.0.0.1", port: int = DEFAULT_PORT) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer((host, port), ShopHandler)
    server.daemon_threads = True
    return server


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    parser.add_argument("--print-openapi", action="store_true", help="print the document and exit")
    args = parser.parse_args(argv)
    if args.print_openapi:
        print(json.dumps(openapi_document(f"http://{args.host}:{args.port}"), indent=2))
        return 0
    server = make_server(args.host, args.port)
    print(f"shop OpenAPI service on http://{args.host}:{args.port}/openapi.json", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
