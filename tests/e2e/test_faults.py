"""End to end, against real `stalwart serve` processes: sagas, operator
rollback, lost replies, and a worker killed mid-write (docs/operating.md, "A worker
that dies mid-call", "Operator rollback" and "The example shop's fault switch").

On SQLite a fresh worker is started on the killed one's data; with
``DATABASE_URL`` on PostgreSQL two workers serve at once and the survivor
reconciles.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from doors.http.api import DETAIL_NO_OPERATOR_TOKEN
from examples.shop import tools as shop
from tests.e2e.conftest import on_postgres
from tests.fakes.chat_server import FakeChatServer, Reply, text_reply
from tests.support.server import SHOP, Browser, Server
from tests.support.workers import database_of_its_own

pytestmark = pytest.mark.server


@pytest.fixture(autouse=True)
def _database_of_its_own() -> Any:
    """On PostgreSQL, each test's servers on a database of their own: a server's sweep takes over
    whatever the database holds stranded, and the worker's database keeps every earlier fault
    test's dead runs (a fresh worker once spent the test's 30 s on those instead of its own)."""
    with database_of_its_own(os.environ):
        yield

RUN = uuid.uuid4().hex[:8]
TOKEN = "op-" + uuid.uuid4().hex
FAST_SWEEP = {"STALWART_SWEEP_SECONDS": "1", "STALWART_LEASE_SECONDS": "2"}
TWO = "charge 40 to order 4411 and then charge 99.90 to order 5001"


def tid(name: str) -> str:
    return f"{name}-{RUN}"


def rows(data_dir: Path, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Read the run store the servers write (SQLite in the data folder, or PostgreSQL)."""
    if on_postgres():
        import psycopg

        with psycopg.connect(os.environ["DATABASE_URL"]) as conn:
            return list(conn.execute(sql.replace("?", "%s"), params).fetchall())
    conn = sqlite3.connect(data_dir / "runs.db", timeout=30)
    try:
        return list(conn.execute(sql, params).fetchall())
    finally:
        conn.close()


def approve_first_then_cancel(browser: Browser, thread: str) -> httpx.Response:
    first = browser.say(thread, TWO).json()["waiting"][0]
    second = browser.resume(thread, first, "approve").json()["waiting"][0]
    assert (second["tool"], second["step"]) == ("charge_card", 2)
    return browser.resume(thread, second, "cancel_all")


def test_cancel_all_after_an_approved_charge_refunds_it_and_never_charges_the_second(server):
    browser = Browser(server.url)
    cancelled = approve_first_then_cancel(browser, tid("f-cancel"))
    assert cancelled.status_code == 200
    body = cancelled.json()
    assert [(e["tool"], e["undo"]) for e in body["rollback"]["undone"]] == [("charge_card", "refund_card")]
    assert body["rollback"]["not_undoable"] == [] and body["rollback"]["stuck"] == []
    assert shop.get_order("4411")["status"] == "refunded"
    assert shop.get_order("5001")["status"] == "unpaid" and shop.charges("5001") == []
    undo = next(s for s in body["steps"] if s["tool"] == "refund_card")
    assert undo["status"] == "succeeded"
    browser.close()


def test_operator_rollback_needs_the_bearer_and_undoes_once(data_dir: Path):
    with Server(data_dir, args=["--operator-token", TOKEN]) as server:
        browser = Browser(server.url)
        pause = browser.say(tid("f-op"), "charge 40 to order 4411").json()["waiting"][0]
        assert browser.resume(tid("f-op"), pause, "approve").status_code == 200
        route = f"{server.url}/threads/{browser.key(tid('f-op'))}/rollback"  # an operator names the key
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": f"Basic {TOKEN}"}):
            refused = httpx.post(route, headers=headers)
            assert refused.status_code == 401 and refused.headers["WWW-Authenticate"].startswith("Bearer")
            assert refused.json()["error"] == "unauthorized"
        assert shop.get_order("4411")["status"] == "paid" and len(shop.charges("4411")) == 1
        # an operator is not the thread's session: no Stalwart-Session header at all
        done = httpx.post(route, headers={"Authorization": f"Bearer {TOKEN}"})
        assert done.status_code == 200, done.text
        assert [(e["tool"], e["undo"]) for e in done.json()["rollback"]["undone"]] == [("charge_card", "refund_card")]
        again = httpx.post(route, headers={"Authorization": f"Bearer {TOKEN}"})
        assert again.status_code == 200 and again.json()["rollback"]["undone"] == []
        assert [c["kind"] for c in shop.charges("4411")] == ["charge", "refund"]
        missing = httpx.post(f"{server.url}/threads/nobody-{RUN}/rollback", headers={"Authorization": f"Bearer {TOKEN}"})
        assert missing.status_code == 404
        browser.close()


def test_rollback_without_a_configured_token_is_403_saying_how_to_set_one(server):
    refused = httpx.post(f"{server.url}/threads/{tid('f-none')}/rollback", headers={"Authorization": "Bearer x"})
    assert refused.status_code == 403
    assert refused.json() == {"error": "forbidden", "detail": DETAIL_NO_OPERATOR_TOKEN}
    assert "--operator-token" in DETAIL_NO_OPERATOR_TOKEN and "STALWART_OPERATOR_TOKEN" in DETAIL_NO_OPERATOR_TOKEN


def test_a_failing_undo_ends_in_saga_stuck_which_takes_done_by_hand_once(data_dir: Path):
    with Server(data_dir, env={"STALWART_SHOP_FAULTS": "refund_card=fail"}) as server:
        browser = Browser(server.url)
        started = time.monotonic()
        cancelled = approve_first_then_cancel(browser, tid("f-stuck"))
        assert time.monotonic() - started < 20
        body = cancelled.json()
        assert [p["kind"] for p in body["waiting"]] == ["saga_stuck"]
        stuck = body["waiting"][0]
        assert [e["tool"] for e in body["rollback"]["stuck"]] == ["charge_card"]
        wrong = browser.resume(tid("f-stuck"), stuck, "approve")
        assert wrong.status_code == 422 and wrong.json()["error"] == "invalid_decision"
        by_hand = browser.resume(tid("f-stuck"), stuck, "done_by_hand")
        assert by_hand.status_code == 200 and by_hand.json()["rollback"]["undone"][0]["by"] == "hand"
        twice = browser.resume(tid("f-stuck"), stuck, "done_by_hand")
        assert twice.status_code == 409 and twice.json()["interrupt"]["decision"] == "done_by_hand"
        browser.close()


def test_lost_replies_charge_once_and_an_unknown_archive_waits_for_a_person(data_dir: Path):
    faults = {"STALWART_SHOP_FAULTS": "charge_card=lose_reply,archive_order=lose_reply"}
    with Server(data_dir, env=faults) as server:
        browser = Browser(server.url)
        pause = browser.say(tid("f-lost"), "charge 40 to order 4411").json()["waiting"][0]
        charged = browser.resume(tid("f-lost"), pause, "approve").json()
        assert charged["waiting"] == [] and len(shop.charges("4411")) == 1
        pause = browser.say(tid("f-lost"), "archive order 4412").json()["waiting"][0]
        unknown = browser.resume(tid("f-lost"), pause, "approve").json()["waiting"]
        assert [p["kind"] for p in unknown] == ["outcome_unknown"]
        happened = browser.resume(tid("f-lost"), unknown[0], "happened").json()
        assert happened["status"] == "done" and happened["waiting"] == []
        assert happened["steps"][0]["result"] == {"recorded_by_person": True}
        browser.close()


WORKERS = [
    pytest.param("fresh", id="a-fresh-worker-on-the-same-data"),
    pytest.param("two", id="two-workers-at-once", marks=pytest.mark.skipif(
        not on_postgres(), reason="two workers serving at once need PostgreSQL (DATABASE_URL=postgres://...)")),
]


def kill_mid_write(data_dir: Path, thread: str, text: str, fault: str, until: Any,
                   workers: str, agent_file: Path = SHOP, extra_env: dict[str, str] | None = None,
                   own: bool = False) -> tuple[Browser, float, Server]:
    """Approve ``text`` on one worker, SIGKILL it once the shop shows the
    effect (its reply held by the ``hang`` fault) or ``until`` says so, and
    hand back a browser on a worker that is alive (one serving all along, or a
    fresh one started after the kill), with the moment of the kill. ``own``:
    the workers are a team's own servers mounting ``make_app``."""
    env = {"STALWART_SHOP_FAULTS": fault, "STALWART_SHOP_HANG": "120", **FAST_SWEEP, **(extra_env or {})}
    doomed = Server(data_dir, agent_file=agent_file, env=env, own=own).start()
    survivor = Server(data_dir, agent_file=agent_file, env=env, own=own).start() if workers == "two" else None
    browser = Browser(doomed.url)
    pause = browser.say(thread, text).json()["waiting"][0]

    def approve() -> None:
        try:
            httpx.post(f"{doomed.url}/threads/{thread}/resume", timeout=150,
                       headers={"Stalwart-Session": str(browser.session)},
                       json={"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]})
        except httpx.HTTPError:
            pass  # the worker died under it: the client never hears back

    threading.Thread(target=approve, daemon=True).start()
    deadline = time.monotonic() + 30
    while not until() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert until(), "the effect never showed"
    assert doomed.proc is not None
    os.kill(doomed.proc.pid, signal.SIGKILL)
    doomed.proc.wait()
    killed_at = time.monotonic()
    doomed.stop()
    if survivor is None:
        survivor = Server(data_dir, agent_file=agent_file, env=env, own=own).start()
    browser.client.base_url = survivor.url  # type: ignore[assignment]
    return browser, killed_at, survivor


MOUNTED = [pytest.param(False, id="stalwart-serve"), pytest.param(True, id="a-teams-own-server-mounting-make_app")]


@pytest.mark.parametrize("own", MOUNTED)
@pytest.mark.parametrize("workers", WORKERS)
def test_a_worker_killed_during_a_hanging_archive_leaves_outcome_unknown_untouched(data_dir: Path, workers: str,
                                                                                   own: bool):
    thread = tid(f"f-kill-archive-{workers}-{own}")
    browser, killed_at, survivor = kill_mid_write(
        data_dir, thread, "archive order 4412", "archive_order=hang",
        lambda: shop.get_order("4412")["status"] == "archived", workers, own=own)
    try:
        waited: list[dict[str, Any]] = []
        while time.monotonic() - killed_at < 30:
            waited = browser.request("GET", f"/threads/{thread}/interrupts").json()["interrupts"]
            if waited:
                break
            time.sleep(0.2)
        seen_after = time.monotonic() - killed_at
        assert [p["kind"] for p in waited] == ["outcome_unknown"], survivor.log()
        assert seen_after < 15
        # sent once: one 'running' step event, and the fresh worker sent nothing
        sends = rows(data_dir, "SELECT data FROM threads_event WHERE thread_id = ? AND type = 'step'", (browser.key(thread),))
        assert sum(1 for (d,) in sends if json.loads(d if isinstance(d, str) else json.dumps(d))["status"] == "running") == 1
        assert shop.get_order("4412")["status"] == "archived"
        happened = browser.resume(thread, waited[0], "happened").json()
        assert happened["status"] == "done"
    finally:
        survivor.stop()
        browser.close()


@pytest.mark.parametrize("workers", WORKERS)
def test_a_worker_killed_during_a_hanging_charge_charges_exactly_once(data_dir: Path, workers: str):
    thread = tid(f"f-kill-charge-{workers}")
    browser, killed_at, survivor = kill_mid_write(
        data_dir, thread, "charge 40 to order 4411", "charge_card=hang",
        lambda: len(shop.charges("4411")) == 1, workers)
    try:
        status = ""
        while time.monotonic() - killed_at < 30:
            found = rows(data_dir, "SELECT status FROM threads_run WHERE thread_id = ?", (browser.key(thread),))
            status = found[0][0] if found else ""
            if status != "running":
                break
            time.sleep(0.2)
        assert status == "done", survivor.log()
        verdict = rows(data_dir, "SELECT r.verdict FROM threads_receipt r JOIN threads_step s ON r.step_id = s.id "
                                 "JOIN threads_run u ON s.run_id = u.id WHERE u.thread_id = ?", (browser.key(thread),))
        assert verdict == [("verified_applied",)]
        assert len(shop.charges("4411")) == 1
        assert browser.request("GET", f"/threads/{thread}/interrupts").json()["interrupts"] == []
    finally:
        survivor.stop()
        browser.close()


@pytest.mark.parametrize("workers", WORKERS)
def test_a_worker_killed_while_the_model_thinks_leaves_the_hand_off_to_the_sweep(data_dir: Path, tmp_path: Path,
                                                                                 workers: str):
    thread = tid(f"f-kill-model-{workers}")
    agent = tmp_path / "agent.yaml"
    with FakeChatServer([Reply(body=text_reply("Too late."), delay=120),
                         text_reply("Here is a song about your order.")]) as model:
        agent.write_text(SHOP.read_text().replace(
            "    vocabulary: vocabulary.yaml\n",
            "    vocabulary: vocabulary.yaml\n"
            f"    model: {{base_url: '{model.url}', model: fake, key_env: TEST_MODEL_KEY, timeout: 150}}\n"))
        (tmp_path / "vocabulary.yaml").write_text((SHOP.parent / "vocabulary.yaml").read_text())
        browser, killed_at, survivor = kill_mid_write(
            data_dir, thread, "put forty on my last purchase please", "", lambda: len(model.requests) == 1, workers,
            agent_file=agent, extra_env={"TEST_MODEL_KEY": "sk-test"})
        try:
            said: list[tuple[Any, ...]] = []
            while time.monotonic() - killed_at < 30:
                said = rows(data_dir, "SELECT m.text FROM threads_message m JOIN threads_run r ON m.run_id = r.id "
                                      "WHERE m.thread_id = ? AND m.role = 'assistant' AND r.status = 'done' "
                                      "ORDER BY m.created_at", (browser.key(thread),))
                if said:
                    break
                time.sleep(0.2)
            # The survivor's sweep asked the model again, once, and replied in the thread.
            assert said and said[-1] == ("Here is a song about your order.",), survivor.log()
            assert len(model.requests) == 2
            assert rows(data_dir, "SELECT replay_owner FROM threads_run WHERE thread_id = ?", (browser.key(thread),)) == [("",)]
        finally:
            survivor.stop()
            browser.close()


@pytest.mark.parametrize("workers", WORKERS)
def test_a_worker_killed_while_it_replays_a_teams_steps_is_taken_over_by_the_sweep(data_dir: Path, tmp_path: Path,
                                                                                   workers: str):
    from tests.threads.team_flows import agent_yaml

    agent = tmp_path / "team" / "agent.yaml"
    agent.parent.mkdir()
    agent.write_text(agent_yaml("thinks_then_charges"), encoding="utf-8")
    thread = tid(f"f-kill-replay-{workers}")
    doomed = Server(data_dir, agent_file=agent, env=FAST_SWEEP).start()
    survivor = Server(data_dir, agent_file=agent, env=FAST_SWEEP).start() if workers == "two" else None
    browser = Browser(doomed.url)
    browser.session = "team-replay-" + RUN + "-session"  # chosen by the client: the reply never comes
    threading.Thread(target=lambda: _quietly(lambda: browser.say(thread, "charge it")), daemon=True).start()
    deadline = time.monotonic() + 30
    while not (data_dir / "thinking").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert (data_dir / "thinking").exists(), doomed.log()
    assert doomed.proc is not None
    os.kill(doomed.proc.pid, signal.SIGKILL)  # mid-replay, holding the run's lease
    doomed.proc.wait()
    killed_at = time.monotonic()
    doomed.stop()
    survivor = survivor or Server(data_dir, agent_file=agent, env=FAST_SWEEP).start()
    follower = Browser(survivor.url)
    follower.session = browser.session
    try:
        waited: list[dict[str, Any]] = []
        while time.monotonic() - killed_at < 30:
            waited = follower.request("GET", f"/threads/{thread}/interrupts").json()["interrupts"]
            if waited:
                break
            time.sleep(0.1)
        taken_after = time.monotonic() - killed_at
        # The lease (2 s) lapses, then the next sweep (every 1 s) replays the steps: the charge waits.
        # A correctness bound, not a speed one: a replay's own lease used to hold a run for ten minutes.
        assert [(p["kind"], p["tool"]) for p in waited] == [("confirm", "charge_card")], survivor.log()
        assert taken_after < 20, f"taken over after {taken_after:.1f} s"
        print(f"\nA dead replaying worker's run taken over {taken_after:.2f} s after the kill ({workers})")
        # The survivor lets its lease go once the steps wait: just after the commit that opened the
        # pause (an answer in between asks the holder for one more round), so the pause may show first.
        owner: list[tuple[Any, ...]] = []
        let_go = time.monotonic() + 5
        while time.monotonic() < let_go:
            owner = rows(data_dir, "SELECT replay_owner FROM threads_run WHERE thread_id = ?", (browser.key(thread),))
            if owner == [("",)]:
                break
            time.sleep(0.05)
        assert owner == [("",)], survivor.log()
        done = follower.resume(thread, waited[0], "approve").json()
        assert "ch-4411" in done["reply"]["text"] and len(shop.charges("4411")) == 1
    finally:
        survivor.stop()
        browser.close()
        follower.close()


def _quietly(call: Any) -> None:
    try:
        call()
    except httpx.HTTPError:
        pass  # the worker died under it: the client never hears back
