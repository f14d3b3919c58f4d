from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from catalogue.commands import import_main
from catalogue.importers.typescript import TS_DIR
from catalogue.lints import TOOL_KIND_UNDECLARED
from tests.catalogue.conftest import FIXTURES

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None or not (TS_DIR / "node_modules" / "typescript").is_dir(),
    reason="needs node and `npm ci` in catalogue/ts")


def test_a_small_project_reads_into_tools(tmp_path: Path) -> None:
    out = tmp_path / "c.json"
    assert import_main(["--declarations", str(FIXTURES / "ts"), "--out", str(out)]) == 0
    tools = {t["name"]: t for t in json.loads(out.read_text())["tools"]}
    assert {n: t["kind"] for n, t in tools.items()} == {
        "getOrder": "read", "chargeCard": "write", "archiveOrders": "write", "searchOrders": "read"}
    get_order = tools["getOrder"]
    assert get_order["words"] == "get order" and get_order["description"] == "Show an order."
    assert get_order["input_schema"] == {"type": "object", "required": ["orderId"], "properties": {
        "orderId": {"type": "string", "description": "The order's number."}}}
    assert get_order["result_schema"]["required"] == ["orderId", "total", "status"]  # Promise<Order> unwrapped
    assert get_order["result_schema"]["properties"]["status"] == {"enum": ["unpaid", "paid", "refunded"]}
    assert tools["chargeCard"]["input_schema"]["required"] == ["orderId", "amount"]
    assert tools["archiveOrders"]["result_schema"] is None
    assert tools["archiveOrders"]["input_schema"]["properties"]["statuses"] == {
        "type": "array", "items": {"enum": ["paid", "refunded"]}}
    assert tools["searchOrders"]["binding"] == {"typescript": {"module": "lib/types.d.ts",
                                                               "function": "searchOrders"}}


def test_a_function_that_declares_no_kind_fails_the_import(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "c.json"
    assert import_main(["--declarations", str(FIXTURES / "ts-undeclared"), "--out", str(out)]) == 1
    assert f"error tool_kind_undeclared deleteOrder: {TOOL_KIND_UNDECLARED}" in capsys.readouterr().err
    assert not out.exists()


def test_a_folder_without_declarations_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert import_main(["--declarations", str(tmp_path)]) == 2
    assert "no .d.ts files" in capsys.readouterr().err
