"""End to end: the shop's tools over its OpenAPI service and its MCP server,
behind a real `stalwart serve`, behave as the in-process shop does."""

from __future__ import annotations

import json
import shutil
import threading
import uuid
from pathlib import Path

import pytest

from examples.shop import tools as shop
from examples.shop.openapi_service import make_server
from tests.support.server import ROOT, Browser, Server, free_port

pytestmark = pytest.mark.server
SHOP_DIR = ROOT / "examples" / "shop"


def charge_and_approve(server: Server) -> dict:
    browser = Browser(server.url)
    thread = f"b-{uuid.uuid4().hex[:8]}"
    shown = browser.say(thread, "show order 4411").json()
    assert "visa-0019" in shown["reply"]["text"]
    pause = browser.say(thread, "charge 40 to order 4411").json()["waiting"][0]
    assert (pause["kind"], pause["tool"], pause["reasons"]) == ("confirm", "charge_card", ["write"])
    assert pause["arguments"] == [{"name": "amount", "value": 40, "origin": "typed"},
                                  {"name": "order_id", "value": "4411", "origin": "typed"}]
    approved = browser.resume(thread, pause, "approve").json()
    browser.close()
    return approved


def test_charge_through_the_openapi_binding_sends_an_idempotency_key(data_dir: Path, tmp_path: Path):
    port = free_port()
    service = make_server(port=port)
    threading.Thread(target=service.serve_forever, daemon=True).start()
    try:
        catalogue = json.loads((SHOP_DIR / "catalogue-openapi.json").read_text())
        for tool in catalogue["tools"]:
            tool["binding"]["http"]["base_url"] = f"http://127.0.0.1:{port}"
        (tmp_path / "catalogue-openapi.json").write_text(json.dumps(catalogue))
        shutil.copy(SHOP_DIR / "agent-openapi.yaml", tmp_path / "agent.yaml")
        shutil.copy(SHOP_DIR / "vocabulary.yaml", tmp_path / "vocabulary.yaml")
        with Server(data_dir, agent_file=tmp_path / "agent.yaml") as server:
            approved = charge_and_approve(server)
    finally:
        service.shutdown()
    assert "ch-4411" in approved["reply"]["text"]
    charges = shop.charges("4411")
    assert len(charges) == 1 and charges[0]["idempotency_key"].startswith("op-")


def test_charge_through_the_mcp_binding(data_dir: Path):
    with Server(data_dir, agent_file=SHOP_DIR / "agent-mcp.yaml") as server:
        approved = charge_and_approve(server)
    assert "ch-4411" in approved["reply"]["text"]
    assert len(shop.charges("4411")) == 1
    assert shop.get_order("4411")["status"] == "paid"
