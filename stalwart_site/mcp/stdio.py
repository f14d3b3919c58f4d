"""``stalwart mcp AGENT.yaml [--agent NAME]``: the gateway over stdio, for
clients that launch servers as subprocesses (Claude Desktop, Claude Code,
Cursor, VS Code). Against the same database as ``stalwart serve`` (the data
folder or ``DATABASE_URL``), so its pauses are in the console; the caller is
``local`` (the client that launched it runs on this machine). It runs this
process's worker too (a call approved through the client runs here, under
its lease, and the sweep finds what a dead worker left)."""

from __future__ import annotations

import asyncio
import logging

from stalwart_site.mcp.server import Gateway

log = logging.getLogger("stalwart.mcp")


async def serve_stdio(agent: str, *, base_url: str) -> None:
    from mcp.server.stdio import stdio_server

    gateway = Gateway(agent, base_url=base_url)
    watcher = asyncio.ensure_future(gateway.watch())
    try:
        async with stdio_server() as (read, write):
            await gateway.server.run(read, write, gateway.server.create_initialization_options())
    finally:
        watcher.cancel()
