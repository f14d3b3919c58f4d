"""The ``mcp:`` binding: ``tools/call`` through the official ``mcp`` SDK (2.x).

Model: one client per server (its address or command, and the folder it
starts in), kept open and reused by every call, on one event loop that runs
in a background thread so the synchronous engine can call it. A server over
stdio is started by the SDK client with this process's environment (so
``STALWART_DATA_DIR`` and the fault switch reach it) in the agent file's
folder. Connecting negotiates the protocol: the SDK's ``Client`` probes
``server/discover`` (2026-07-28) and falls back to the ``initialize``
handshake of a 2025-11-25 (or older) server. Before each call the server is
asked to answer (``ping``, or ``server/discover`` where 2026-07-28 removed
``ping``); a server that died is started again, so the call goes to a live one.

Transport outcomes (docs/agent-file.md, "Bindings"):

- ``ok``: a result that is not an error; ``structuredContent`` if given, else
  the text content (parsed as JSON where it is JSON).
- ``error``: the tool answered ``isError``.
- ``refused``: the server could not be started or reached: nothing was sent.
- ``timeout``: sent, and no answer within the bound (a hung call).
- ``no_response``: sent, and the session broke before an answer.

A hung call leaves the session usable (the SDK tells the server with
``notifications/cancelled``, which stops the handler of a 2.x server); a
broken one is dropped and the next call starts the server again.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import os
import shlex
import sys
import threading
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from catalogue.bindings.outcome import Outcome
from catalogue.tools import Tool

if TYPE_CHECKING:
    from mcp import Client
    from mcp.types import CallToolResult

START_FAILED = "the MCP server {server!r} could not be started: {reason}"
NO_ANSWER = "sent, and no answer within {timeout:g}s"
BROKEN = "sent, and the MCP session broke before an answer: {reason}"
NO_SERVER = "the tool's mcp binding names no server"

START_TIMEOUT = 20.0
PING_TIMEOUT = 5.0


EMPTY_COMMAND = "the MCP server command is empty"


def server_argv(command: str) -> list[str]:
    """The command's words; a bare ``python``/``python3`` is this interpreter.

    Why: a catalogue written on one machine names ``python server.py``; the
    interpreter that has the SDK installed is the one running Stalwart.
    """
    argv = shlex.split(command)
    if not argv:
        raise ValueError(EMPTY_COMMAND)
    if argv[0] in ("python", "python3"):
        argv[0] = sys.executable
    return argv


def is_http_address(server: str) -> bool:
    return server.startswith(("http://", "https://"))


@asynccontextmanager
async def connect(server: str, *, cwd: str | None = None) -> AsyncIterator[Client]:
    """A connected SDK ``Client``: streamable HTTP for an address, else the
    command over stdio (started in ``cwd``, its stderr discarded).

    Entering it negotiates the protocol version (``mode="auto"``, the SDK's
    default). The response cache is off: every listing is asked of the server.
    """
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    if is_http_address(server):
        async with Client(server, cache=None) as client:
            yield client
        return
    argv = server_argv(server)
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=dict(os.environ), cwd=cwd)
    with open(os.devnull, "w") as errlog:
        async with Client(stdio_client(params, errlog=errlog), cache=None) as client:
            yield client


async def probe(client: Client) -> None:
    """Ask for an answer that changes nothing: ``ping`` on a 2025-era session;
    2026-07-28 removed ``ping``, so there a ``server/discover`` instead."""
    from mcp.types.version import HANDSHAKE_PROTOCOL_VERSIONS

    if client.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS:
        await client.session.send_ping()
    else:
        await client.session.send_discover(client.protocol_version)


def _reason(exc: BaseException) -> str:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class _Connection:
    """One server's client, held open by its own task until stopped or broken."""

    def __init__(self, server: str, cwd: str | None) -> None:
        self.server = server
        self.cwd = cwd
        self.client: Client | None = None
        self.ready = asyncio.Event()
        self.done = asyncio.Event()
        self.stop = asyncio.Event()
        self.error: BaseException | None = None
        self.task: asyncio.Task[None] | None = None

    def live(self) -> Client | None:
        return self.client if not self.done.is_set() else None

    async def start(self, timeout: float) -> Client:
        self.task = asyncio.create_task(self._serve())
        waiters = [asyncio.create_task(self.ready.wait()), asyncio.create_task(self.done.wait())]
        finished, pending = await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        for w in pending:
            w.cancel()
        client = self.live()
        if client is None:  # it never answered, or exited as soon as it did
            await self.close()
            reason = _reason(self.error) if self.error else f"no answer within {timeout:g}s"
            raise ConnectionError(reason)
        return client

    async def _serve(self) -> None:
        try:
            async with connect(self.server, cwd=self.cwd) as client:
                self.client = client
                self.ready.set()
                await self.stop.wait()
        except BaseException as exc:  # a server that exits or cannot start ends here
            self.error = exc
        finally:
            self.client = None
            self.done.set()

    async def close(self) -> None:
        self.stop.set()
        if self.task is not None and not self.task.done():
            try:
                await asyncio.wait_for(asyncio.shield(self.task), 5.0)
            except (TimeoutError, asyncio.CancelledError):
                self.task.cancel()


class _Pool:
    """The background loop and the open sessions, keyed by server and folder."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.lock = threading.Lock()
        self.connections: dict[tuple[str, str | None], _Connection] = {}

    def run(self, coro: Any, timeout: float) -> Any:
        with self.lock:
            if self.loop is None or self.loop.is_closed():
                self.loop = asyncio.new_event_loop()
                threading.Thread(target=self.loop.run_forever, name="stalwart-mcp", daemon=True).start()
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    async def connection(self, server: str, cwd: str | None) -> tuple[_Connection, Client]:
        key = (server, cwd)
        conn = self.connections.get(key)
        client = conn.live() if conn is not None else None
        if conn is not None and client is not None:
            try:  # a server that died between calls is found here, before anything is sent
                await asyncio.wait_for(probe(client), PING_TIMEOUT)
                return conn, client
            except BaseException:
                await conn.close()
        conn = _Connection(server, cwd)
        self.connections[key] = conn
        return conn, await conn.start(START_TIMEOUT)

    async def call(self, server: str, cwd: str | None, name: str, arguments: Mapping[str, Any],
                   timeout: float) -> Outcome:
        try:
            conn, client = await self.connection(server, cwd)
        except (ConnectionError, OSError, ValueError) as exc:
            return Outcome("refused", error=START_FAILED.format(server=server, reason=exc))
        from mcp import MCPError
        from mcp.types import REQUEST_TIMEOUT

        try:
            result = await asyncio.wait_for(
                client.call_tool(name, dict(arguments), read_timeout_seconds=timeout), timeout + 1.0)
        except TimeoutError:
            return Outcome("timeout", error=NO_ANSWER.format(timeout=timeout))
        except MCPError as exc:
            if exc.code == REQUEST_TIMEOUT:  # the SDK's bound (it sends notifications/cancelled)
                return Outcome("timeout", error=NO_ANSWER.format(timeout=timeout))
            await conn.close()
            return Outcome("no_response", error=BROKEN.format(reason=_reason(exc)))
        except BaseException as exc:
            if isinstance(exc, asyncio.CancelledError):
                raise
            await conn.close()
            return Outcome("no_response", error=BROKEN.format(reason=_reason(exc)))
        return _outcome(result)

    async def close_all(self) -> None:
        conns, self.connections = list(self.connections.values()), {}
        for conn in conns:
            await conn.close()

    def shutdown(self) -> None:
        if self.loop is not None and self.loop.is_running():
            try:
                self.run(self.close_all(), 10.0)
            except Exception:  # at exit, a server that will not close is left to the OS
                pass


def _outcome(result: CallToolResult) -> Outcome:
    from mcp.types import TextContent

    texts = [c.text for c in result.content if isinstance(c, TextContent)]
    if result.is_error:
        return Outcome("error", error="\n".join(texts) or "the tool answered an error")
    if result.structured_content is not None:
        return Outcome("ok", result=result.structured_content)
    if len(texts) == 1:
        try:
            return Outcome("ok", result=json.loads(texts[0]))
        except ValueError:
            return Outcome("ok", result=texts[0])
    return Outcome("ok", result=texts or None)


_POOL = _Pool()
atexit.register(_POOL.shutdown)


def invoke_mcp(tool: Tool, arguments: Mapping[str, Any], *, timeout: float = 30.0,
               base_dir: str | None = None) -> Outcome:
    spec = tool.binding["mcp"]
    server = str(spec.get("server") or "") if isinstance(spec, Mapping) else str(spec)
    if not server:
        return Outcome("refused", error=NO_SERVER)
    name = str(spec.get("tool") or tool.name) if isinstance(spec, Mapping) else tool.name
    cwd = str(Path(base_dir).resolve()) if base_dir else None
    # The outer bound covers a server's start and the ping as well as the call.
    try:
        outcome: Outcome = _POOL.run(_POOL.call(server, cwd, name, arguments, timeout),
                                     timeout + START_TIMEOUT + PING_TIMEOUT + 5.0)
    except TimeoutError:
        return Outcome("timeout", error=NO_ANSWER.format(timeout=timeout))
    return outcome


def close_sessions() -> None:
    """Close every open session (their stdio servers exit); the next call reopens."""
    _POOL.shutdown()
