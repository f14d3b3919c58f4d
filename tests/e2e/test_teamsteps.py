"""A team's steps waiting on two pauses at once, over a real server (docs/agent-file.md, "Team steps (steps:)")."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from examples.shop import tools as shop
from tests.support.server import Browser, Server
from tests.threads.team_flows import agent_yaml, sends

pytestmark = pytest.mark.server


@pytest.fixture
def team_server(data_dir: Path, tmp_path: Path):  # type: ignore[no-untyped-def]
    path = tmp_path / "team" / "agent.yaml"
    path.parent.mkdir()
    path.write_text(agent_yaml("two_charges"), encoding="utf-8")
    with Server(data_dir, agent_file=path) as s:
        yield s


def test_two_charges_wait_side_by_side_and_each_is_charged_once(team_server):
    browser = Browser(team_server.url)
    thread = f"team-{uuid.uuid4().hex[:8]}"
    body = browser.say(thread, "charge both").json()
    assert [p["kind"] for p in body["waiting"]] == ["confirm", "confirm"]
    first, second = sorted(body["waiting"], key=lambda p: p["step"])
    listed = browser.request("GET", f"/threads/{thread}/interrupts").json()["interrupts"]
    assert {p["id"] for p in listed} == {first["id"], second["id"]}

    after_second = browser.resume(thread, second, "approve")
    assert after_second.status_code == 200
    assert [(p["id"], p["token"]) for p in after_second.json()["waiting"]] == [(first["id"], first["token"])]
    assert sends() == ["charge_card:5001"]

    done = browser.resume(thread, first, "approve").json()
    assert done["reply"]["text"] == "charged ch-4411 and ch-5001"
    assert done["waiting"] == [] and done["status"] == "done"
    assert sorted(sends()) == ["charge_card:4411", "charge_card:5001"]
    assert sorted(c["order_id"] for c in shop.charges()) == ["4411", "5001"]
    again = browser.resume(thread, second, "approve")
    assert again.status_code == 409 and again.json()["error"] == "interrupt_stale"
    assert len(sends()) == 2

