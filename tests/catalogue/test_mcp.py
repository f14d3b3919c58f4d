from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from catalogue.bindings import invoke
from catalogue.bindings.mcp import close_sessions
from catalogue.commands import import_main
from catalogue.importers import SourceError
from catalogue.importers import mcp as importer
from catalogue.tools import Tool
from tests.catalogue.conftest import FIXTURES, SHOP, free_port
from tests.catalogue.test_openapi import SHOP_KINDS

SHOP_STDIO = f"python {SHOP / 'mcp_server.py'}"
TEST_SERVER = f"python {FIXTURES / 'mcp_test_server.py'}"
LEGACY_SERVER = f"python {FIXTURES / 'mcp_legacy_server.py'}"


def make_entry(name: str = "t", **overrides: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": name, "inputSchema": {"type": "object", "properties": {}}}
    entry.update(overrides)
    return entry


@pytest.mark.parametrize(("annotations", "meta", "kind", "retry_safe"), [
    ({"readOnlyHint": True}, {}, "read", False),
    ({}, {"read_only": True}, "read", False),
    ({"readOnlyHint": True, "destructiveHint": True}, {}, "write", False),  # destructive wins
    ({}, {}, "write", False),  # unmarked is a write
    ({"readOnlyHint": False, "idempotentHint": True}, {}, "write", True),
    ({"readOnlyHint": True}, {"idempotency": {"argument": "key"}}, "read", True),
])
def test_kinds_from_annotations_and_meta(annotations: dict[str, Any], meta: dict[str, Any], kind: str,
                                         retry_safe: bool) -> None:
    [tool] = importer.tools_from_list({"tools": [make_entry(annotations=annotations, _meta=meta)]}, server="s")
    assert (tool.kind, tool.retry_safe) == (kind, retry_safe)


def test_declarations_from_annotations_meta_and_a_stalwart_namespace() -> None:
    entry = make_entry("charge_card", annotations={"irreversible": True},
                       _meta={"compensation": {"tool": "refund_card"}, "stalwart": {"egress": True}},
                       outputSchema={"type": "object"})
    [tool] = importer.tools_from_list({"jsonrpc": "2.0", "id": 1, "result": {"tools": [entry]}}, server="srv")
    assert (tool.irreversible, tool.compensation, tool.egress) == (True, {"tool": "refund_card"}, True)
    assert tool.result_schema == {"type": "object"}
    assert tool.binding == {"mcp": {"server": "srv", "tool": "charge_card"}}


@pytest.mark.parametrize(("data", "reason"), [
    ({"tools": "no"}, importer.NOT_MCP),
    ({"tools": [{"inputSchema": {}}]}, importer.TOOL_NO_NAME),
    ({"tools": [make_entry("a"), make_entry("a")]}, importer.DUPLICATE_NAME.format(name="a")),
    ({"tools": [make_entry(inputSchema=[])]}, importer.TOOL_BAD_SCHEMA),
])
def test_a_bad_tools_list_is_refused_with_the_reason(data: Any, reason: str) -> None:
    with pytest.raises(SourceError) as info:
        importer.tools_from_list(data, server="s")
    assert info.value.reason == reason


def _shop_checks(tools: list[Tool]) -> None:
    by_name = {t.name: t for t in tools}
    assert {n: t.kind for n, t in by_name.items()} == SHOP_KINDS
    assert by_name["charge_card"].compensation is not None
    assert by_name["charge_card"].idempotency == {"argument": "idempotency_key"}
    assert by_name["refund_card"].irreversible and by_name["refund_card"].retry_safe
    assert by_name["read_inbox"].reads_outside
    assert by_name["send_receipt"].egress and by_name["send_receipt"].irreversible
    archive = by_name["archive_order"]
    assert (archive.compensation, archive.idempotency, archive.result_schema) == (None, None, None)


def test_a_live_import_from_the_shops_mcp_server_over_stdio(tmp_path: Path) -> None:
    out = tmp_path / "catalogue.json"
    assert import_main(["--mcp", SHOP_STDIO, "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    tools = [Tool.from_json(t) for t in data["tools"]]
    _shop_checks(tools)
    assert tools[0].binding["mcp"]["server"] == SHOP_STDIO


def test_a_live_import_over_streamable_http(shop_mcp_http: str) -> None:
    _shop_checks(importer.list_live(shop_mcp_http))


def test_a_saved_tools_list_answer_imports(tmp_path: Path, shop_mcp_http: str) -> None:
    saved = tmp_path / "tools.json"
    listed = importer.list_live(shop_mcp_http)
    saved.write_text(json.dumps({"jsonrpc": "2.0", "id": 2, "result": {"tools": [
        {"name": t.name, "inputSchema": dict(t.input_schema),
         "annotations": {"readOnlyHint": t.kind == "read"}} for t in listed]}}))
    out = tmp_path / "catalogue.json"
    assert import_main([str(saved), "--mcp", shop_mcp_http, "--out", str(out)]) == 0
    tools = json.loads(out.read_text())["tools"]
    assert {t["name"]: t["kind"] for t in tools} == SHOP_KINDS
    assert tools[0]["binding"]["mcp"]["server"] == shop_mcp_http


@pytest.mark.parametrize(("command", "reason"), [
    ("python -c pass", importer.SERVER_CLOSED),
    ("python -c 'import time; time.sleep(30)'", importer.SERVER_SILENT.format(timeout=2)),
])
def test_a_server_that_exits_at_once_or_never_answers(command: str, reason: str,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert import_main(["--mcp", command, "--timeout", "2"]) == 2
    err = capsys.readouterr().err
    assert reason in err and "Traceback" not in err


# The binding: tools/call through one reused session per server.

def _tools(server: str) -> dict[str, Tool]:
    return {t.name: t for t in importer.list_live(server)}


@pytest.fixture
def test_server() -> Any:
    yield _tools(TEST_SERVER)
    close_sessions()


def test_calls_reuse_one_session_and_a_dead_server_is_restarted(test_server: dict[str, Tool]) -> None:
    first = invoke(test_server["whoami"], {})
    assert first.ok and invoke(test_server["whoami"], {}).result == first.result
    died = invoke(test_server["die"], {}, timeout=5)
    assert died.transport == "no_response"
    again = invoke(test_server["whoami"], {})
    assert again.ok and again.result != first.result


def test_a_hung_call_times_out_and_the_session_stays_usable(test_server: dict[str, Tool]) -> None:
    hung = invoke(test_server["hang"], {"seconds": 30}, timeout=1)
    assert hung.transport == "timeout" and hung.ambiguous
    assert invoke(test_server["hang"], {"seconds": 0}, timeout=5).result == {"result": "late"}


@pytest.mark.parametrize("server", ["nonexistent-command-for-stalwart", "http://127.0.0.1:{port}/mcp"])
def test_a_server_that_cannot_start_is_refused(server: str) -> None:
    tool = Tool(name="x", binding={"mcp": {"server": server.format(port=free_port()), "tool": "x"}})
    outcome = invoke(tool, {})
    assert outcome.transport == "refused"


def test_a_call_over_streamable_http(shop_mcp_http: str) -> None:
    tools = _tools(shop_mcp_http)
    try:
        assert invoke(tools["get_order"], {"order_id": "4411"}).result["card"] == "visa-0019"
        refused = invoke(tools["get_order"], {"order_id": "1"})
        assert refused.transport == "error" and "there is no order 1" in refused.error
    finally:
        close_sessions()


# Both protocol eras: a 2.x server is spoken to at 2026-07-28 (server/discover);
# a server of 2025-11-25 only answers that probe -32601, and the client falls
# back to the initialize handshake.

def test_a_current_server_is_spoken_to_at_2026_07_28(test_server: dict[str, Tool]) -> None:
    assert invoke(test_server["era"], {}).result == {"result": "2026-07-28"}


def test_a_2025_11_25_server_is_listed_and_called_after_the_handshake() -> None:
    tools = _tools(LEGACY_SERVER)
    try:
        close = tools["close_account"]  # its declarations sit in annotations (docs/agent-file.md, "MCP")
        assert (close.kind, close.retry_safe, close.irreversible, close.confirm, close.egress) == (
            "write", True, True, "Close account {account}?", True)
        assert (tools["whoami"].kind, tools["die"].kind) == ("read", "write")
        first = invoke(tools["whoami"], {})
        assert first.ok and first.result["asked"] == [
            "server/discover", "initialize 2025-11-25", "notifications/initialized"]
        assert invoke(tools["whoami"], {}).result["pid"] == first.result["pid"]  # pinged, and reused
        assert invoke(tools["die"], {}, timeout=5).transport == "no_response"
        again = invoke(tools["whoami"], {})
        assert again.ok and again.result["pid"] != first.result["pid"]
    finally:
        close_sessions()


def test_the_shop_over_mcp_charges_once_per_key_and_loses_a_reply(monkeypatch: pytest.MonkeyPatch) -> None:
    tools = _tools(SHOP_STDIO)
    try:
        charge = invoke(tools["charge_card"], {"order_id": "4411", "amount": 40, "idempotency_key": "k1"})
        assert charge.ok and charge.result == {"charge_id": "ch-4411", "order_id": "4411", "amount": 40}
        replay = invoke(tools["charge_card"], {"order_id": "4411", "amount": 40, "idempotency_key": "k1"})
        assert replay.result == charge.result
        assert invoke(tools["get_order"], {"order_id": "4411"}).result["status"] == "paid"
        refused = invoke(tools["get_order"], {"order_id": "1"})
        assert refused.transport == "error" and "there is no order 1" in refused.error
    finally:
        close_sessions()
    monkeypatch.setenv("STALWART_SHOP_FAULTS", "archive_order=lose_reply")
    try:
        lost = invoke(tools["archive_order"], {"order_id": "4412"}, timeout=2)
        assert lost.transport == "timeout"
    finally:
        close_sessions()
    assert invoke(tools["get_order"], {"order_id": "4412"}).result["status"] == "archived"
    close_sessions()
