"""An MCP client in a process of its own, so a test can SIGKILL it mid-call:
``python -m tests.conformance.doors.mcp_client URL NAME TOOL ARGUMENTS_JSON``.

The MCP SDK's ``ClientSession`` (the 2025-11-25 handshake era) named ``NAME``
calls ``TOOL`` with a progress token; each progress notification is printed
as ``PROGRESS <message>`` (the gateway's names the pause), then the result as
``RESULT <structuredContent as JSON>``, each line flushed."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any


async def main(url: str, name: str, tool: str, arguments: dict[str, Any]) -> None:
    from tests.support.mcp import mcp_session

    async def noted(done: float, total: float | None, message: str | None) -> None:
        print(f"PROGRESS {message or ''}", flush=True)

    async with mcp_session(url, name=name) as session:
        result = await session.call_tool(tool, arguments, progress_callback=noted)
    print(f"RESULT {json.dumps(result.structured_content)}", flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])))
