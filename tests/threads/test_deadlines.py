"""Service tier: deadlines and escalation (docs/agent-file.md, "Deadlines and escalation"), swept by
``pauses_expire_due``."""

from __future__ import annotations

import json
import time
from datetime import timedelta
from pathlib import Path

import pytest

from approvals.models import Delivery
from approvals.notify import set_listeners
from catalogue.agentfile import AgentFileError, load_agent_file
from examples.shop import tools as shop
from stalwart_site.worker import sweep_deadlines
from tests.threads.team_flows import agent_yaml, sends
from threads.engine import pauses_escalate_due, pauses_expire_due
from threads.errors import Stale
from threads.models import Event, Interrupt, Message, Run
from threads.texts import text

pytestmark = pytest.mark.django_db(transaction=True)

def settle() -> None:
    """Wait for the outbox's first attempts (sent on its pool after commit)."""
    ended = [Delivery.Status.DELIVERED, Delivery.Status.FAILED, Delivery.Status.SKIPPED]
    deadline = time.monotonic() + 10
    while Delivery.objects.exclude(status__in=ended).exists() and time.monotonic() < deadline:
        time.sleep(0.02)


AGENT = """
agents:
  - name: Shop
    language: en
    deadlines: {{confirm: 3}}
    {escalate}
    tools:
      get_order:
        python: examples.shop.tools:get_order
        read: true
      charge_card:
        python: examples.shop.tools:charge_card
        write: true
"""


@pytest.fixture
def told():  # type: ignore[no-untyped-def]
    heard: list[tuple[str, dict]] = []
    set_listeners([lambda thread, pause: heard.append((thread, json.loads(json.dumps(pause))))])
    yield heard
    set_listeners([])


@pytest.fixture
def make_desk(db: None, shop_dir: Path, tmp_path: Path):  # type: ignore[no-untyped-def]
    from stalwart_site.desk import Desk

    def make(yaml_text: str) -> Desk:
        path = tmp_path / "agent.yaml"
        path.write_text(yaml_text, encoding="utf-8")
        return Desk(path)

    return make


def test_a_confirm_past_its_deadline_closes_by_itself_and_a_late_answer_is_stale(make_desk, told):
    desk = make_desk(AGENT.format(escalate=""))
    pause = desk.say("t-late", "charge 40 to order 4411").waiting[0]
    settle()  # the waiting notice first: the pool sends in no set order
    row = Interrupt.objects.get(pk=pause["id"])
    assert (row.expires_at - row.created_at).total_seconds() == pytest.approx(3, abs=0.5)
    settle()
    told.clear()

    assert pauses_expire_due(now=row.expires_at - timedelta(seconds=1)) == []
    assert pauses_expire_due(now=row.expires_at) == [pause["id"]]
    assert pauses_expire_due(now=row.expires_at + timedelta(seconds=5)) == []  # claimed once

    row.refresh_from_db()
    assert row.status == "timed_out"
    run = Run.objects.get(pk=row.run_id)
    assert run.status == "done" and run.steps.get().status == "cancelled"
    expired = Event.objects.get(thread_id=desk.key("t-late"), type="expired")
    assert expired.data["interrupt"] == pause["id"] and expired.data["tool"] == "charge_card"
    last = Message.objects.filter(thread_id=desk.key("t-late")).order_by("created_at").last()
    assert last.text == text("en", "expired", tool="charge card")
    settle()
    assert [(t, p["type"], p["id"], p["escalation"], "token" in p) for t, p in told] == [
        (desk.key("t-late"), "expired", pause["id"], False, False)]  # a notifier is told the key

    with pytest.raises(Stale) as err:
        desk.resume("t-late", pause["id"], "approve", pause["token"])
    assert err.value.body()["interrupt"]["status"] == "timed_out"
    assert shop.charges() == []


def test_escalation_tells_the_listeners_again_once_while_the_pause_still_waits(make_desk, told):
    desk = make_desk(AGENT.format(escalate="escalate_after: {confirm: 1}"))
    pause = desk.say("t-esc", "charge 40 to order 4411").waiting[0]
    settle()  # the waiting notice first: the pool sends in no set order
    row = Interrupt.objects.get(pk=pause["id"])
    settle()
    assert told[0][1]["id"] == pause["id"] and "type" not in told[0][1]  # the pause as it opened
    settle()
    told.clear()
    assert pauses_escalate_due(now=row.escalate_at - timedelta(milliseconds=100)) == []
    assert pauses_escalate_due(now=row.escalate_at) == [pause["id"]]
    assert pauses_escalate_due(now=row.escalate_at + timedelta(seconds=1)) == []
    settle()
    assert [(p["type"], p["escalation"], p["token"]) for _, p in told] == [("escalation", True, pause["token"])]
    assert Interrupt.objects.get(pk=pause["id"]).status == "open"
    done = desk.resume("t-esc", pause["id"], "approve", pause["token"])
    assert "ch-4411" in done.text


def test_the_sweep_wiring_closes_and_escalates_and_never_raises(make_desk, told):
    desk = make_desk(AGENT.format(escalate="escalate_after: {confirm: 1}"))
    pause = desk.say("t-sweep", "charge 40 to order 4411").waiting[0]
    settle()  # the waiting notice first: the pool sends in no set order
    row = Interrupt.objects.get(pk=pause["id"])
    assert sweep_deadlines(now=row.expires_at) == {"escalated": [pause["id"]], "expired": [pause["id"]]}
    settle()
    assert sorted(p["type"] for _, p in told[1:]) == ["escalation", "expired"]


def test_reading_the_thread_closes_an_overdue_pause_between_sweeps(make_desk):
    desk = make_desk(AGENT.format(escalate=""))
    pause = desk.say("t-read", "charge 40 to order 4411").waiting[0]
    settle()  # the waiting notice first: the pool sends in no set order
    Interrupt.objects.filter(pk=pause["id"]).update(expires_at=Interrupt.objects.get(pk=pause["id"]).created_at)
    assert desk.waiting("t-read") == []
    assert Interrupt.objects.get(pk=pause["id"]).status == "timed_out"


def test_questions_wait_600_seconds_unless_the_agent_says_otherwise(make_desk):
    desk = make_desk(AGENT.format(escalate=""))
    ask = desk.say("t-ask", "show order").waiting[0]
    settle()  # the waiting notice first: the pool sends in no set order
    row = Interrupt.objects.get(pk=ask["id"])
    assert ask["kind"] == "ask" and (row.expires_at - row.created_at).total_seconds() == pytest.approx(600, abs=1)


def test_a_team_run_that_times_out_closes_its_other_pauses(make_desk, told):
    desk = make_desk(agent_yaml("two_charges", extra="deadlines: {confirm: 5}"))
    waiting = desk.say("t-team", "charge both").waiting
    assert len(waiting) == 2
    first = Interrupt.objects.get(pk=waiting[0]["id"])
    closed = pauses_expire_due(now=first.expires_at)
    statuses = sorted(Interrupt.objects.filter(thread_id=desk.key("t-team")).values_list("status", flat=True))
    assert len(closed) == 1 and statuses == ["cancelled", "timed_out"]
    assert Run.objects.get(pk=first.run_id).status == "done"
    assert sends() == []


@pytest.mark.parametrize(("value", "place"), [
    ("deadlines: {confirm: -1}", "deadlines.confirm"),
    ("deadlines: {approve: 10}", "deadlines.approve"),
    ("deadlines: 900", "deadlines"),
    ("escalate_after: {confirm: yes}", "escalate_after.confirm"),
])
def test_a_bad_deadline_is_refused_with_its_place(tmp_path, value, place):
    path = tmp_path / "bad.yaml"
    path.write_text(AGENT.format(escalate="").replace("deadlines: {confirm: 3}", value), encoding="utf-8")
    with pytest.raises(AgentFileError) as err:
        load_agent_file(path)
    assert err.value.place == f"agents[0].{place}"


def test_a_signed_webhook_hears_of_the_expiry(make_desk):
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    from approvals.webhooks import HEADER, Webhook, verify

    received: list[tuple[bool, dict]] = []

    class Receiver(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            body = self.rfile.read(int(self.headers["Content-Length"]))
            received.append((verify(self.headers.get(HEADER), body, "hook-secret-long-enough-for-a-signing-key"), json.loads(body)))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    set_listeners([Webhook(f"http://127.0.0.1:{server.server_port}/hook", "hook-secret-long-enough-for-a-signing-key")])
    try:
        desk = make_desk(AGENT.format(escalate=""))
        pause = desk.say("t-hook", "charge 40 to order 4411").waiting[0]
        settle()  # the waiting notice first: the pool sends in no set order
        row = Interrupt.objects.get(pk=pause["id"])
        assert pauses_expire_due(now=row.expires_at) == [pause["id"]]
        settle()
    finally:
        set_listeners([])
        server.shutdown()
    settle()
    assert [(ok, body["thread"], body["interrupt"]["id"], body["interrupt"].get("type")) for ok, body in received] == [
        (True, desk.key("t-hook"), pause["id"], None), (True, desk.key("t-hook"), pause["id"], "expired")]
    settle()
    assert received[1][1]["interrupt"]["status"] == "timed_out" and "token" not in received[1][1]["interrupt"]
