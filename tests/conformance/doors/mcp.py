"""The MCP doors: the MCP SDK's own clients over streamable HTTP (the
2025-11-25 handshake era with ``ClientSession``, and the current 2026-07-28
protocol with ``mcp.Client``) and over stdio (``stalwart mcp``).

Nothing an MCP client can call answers a pause (docs/mcp.md): a write waits
for a person in the console. So ``answer`` here is the door's real answer
path: a staff member answers in the console, then the client makes the
identical call again, as docs/mcp.md tells a client that was answered
``waiting``, and learns the outcome from it."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx2
import mcp.types as types

from tests.support.mcp import mcp_session, mcp_stdio

from .base import CHARGE, Answer, Door, Pause, unique
from .estate import Estate
from .http import console_answer


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


def outcome_of(result: Any) -> str:
    """A tools/call result's word for what became of the write."""
    body = result.structured_content or {}
    if body.get("charge_id"):
        return "done"
    return str(body.get("status", ""))


class McpDoor(Door):
    id = "mcp-2025-11-25"
    via = "console"
    answered_in_console = True
    shows_token = False

    def __init__(self, estate: Estate) -> None:
        self.estate = estate
        self.me = unique("client")  # the client's name: its own session, so its own thread
        estate.server()  # the console that answers its pauses, on the run store it writes

    def url(self, worker: int = 0, path: str = "/mcp/") -> str:
        return self.estate.worker(worker).url + path

    async def session_call(self, url: str, tool: str, arguments: dict[str, Any], name: str) -> Any:
        async with mcp_session(url, name=name) as session:
            return await session.call_tool(tool, arguments)

    def call(self, tool: str = "charge_card", arguments: dict[str, Any] | None = None, *, worker: int = 0,
             name: str | None = None, server: str | None = None) -> Any:
        """One tools/call from a new client connection that names itself ``name`` (this door's by default)."""
        url = self.estate.server(server).url + "/mcp/" if server else self.url(worker)
        return run(self.session_call(url, tool, CHARGE if arguments is None else arguments, name or self.me))

    def propose(self) -> Pause:
        result = self.call()
        body = result.structured_content
        assert not result.is_error and body["status"] == "waiting", body
        return Pause(id=body["pause"]["id"], token="", thread=self.me, shown=body)

    def answer(self, pause: Pause, decision: str, *, token: str | None = None, worker: int = 0) -> Answer:
        said = self.estate.staff("main" if worker == 0 else "second").answer(pause.id, decision, token=token)
        console = console_answer(said)
        if not console.taken:
            return console
        again = self.call(worker=worker)  # the identical call: the outcome, sent nothing
        return Answer(taken=True, outcome=outcome_of(again), body=again.structured_content, extra={"console": said})

    def rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        return self.estate.rows(sql, params)

    def console_get(self, path: str) -> tuple[int, str]:
        response = self.estate.staff().http.get(path)
        return response.status_code, response.text


class Mcp2026Door(McpDoor):
    """The current protocol: ``mcp.Client`` negotiates 2026-07-28 (``server/discover``, no session)."""

    id = "mcp-2026-07-28"

    async def session_call(self, url: str, tool: str, arguments: dict[str, Any], name: str) -> Any:
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        async with httpx2.AsyncClient(timeout=httpx2.Timeout(30, read=120)) as http:
            async with Client(streamable_http_client(url, http_client=http),
                              client_info=types.Implementation(name=name, version="1")) as client:
                assert client.protocol_version == "2026-07-28", client.protocol_version
                return await client.call_tool(tool, arguments)


class McpStdioDoor(McpDoor):
    """``stalwart mcp AGENT_FILE`` as a client launches it, one subprocess per connection, on the same store."""

    id = "mcp-stdio"
    workers = 1

    def call(self, tool: str = "charge_card", arguments: dict[str, Any] | None = None, *, worker: int = 0,
             name: str | None = None, server: str | None = None) -> Any:
        async def scenario() -> Any:
            async with mcp_stdio(self.estate.agent_file, self.estate.data_dir, name=name or self.me) as session:
                return await session.call_tool(tool, CHARGE if arguments is None else arguments)

        return run(scenario())
