"""The example shop as an MCP server (docs/mcp.md, "An MCP server in front of an MCP server"), on the
official ``mcp`` SDK (2.x).

The same functions of ``examples/shop/tools.py`` (state in ``shop.db`` in
``STALWART_DATA_DIR``), each with the annotations and ``_meta`` declarations
that match ``examples/shop/agent.yaml``: ``readOnlyHint`` for the reads,
``destructiveHint`` for the writes, ``idempotentHint`` for charge and refund
(they take an ``idempotency_key``), and ``compensation``, ``irreversible``,
``egress``, ``reads_outside`` under ``_meta``.

A lost reply (the ``lose_reply`` fault: a ``TimeoutError`` after the effect)
is shown as a reply that never comes: the call hangs, so a client's bounded
wait is what ends it, as with a real lost reply. (A 2.x client that gives up
sends ``notifications/cancelled``, which ends the hanging handler here; the
effect has happened already.)

It serves both protocol eras the SDK knows: a 2025-11-25 client's
``initialize`` handshake and a 2026-07-28 client's ``server/discover``.

    python examples/shop/mcp_server.py                 # stdio
    python examples/shop/mcp_server.py --http 8702     # streamable HTTP at /mcp
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `examples.shop` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

from examples.shop import tools as shop

READ = ToolAnnotations(readOnlyHint=True)
WRITE = ToolAnnotations(readOnlyHint=False, destructiveHint=True)
IDEMPOTENT_WRITE = ToolAnnotations(readOnlyHint=False, destructiveHint=True, idempotentHint=True)
_LOST_REPLY_SECONDS = 3600.0


def build_server() -> MCPServer:
    server = MCPServer("stalwart-shop")

    async def run(func: Callable[..., dict[str, Any]], *args: Any, **kwargs: Any) -> dict[str, Any]:
        try:
            return await asyncio.to_thread(func, *args, **kwargs)
        except TimeoutError:
            await asyncio.sleep(_LOST_REPLY_SECONDS)  # the effect happened; the reply never comes
            raise
        except Exception as exc:
            # The shop's failures are written for the person reading them ("there is
            # no order 1"); 2.x withholds the text of anything but a ToolError.
            raise ToolError(str(exc)) from exc

    @server.tool(annotations=READ, structured_output=True)
    async def get_order(order_id: str) -> dict[str, Any]:
        """Show an order: its customer, card, total and status."""
        return await run(shop.get_order, order_id)

    @server.tool(annotations=READ, structured_output=True)
    async def search_orders(customer: str) -> dict[str, Any]:
        """Search a customer's orders."""
        return await run(shop.search_orders, customer)

    @server.tool(annotations=IDEMPOTENT_WRITE, structured_output=True, meta={
        "compensation": {"tool": "refund_card", "arguments": {"order_id": "$args.order_id", "amount": "$args.amount"}},
        "idempotency": {"argument": "idempotency_key"},
    })
    async def charge_card(order_id: str, amount: float, idempotency_key: str | None = None) -> dict[str, Any]:
        """Charge an order's card."""
        return await run(shop.charge_card, order_id, amount, idempotency_key=idempotency_key)

    @server.tool(annotations=IDEMPOTENT_WRITE, structured_output=True, meta={
        "irreversible": True, "idempotency": {"argument": "idempotency_key"},
    })
    async def refund_card(order_id: str, amount: float, idempotency_key: str | None = None) -> dict[str, Any]:
        """Refund an order's card."""
        return await run(shop.refund_card, order_id, amount, idempotency_key=idempotency_key)

    # Undeclared on purpose, as in examples/shop/agent.yaml: unmarked, so a write that verify warns about.
    @server.tool(structured_output=False)
    async def archive_order(order_id: str) -> str:
        """Archive an order."""
        import json

        return json.dumps(await run(shop.archive_order, order_id))

    @server.tool(annotations=READ, structured_output=True, meta={"reads_outside": True})
    async def read_inbox() -> dict[str, Any]:
        """Read the shop's inbox (text from outside: untrusted)."""
        return await run(shop.read_inbox)

    @server.tool(annotations=WRITE, structured_output=False, meta={"egress": True, "irreversible": True})
    async def send_receipt(order_id: str, email: str) -> str:
        """Send an order's receipt by e-mail."""
        import json

        return json.dumps(await run(shop.send_receipt, order_id, email))

    return server


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="The example shop as an MCP server.")
    parser.add_argument("--http", type=int, metavar="PORT", help="serve streamable HTTP on this port")
    parser.add_argument("--host", default="127.0.0.1")
    args = parser.parse_args(argv)
    if args.http:
        build_server().run(transport="streamable-http", host=args.host, port=args.http)
    else:
        build_server().run(transport="stdio")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
