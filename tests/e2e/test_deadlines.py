"""A confirm past its deadline over a real server (docs/agent-file.md, "Deadlines and escalation")."""

from __future__ import annotations

import time
import uuid

import pytest

from examples.shop import tools as shop
from tests.support.server import Browser, Server

pytestmark = pytest.mark.server


DEADLINE_AGENT = """
agents:
  - name: Shop
    language: en
    deadlines: {confirm: 2}
    tools:
      charge_card:
        python: examples.shop.tools:charge_card
        write: true
"""


def test_a_confirm_left_past_its_deadline_is_closed_and_a_late_answer_is_409(data_dir, tmp_path):
    path = tmp_path / "deadline" / "agent.yaml"
    path.parent.mkdir()
    path.write_text(DEADLINE_AGENT, encoding="utf-8")
    with Server(data_dir, agent_file=path) as server:
        browser = Browser(server.url)
        thread = f"late-{uuid.uuid4().hex[:8]}"
        pause = browser.say(thread, "charge 40 to order 4411").json()["waiting"][0]
        time.sleep(2.2)
        late = browser.resume(thread, pause, "approve")
        assert late.status_code == 409
        body = late.json()
        assert body["error"] == "interrupt_stale" and body["interrupt"]["status"] == "timed_out"
        assert body["waiting"] == []
        assert shop.charges() == []
