"""The MCP gateway on the wire (docs/mcp.md, "On the wire"), against a real
``stalwart serve`` and ``stalwart mcp``, with the MCP SDK's own clients where
a client would see it, and by hand where only the HTTP says it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import httpx2
import mcp.types as types
import pytest
from mcp.shared.exceptions import MCPError

from tests.e2e.test_faults import rows
from tests.e2e.test_mcp_gateway import pause_rows, replay_status, run, thread_of, unique, wait_for
from tests.support.mcp import Console, gateway_agent_file, keys_revoked, mcp_session, mcp_stdio
from tests.support.server import Server

pytestmark = pytest.mark.server

ERAS = ["2025-11-25", "2026-07-28"]


@pytest.fixture(autouse=True)
def _no_keys(data_dir: Path) -> None:
    keys_revoked(data_dir)  # no client key in force: the gateway answers this machine, as local


def stored(data_dir: Path, me: str) -> tuple[int, int, int]:
    """What the run store holds for this client's session: its thread, runs, and journal rows."""
    thread = thread_of(me)
    return (rows(data_dir, "SELECT COUNT(*) FROM threads_thread WHERE id = ?", (thread,))[0][0],
            rows(data_dir, "SELECT COUNT(*) FROM threads_run WHERE thread_id = ?", (thread,))[0][0],
            rows(data_dir, "SELECT COUNT(*) FROM threads_replay WHERE caller = ?", (thread,))[0][0])


async def modern_call(url: str, me: str, tool: str, arguments: dict[str, Any]) -> Any:
    """One call with ``mcp.Client``, which negotiates the current protocol (2026-07-28)."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async with httpx2.AsyncClient(timeout=httpx2.Timeout(30, read=120)) as http:
        async with Client(streamable_http_client(url, http_client=http),
                          client_info=types.Implementation(name=me, version="1")) as client:
            assert client.protocol_version == "2026-07-28"
            return await client.call_tool(tool, arguments)


async def handshake_call(url: str, me: str, tool: str, arguments: dict[str, Any]) -> Any:
    async with mcp_session(url, name=me) as session:
        return await session.call_tool(tool, arguments)


def call(era: str, url: str, me: str, tool: str, arguments: dict[str, Any]) -> Any:
    """The call's result, or the ``MCPError`` the client raised for a JSON-RPC error."""
    try:
        return run((modern_call if era == "2026-07-28" else handshake_call)(url, me, tool, arguments))
    except MCPError as error:
        return error
    except BaseExceptionGroup as group:  # raised out of the client's task group
        errors = group.subgroup(MCPError)
        if errors is None:
            raise
        return _first(errors)


def _first(group: BaseException) -> BaseException:
    return _first(group.exceptions[0]) if isinstance(group, BaseExceptionGroup) else group


# -- a tool the catalogue does not list -----------------------------------------------------------------------------

@pytest.mark.parametrize("era", ERAS)
def test_a_tool_the_catalogue_does_not_list_is_a_json_rpc_error_and_nothing_is_stored(gateway, data_dir, me, era):
    unknown = call(era, f"{gateway.url}/mcp/", me, "refund_everything", {"order_id": "4411"})
    assert isinstance(unknown, MCPError), unknown
    assert (unknown.code, unknown.message) == (-32602, "Unknown tool: refund_everything")
    assert unknown.data["rule"] == "unknown_tool" and "refund_everything" in unknown.data["sentence"]
    assert stored(data_dir, me) == (0, 0, 0)
    # A listed tool the check refuses is still a result the model reads: isError, with its rule and sentence.
    refused = call(era, f"{gateway.url}/mcp/", me, "refund_card", {"order_id": "4412", "amount": 15.5})
    assert not isinstance(refused, MCPError), refused
    assert refused.is_error and refused.structured_content["rule"] == "privilege:refunds"


def test_over_stdio_a_tool_the_catalogue_does_not_list_is_a_json_rpc_error(data_dir, mcp_agent_file, me):
    async def scenario() -> tuple[Any, Any, Any]:
        async with mcp_stdio(mcp_agent_file, data_dir, name=me) as session:
            unknown: Any = None
            try:
                await session.call_tool("refund_everything", {})
            except MCPError as error:
                unknown = error
            after = stored(data_dir, me)
            return unknown, after, await session.call_tool("refund_card", {"order_id": "4412", "amount": 15.5})

    unknown, after, refused = run(scenario())
    assert (unknown.code, unknown.message) == (-32602, "Unknown tool: refund_everything")
    assert after == (0, 0, 0)
    assert refused.is_error and refused.structured_content["rule"] == "privilege:refunds"


# -- arguments a listed tool does not take --------------------------------------------------------------------------

@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize(("arguments", "named"), [({}, "order_id"), ({"order_id": "4411", "bogus": 1}, "bogus")],
                         ids=["a-required-one-missing", "one-it-does-not-name"])
def test_arguments_a_tool_does_not_take_are_refused_naming_the_argument(gateway, data_dir, me, era, arguments,
                                                                        named):
    refused = call(era, f"{gateway.url}/mcp/", me, "get_order", arguments)
    assert not isinstance(refused, MCPError), refused
    assert refused.is_error and refused.structured_content["status"] == "refused"
    assert refused.structured_content["rule"] == "arguments"
    assert f"'{named}'" in refused.structured_content["sentence"] and "get_order" in refused.content[0].text
    assert stored(data_dir, me) == (0, 0, 0) and pause_rows(data_dir, me) == []  # never called, nothing held


# -- the SDK's own refusals, in JSON ---------------------------------------------------------------------------------

HANDSHAKE = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
MODERN = {**HANDSHAKE, "MCP-Protocol-Version": "2026-07-28"}
INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}


def json_rpc_error(response: httpx.Response) -> str:
    """The JSON-RPC error's message, once the answer is one (JSON, id null); else what it was."""
    assert response.headers["content-type"].startswith("application/json"), (response.status_code, response.text)
    body = response.json()
    assert body["jsonrpc"] == "2.0" and body["id"] is None and body["error"]["code"] in (-32600, -32700), body
    assert isinstance(body["error"]["message"], str) and body["error"]["message"], body
    return str(body["error"]["message"])


@pytest.mark.parametrize(("method", "headers", "content", "status"), [
    ("POST", {**HANDSHAKE, "Content-Type": "text/plain"}, json.dumps(INITIALIZE), 400),
    ("POST", {**HANDSHAKE, "Host": "evil.example"}, json.dumps(INITIALIZE), 421),
    ("POST", {**HANDSHAKE, "Origin": "http://evil.example"}, json.dumps(INITIALIZE), 403),
    ("OPTIONS", {"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"}, None, 403),
    ("POST", HANDSHAKE, '{"jsonrpc": "2.0", "id": 1, "method": "ping", "x": "' + "x" * 300_000 + '"}', 413),
    ("POST", {**MODERN, "Accept": "application/json"}, json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}), 406),
    ("GET", MODERN, None, 405),
    ("POST", {**HANDSHAKE, "Accept": "text/html"}, json.dumps(INITIALIZE), 406),  # the SDK's own JSON, as it was
    ("POST", HANDSHAKE, "{not json", 400),  # the SDK's parse error, as it was
], ids=["content-type", "host", "origin", "options-from-elsewhere", "too-large", "modern-not-acceptable",
        "modern-get", "handshake-not-acceptable", "parse-error"])
def test_every_refusal_of_the_sdk_is_a_json_rpc_error_with_its_status(gateway, method, headers, content, status):
    response = httpx.request(method, f"{gateway.url}/mcp/", headers=headers, content=content, timeout=30)
    assert response.status_code == status, response.text[:300]
    json_rpc_error(response)
    if status == 405:
        assert response.headers["allow"] == "POST"  # the SDK's headers kept


def test_a_refusal_is_said_in_the_requests_language(gateway):
    big = '{"jsonrpc": "2.0", "id": 1, "method": "ping", "x": "' + "x" * 300_000 + '"}'
    english = httpx.post(f"{gateway.url}/mcp/", headers=HANDSHAKE, content=big, timeout=30)
    portuguese = httpx.post(f"{gateway.url}/mcp/", headers={**HANDSHAKE, "Accept-Language": "pt-BR"}, content=big,
                            timeout=30)
    assert json_rpc_error(english) == "The body is larger than this server takes (262144 bytes)."
    assert json_rpc_error(portuguese) == "O corpo é maior do que este servidor aceita (262144 bytes)."


# -- a dropped stream picked up with Last-Event-ID -------------------------------------------------------------------

def events(response: httpx.Response, *, until: Any = None) -> list[dict[str, str]]:
    """The SSE events of a streamed response, up to the one ``until`` accepts (else to the stream's end)."""
    seen: list[dict[str, str]] = []
    event: dict[str, str] = {}
    for line in response.iter_lines():
        if not line:
            if event:
                seen.append(event)
                if until is not None and until(event):
                    return seen
            event = {}
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        event[name] = event.get(name, "") + value.removeprefix(" ")
    return seen


def answers(event: dict[str, str], request_id: int) -> bool:
    data = json.loads(event["data"]) if event.get("data") else {}
    return data.get("id") == request_id and ("result" in data or "error" in data)


def handshake(http: httpx.Client, url: str, me: str) -> dict[str, str]:
    """A 2025-11-25 session by hand; the headers its requests carry."""
    body = {**INITIALIZE, "params": {**INITIALIZE["params"], "clientInfo": {"name": me, "version": "1"}}}
    with http.stream("POST", url, headers=HANDSHAKE, json=body) as init:
        opened = events(init, until=lambda e: answers(e, 0))
        session = init.headers["mcp-session-id"]
    assert opened[0]["data"] == "" and opened[0]["id"] and opened[0]["retry"] == "2000"  # the priming event
    headers = {**HANDSHAKE, "Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"}
    assert http.post(url, headers=headers, json={"jsonrpc": "2.0", "method": "notifications/initialized"}
                     ).status_code == 202
    return headers


def test_a_held_call_whose_stream_dropped_gets_its_result_with_last_event_id(data_dir, tmp_path, me):
    from examples.shop import tools as shop

    agent = gateway_agent_file(tmp_path, wait=120)  # the call is held while a person decides
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "charge_card", "arguments": {"order_id": "4411", "amount": 40}}}
    with Server(data_dir, agent_file=agent) as server, httpx.Client(timeout=httpx.Timeout(30, read=120)) as http:
        url = f"{server.url}/mcp/"
        headers = handshake(http, url, me)
        with http.stream("POST", url, headers=headers, json=call) as held:
            primed = events(held, until=lambda e: "id" in e)
        # The connection dropped after the priming event: the call is held on, its pause in the console.
        assert primed[0]["data"] == "" and primed[0]["retry"] == "2000"
        wait_for(lambda: pause_rows(data_dir, me), "the call's pause")
        console = Console(server.url, data_dir, unique("ops"))
        assert "Answered" in console.answer(pause_rows(data_dir, me)[-1][0], "approve")
        console.close()
        wait_for(lambda: len(shop.charges("4411")) == 1, "the charge")
        # Another session cannot read this stream with its event id.
        other = handshake(http, url, unique("other"))
        with http.stream("GET", url, headers={**other, "Last-Event-ID": primed[0]["id"]}) as elsewhere:
            assert not [e for e in events(elsewhere) if e.get("data")]
        assert replay_status(data_dir, me) == ["open"]  # not delivered: no client took it yet
        with http.stream("GET", url, headers={**headers, "Last-Event-ID": primed[0]["id"]}) as resumed:
            assert resumed.status_code == 200
            got = events(resumed, until=lambda e: answers(e, 2))
            # Still connected while it is counted: a client gone by the time the result was sent is not
            # counted as having taken it (the identical call would get it again, never a second send).
            wait_for(lambda: replay_status(data_dir, me) == ["delivered"], "delivered once the GET carried it")
        result = json.loads(got[-1]["data"])["result"]
        assert result["structuredContent"]["charge_id"] == "ch-4411" and len(shop.charges("4411")) == 1
