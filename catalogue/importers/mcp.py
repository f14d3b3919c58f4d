"""MCP tool lists into catalogue tools (docs/agent-file.md, "MCP" under "Importers").

Sources: a saved ``tools/list`` answer (the bare ``{"tools": [...]}`` result
or the whole JSON-RPC response), or a live server listed with the official
``mcp`` SDK (2.x) over stdio (``"python server.py"``) or streamable HTTP
(``http://host/mcp``), whichever protocol era it speaks (the SDK's client
negotiates 2026-07-28 or falls back to a 2025-11-25 handshake). A live listing
is bounded in time: a server that exits at once or never answers is a
``SourceError``, never a hang.

A live listing is read as the server sent it, not through the SDK's ``Tool``
model: 2.x drops every key its models do not know, and declarations may sit in
``annotations`` under their catalogue names (docs/agent-file.md,
"Declarations"). The SDK still checks the answer against the negotiated
protocol version's schema.

Kind, never guessed toward read: a tool reads only where
``annotations.readOnlyHint`` is true (or ``_meta.read_only``), and
``destructiveHint: true`` makes it a write whatever else it says; unmarked is a
write. ``idempotentHint: true`` makes it retry-safe (``{"idempotent": true}``),
unless ``_meta.idempotency`` names the argument that carries a key.
Declarations come from ``annotations`` and ``_meta`` under their catalogue
names (and from a ``_meta.stalwart`` object, for servers that namespace them).

The binding: ``{"mcp": {"server": ADDRESS_OR_COMMAND, "tool": NAME}}``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from catalogue.bindings.mcp import connect, is_http_address, server_argv
from catalogue.importers import SourceError, declarations_from
from catalogue.tools import Tool

NOT_MCP = "not an MCP tools/list answer: it has no 'tools' list"
TOOL_NOT_OBJECT = "a tool must be an object"
TOOL_NO_NAME = "a tool must have a non-empty 'name'"
TOOL_BAD_SCHEMA = "'inputSchema' must be an object"
DUPLICATE_NAME = "two tools are named {name!r}"
SERVER_FAILED = "the MCP server could not be listed: {reason}"
SERVER_CLOSED = "the server closed the connection before answering (did it exit at start?)"
SERVER_SILENT = "the MCP server did not answer within {timeout:g}s"

LIST_TIMEOUT = 20.0


def tools_from_list(data: Any, *, server: str, place: str = "tools/list") -> list[Tool]:
    """Tools of a ``tools/list`` answer, bound to ``server``."""
    if isinstance(data, Mapping) and isinstance(data.get("result"), Mapping):
        data, place = data["result"], f"{place}: result"
    if not isinstance(data, Mapping) or not isinstance(data.get("tools"), list):
        raise SourceError(place, NOT_MCP)
    tools: list[Tool] = []
    seen: set[str] = set()
    for i, entry in enumerate(data["tools"]):
        where = f"{place}: tools[{i}]"
        tool = _tool(entry, server=server, place=where)
        if tool.name in seen:
            raise SourceError(where, DUPLICATE_NAME.format(name=tool.name))
        seen.add(tool.name)
        tools.append(tool)
    return tools


def _tool(entry: Any, *, server: str, place: str) -> Tool:
    if not isinstance(entry, Mapping):
        raise SourceError(place, TOOL_NOT_OBJECT)
    name = entry.get("name")
    if not isinstance(name, str) or not name:
        raise SourceError(place, TOOL_NO_NAME)
    schema = entry.get("inputSchema", {"type": "object", "properties": {}})
    if not isinstance(schema, Mapping):
        raise SourceError(f"{place}.inputSchema", TOOL_BAD_SCHEMA)
    annotations = entry.get("annotations") or {}
    meta = entry.get("_meta") or entry.get("meta") or {}
    if not isinstance(annotations, Mapping) or not isinstance(meta, Mapping):
        raise SourceError(place, "'annotations' and '_meta' must be objects")
    declarations = {
        **declarations_from(annotations, place=f"{place}.annotations"),
        **declarations_from(meta, place=f"{place}._meta"),
        **declarations_from(meta.get("stalwart"), place=f"{place}._meta.stalwart"),
    }
    read = annotations.get("readOnlyHint") is True or meta.get("read_only") is True
    if annotations.get("destructiveHint") is True:
        read = False  # destructive wins over whatever else it says
    if annotations.get("idempotentHint") is True and "idempotency" not in declarations:
        declarations["idempotency"] = {"idempotent": True}
    output = entry.get("outputSchema")
    return Tool(
        name=name,
        kind="read" if read else "write",
        description=str(entry.get("description") or annotations.get("title") or ""),
        input_schema=dict(schema),
        result_schema=dict(output) if isinstance(output, Mapping) else None,
        binding={"mcp": {"server": server, "tool": name}},
        **declarations,
    )


def read_saved_list(path: str | Path, *, server: str = "") -> list[Tool]:
    from catalogue.importers.openapi import read_document

    data = read_document(path)
    return tools_from_list(data, server=server, place=str(path))


class _RawListing(BaseModel):
    """A ``tools/list`` result whose tools stay the JSON the server sent."""

    tools: list[dict[str, Any]]


async def _list_live(server: str, *, cwd: str | None) -> list[dict[str, Any]]:
    from mcp.shared.inbound import find_invalid_x_mcp_header
    from mcp.types import ListToolsRequest
    from mcp.types.version import MODERN_PROTOCOL_VERSIONS

    async with connect(server, cwd=cwd) as client:
        listing = await client.session.send_request(ListToolsRequest(), _RawListing)
        modern = client.protocol_version in MODERN_PROTOCOL_VERSIONS
    # As the SDK's own list_tools does: at 2026-07-28 a client MUST drop a tool
    # whose x-mcp-header annotations are invalid.
    return [t for t in listing.tools if not (modern and find_invalid_x_mcp_header(t.get("inputSchema")))]


def list_live(server: str, *, timeout: float = LIST_TIMEOUT, cwd: str | None = None) -> list[Tool]:
    """List a live server's tools, bounded by ``timeout`` seconds."""
    try:
        argv_check = server if is_http_address(server) else server_argv(server)
    except ValueError as exc:
        raise SourceError(server or "--mcp", str(exc)) from None
    del argv_check

    async def bounded() -> list[dict[str, Any]]:
        return await asyncio.wait_for(_list_live(server, cwd=cwd), timeout)

    try:
        entries = asyncio.run(bounded())
    except TimeoutError:
        raise SourceError(server, SERVER_SILENT.format(timeout=timeout)) from None
    except BaseException as exc:  # the SDK wraps transport failures in exception groups
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise SourceError(server, SERVER_FAILED.format(reason=_reason(exc))) from None
    return tools_from_list({"tools": json.loads(json.dumps(entries))}, server=server, place=server)


def _reason(exc: BaseException) -> str:
    import anyio
    from mcp import MCPError
    from mcp.types import CONNECTION_CLOSED

    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    closed = (anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream, BrokenPipeError, EOFError)
    if isinstance(exc, closed) or (isinstance(exc, MCPError) and exc.code == CONNECTION_CLOSED):
        return SERVER_CLOSED
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
