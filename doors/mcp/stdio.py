"""``stalwart mcp AGENT.yaml [--agent NAME]``: the gateway over stdio, for
clients that launch servers as subprocesses (Claude Desktop, Claude Code,
Cursor, VS Code). Against the same database as ``stalwart serve`` (the data
folder or ``DATABASE_URL``), so its pauses are in the console; the caller is
``local`` (the client that launched it runs on this machine). It runs this
process's worker too (a call approved through the client runs here, under
its lease, and the sweep finds what a dead worker left).

Between the server and the stdio transport sits ``_sent``: a call's outcome
counts as delivered once its result was handed to the transport's writer
(``Gateway.unsent`` names the call's journal row by its request id); a client
that died first closed the pipe, and the same call later gets the result.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import anyio

from doors.mcp import calls
from doors.mcp.server import Gateway, db

log = logging.getLogger("stalwart.mcp")


async def serve_stdio(agent: str, *, base_url: str) -> None:
    from mcp.server.stdio import stdio_server

    gateway = Gateway(agent, base_url=base_url)
    watcher = asyncio.ensure_future(gateway.watch())
    try:
        async with stdio_server() as (read, write):
            outgoing, sending = anyio.create_memory_object_stream[Any](0)
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(_sent, gateway, sending, write)
                async with outgoing:
                    await gateway.server.run(read, outgoing, gateway.server.create_initialization_options())
    finally:
        watcher.cancel()


async def _sent(gateway: Gateway, sending: Any, write: Any) -> None:
    """Hand each message the server sends to the transport; a call's result handed over is delivered."""
    async with sending, write:
        async for message in sending:
            await write.send(message)
            sent = getattr(message.message, "root", message.message)
            answers = getattr(sent, "method", None) is None  # a response, not a request of the server's own
            request_id = getattr(sent, "id", None) if answers else None
            replay_id = gateway.unsent.pop(request_id, None) if request_id is not None else None
            if replay_id is not None:
                await db(calls.delivered)(replay_id)
