"""The MCP gateway (docs/mcp.md) against a real ``stalwart serve`` and a real
``stalwart mcp`` subprocess, with the MCP SDK's own client (``ClientSession``)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import mcp.types as types
import pytest

from examples.shop import tools as shop
from tests.e2e.conftest import on_postgres
from tests.e2e.test_faults import rows
from tests.support.mcp import Console, gateway_agent_file, keys_revoked, mcp_key, mcp_session, mcp_stdio
from tests.support.server import Server

pytestmark = pytest.mark.server

CHARGE = {"order_id": "4411", "amount": 40}
FAST_SWEEP = {"STALWART_SWEEP_SECONDS": "1", "STALWART_LEASE_SECONDS": "2"}


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


def unique(label: str) -> str:
    return f"{label}-{uuid.uuid4().hex[:6]}"


@pytest.fixture(autouse=True)
def _no_keys(data_dir: Path) -> None:
    """Each test starts with no client key in force (on PostgreSQL the servers of the suite share one database)."""
    keys_revoked(data_dir)


@pytest.fixture
def agent_file(mcp_agent_file: Path) -> Path:
    return mcp_agent_file


def thread_of(me: str, client: str | None = None) -> str:
    from doors.mcp.calls import caller_for

    class Named:
        name = client or ""
        privileges: list[str] = []
        context: dict[str, Any] = {}

    return caller_for(Named() if client else None, me).thread_id  # type: ignore[arg-type]


def pause_rows(data_dir: Path, me: str, client: str | None = None) -> list[tuple[Any, ...]]:
    return rows(data_dir, "SELECT id, status, tool FROM threads_interrupt WHERE thread_id = ? ORDER BY created_at",
                (thread_of(me, client),))


def replay_status(data_dir: Path, me: str) -> list[str]:
    return [s for (s,) in rows(data_dir, "SELECT status FROM threads_replay WHERE caller = ?", (thread_of(me),))]


def wait_for(check: Callable[[], bool], what: str | Callable[[], Any]) -> None:
    deadline = time.monotonic() + 60
    while not check():
        assert time.monotonic() < deadline, what() if callable(what) else what
        time.sleep(0.2)


def test_tools_list_is_the_catalogue_less_withdrawn_and_a_withdrawal_is_told(gateway, data_dir, me):
    console = Console(gateway.url, data_dir, unique("ops"))
    changed = asyncio.Event()

    async def told(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    async def scenario() -> tuple[Any, Any, Any]:
        async with mcp_session(f"{gateway.url}/mcp/", on_message=told, name=me) as session:
            before = (await session.list_tools()).tools
            await asyncio.to_thread(console.withdraw, "Shop", "send_receipt")
            await asyncio.wait_for(changed.wait(), timeout=15)
            after = (await session.list_tools()).tools
            refused = await session.call_tool("send_receipt", {"order_id": "4411", "email": "a@example.com"})
            return before, after, refused

    try:
        before, after, refused = run(scenario())
    finally:
        console.restore("Shop", "send_receipt")  # the suite's servers may share one database
    names = [t.name for t in before]
    assert names == ["get_order", "search_orders", "charge_card", "refund_card", "archive_order", "read_inbox",
                     "send_receipt", "stalwart_pause_status"]
    tools = {t.name: t for t in before}
    assert set(tools["charge_card"].input_schema["properties"]) == {"order_id", "amount"}  # no idempotency_key
    assert "idempotency_key" not in json.dumps([t.input_schema for t in before])
    hints = {t.name: (t.annotations.read_only_hint, t.annotations.destructive_hint) for t in before}
    assert hints["get_order"] == (True, False) and hints["charge_card"] == (False, False)
    assert hints["send_receipt"] == (False, True) and hints["refund_card"] == (False, True)  # irreversible writes
    assert hints["stalwart_pause_status"] == (True, False)
    assert "send_receipt" not in [t.name for t in after] and len(after) == len(before) - 1
    assert refused.is_error and refused.structured_content["status"] == "refused"
    assert refused.structured_content["rule"] == "withdrawn"
    console.close()


def test_a_read_runs_and_a_missing_privilege_is_refused_before_the_tool(gateway, me):
    async def scenario() -> tuple[Any, Any]:
        async with mcp_session(f"{gateway.url}/mcp/", name=me) as session:
            return (await session.call_tool("get_order", {"order_id": "4411"}),
                    await session.call_tool("refund_card", {"order_id": "4412", "amount": 15.5}))

    read, refund = run(scenario())
    assert not read.is_error and read.structured_content["card"] == "visa-0019"
    assert json.loads(read.content[0].text)["status"] == "unpaid"
    assert refund.is_error and refund.structured_content == {
        "status": "refused", "rule": "privilege:refunds", "sentence": refund.content[0].text}
    assert "refunds" in refund.content[0].text
    assert [c for c in shop.charges("4412") if c["kind"] == "refund"] == []  # the shop saw no call


def test_a_held_write_says_so_then_answers_waiting_naming_its_pause(gateway, data_dir, me):
    progress: list[str] = []

    async def noted(done: float, total: float | None, message: str | None) -> None:
        progress.append(message or "")

    async def scenario() -> Any:
        async with mcp_session(f"{gateway.url}/mcp/", name=me) as session:
            return await session.call_tool("charge_card", CHARGE, progress_callback=noted)

    started = time.monotonic()
    held = run(scenario())
    assert time.monotonic() - started >= 2.5  # held for the agent's wait budget (3 s here)
    body = held.structured_content
    assert not held.is_error and body["status"] == "waiting"
    pause = body["pause"]
    assert pause["tool"] == "charge_card" and pause["question"] == "Charge the card?"
    assert pause["arguments"] == [{"name": "amount", "value": 40, "origin": "agent"},
                                  {"name": "order_id", "value": "4411", "origin": "agent"}]
    # The client's person can open where it points without a staff account: what waits, and who answers it.
    assert pause["url"].startswith(f"{gateway.url}/pauses/{pause['id']}/")
    page = httpx.get(pause["url"])
    assert page.status_code == 200 and "Charge the card?" in page.text and "Waiting for a person" in page.text
    assert httpx.get(pause["url"].rstrip("/") + "0/").status_code == 404  # the address is not guessable
    assert progress and pause["id"] in progress[0] and "charge_card" in progress[0]
    assert pause_rows(data_dir, me) == [(pause["id"], "open", "charge_card")]  # in the console's queue at once
    assert shop.charges() == []


def test_a_client_that_gave_up_gets_the_outcome_when_it_calls_again_and_nothing_runs_twice(gateway, data_dir, me):
    console = Console(gateway.url, data_dir, unique("ops"))

    async def call() -> Any:
        async with mcp_session(f"{gateway.url}/mcp/", name=me) as session:
            return await session.call_tool("charge_card", CHARGE)

    first = run(call())
    pause = first.structured_content["pause"]
    assert "Answered" in console.answer(pause["id"], "approve")  # a person, in the console
    again = run(call())  # the same call, a new connection of the same client
    assert not again.is_error and again.structured_content["charge_id"] == "ch-4411"
    assert len(shop.charges("4411")) == 1
    receipts = rows(data_dir, "SELECT r.operation_id FROM threads_receipt r JOIN threads_step s ON r.step_id = s.id "
                              "JOIN threads_run u ON s.run_id = u.id WHERE u.thread_id = ?", (thread_of(me),))
    assert len(receipts) == 1
    status = run(_pause_status(gateway.url, pause["id"], me))
    assert status.structured_content["charge_id"] == "ch-4411"
    # The outcome counts as delivered once the server has sent it, which it records just after: the client
    # may read the result a moment before that mark is stored (seen on a loaded machine).
    wait_for(lambda: replay_status(data_dir, me) == ["delivered"], lambda: replay_status(data_dir, me))
    third = run(call())  # delivered already: the same call again is a new call, which waits anew
    assert third.structured_content["status"] == "waiting" and third.structured_content["pause"]["id"] != pause["id"]
    assert len(shop.charges("4411")) == 1
    console.close()


async def _pause_status(url: str, pause_id: str, me: str) -> Any:
    async with mcp_session(f"{url}/mcp/", name=me) as session:
        return await session.call_tool("stalwart_pause_status", {"pause_id": pause_id})


def test_a_client_answering_by_form_accepts_once_and_a_decline_skips(gateway, me):
    async def scenario(decision: str, order: dict[str, Any]) -> Any:
        async def answer(ctx: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
            assert params.requested_schema["properties"]["decision"]["enum"] == ["approve", "skip", "cancel_all"]
            if decision == "decline":
                return types.ElicitResult(action="decline")
            return types.ElicitResult(action="accept", content={"decision": decision})

        async with mcp_session(f"{gateway.url}/mcp/Counter/", elicit=answer, name=me) as session:
            return await session.call_tool("charge_card", order)

    accepted = run(scenario("approve", CHARGE))
    assert accepted.structured_content["charge_id"] == "ch-4411" and len(shop.charges("4411")) == 1
    declined = run(scenario("decline", {"order_id": "5001", "amount": 99.9}))
    assert declined.structured_content == {"status": "skipped"} and shop.charges("5001") == []


def test_the_console_and_the_clients_own_answer_at_once_charge_once_and_the_loser_is_told(gateway, data_dir, me):
    console = Console(gateway.url, data_dir, unique("ops"))

    async def scenario() -> Any:
        async def answer(ctx: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
            pause_id = pause_rows(data_dir, me)[-1][0]
            await asyncio.to_thread(console.answer, pause_id, "approve")  # the console got there first
            return types.ElicitResult(action="accept", content={"decision": "approve"})

        async with mcp_session(f"{gateway.url}/mcp/Counter/", elicit=answer, name=me) as session:
            return await session.call_tool("charge_card", CHARGE)

    from doors.mcp.server import TEXT_LOST

    result = run(scenario())
    # The console's approval ran the charge; the client's answer lost the claim and is told so, with the outcome.
    assert result.content[0].text.startswith(str(TEXT_LOST))
    assert result.structured_content["charge_id"] == "ch-4411" and len(shop.charges("4411")) == 1
    won = rows(data_dir, "SELECT decision, answered_via FROM threads_interrupt WHERE thread_id = ?", (thread_of(me),))
    assert won == [("approve", "console")]
    console.close()


def test_keys_wrong_revoked_and_in_force_and_a_keys_context_reaches_its_argument(data_dir, agent_file):
    from tests.support.mcp import stalwart

    front, gone = unique("shopfront"), unique("gone")
    key = mcp_key(data_dir, front, "--ctx", "customer=c-311")
    revoked = mcp_key(data_dir, gone)
    stalwart("mcp-client", gone, "--revoke", data_dir=data_dir)
    try:
        _keys_in_force(data_dir, agent_file, key, revoked, front)
    finally:
        stalwart("mcp-client", front, "--revoke", data_dir=data_dir)  # the next tests call without a key


def _keys_in_force(data_dir: Path, agent_file: Path, key: str, revoked: str, front: str) -> None:
    with Server(data_dir, agent_file=agent_file) as server:
        assert "MCP: /mcp/ takes calls with a client key (1 in force)." in server.log()
        for bearer in ("", "stw_not-a-key", revoked):
            refused = httpx.post(f"{server.url}/mcp/", headers={"Authorization": f"Bearer {bearer}"} if bearer else {},
                                 json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}})
            assert refused.status_code == 401 and refused.json()["error"] == "unauthorized", bearer
            assert refused.headers["www-authenticate"].startswith("Bearer")

        async def scenario() -> Any:
            async with mcp_session(f"{server.url}/mcp/", key=key, name="storefront") as session:
                # The model asks for another customer's orders; the key's context decides whose.
                return await session.call_tool("search_orders", {"customer": "c-208"})

        found = run(scenario())
        assert [o["order_id"] for o in found.structured_content["orders"]] == ["5001"]
        arguments = rows(data_dir, "SELECT s.arguments FROM threads_step s JOIN threads_run r ON s.run_id = r.id "
                                   "WHERE r.thread_id = ?", (thread_of("storefront", front),))
        shown = json.loads(arguments[0][0]) if isinstance(arguments[0][0], str) else arguments[0][0]
        assert shown == [{"name": "customer", "value": "c-311", "origin": "context"}]


def _outside_address() -> str | None:
    """An address of this machine that is not loopback, if it has one."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # no packet is sent: only the route is chosen
            address = str(probe.getsockname()[0])
        except OSError:
            return None
    return None if address.startswith("127.") else address


def test_without_keys_the_endpoint_answers_this_machine_only(data_dir, agent_file):
    outside = _outside_address()
    if outside is None:
        pytest.skip("this machine has no address but loopback")
    with Server(data_dir, agent_file=agent_file, args=["--host", "0.0.0.0"]) as server:  # noqa: S104 - the test
        assert "answers this machine (loopback) only" in server.log()
        body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
        far = httpx.post(f"http://{outside}:{server.port}/mcp/", json=body)
        assert far.status_code == 401 and "this machine only" in far.json()["detail"]
        near = httpx.post(f"http://127.0.0.1:{server.port}/mcp/", json=body,
                          headers={"Accept": "application/json, text/event-stream"})
        assert near.status_code != 401


def test_stalwart_mcp_over_stdio_reads_and_its_pauses_are_in_the_console(data_dir, agent_file, me):
    async def scenario() -> tuple[Any, Any, Any]:
        async with mcp_stdio(agent_file, data_dir, name=me) as session:
            tools = (await session.list_tools()).tools
            read = await session.call_tool("get_order", {"order_id": "5001"})
            write = await session.call_tool("archive_order", {"order_id": "4412"})
            return tools, read, write

    with Server(data_dir, agent_file=agent_file):  # the console, serving the same database
        tools, read, write = run(scenario())
    assert "stalwart_pause_status" in [t.name for t in tools]
    assert read.structured_content["total"] == "99.90"
    assert write.structured_content["status"] == "waiting"
    assert pause_rows(data_dir, me)[-1][1:] == ("open", "archive_order")
    assert shop.get_order("4412")["status"] == "paid"  # nothing archived


def test_a_current_protocol_client_answers_by_form_through_input_required(gateway, me):
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    asked: list[str] = []

    async def answer(ctx: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"decision": "approve"})

    async def scenario() -> tuple[str, Any]:
        async with httpx2.AsyncClient(timeout=httpx2.Timeout(30, read=120)) as http:
            async with Client(streamable_http_client(f"{gateway.url}/mcp/Counter/", http_client=http),
                              elicitation_callback=answer,
                              client_info=types.Implementation(name=me, version="1")) as client:
                return client.protocol_version, await client.call_tool("charge_card", CHARGE)

    version, result = run(scenario())
    assert version == "2026-07-28"
    assert asked and "Charge the card?" in asked[0]
    assert result.structured_content["charge_id"] == "ch-4411" and len(shop.charges("4411")) == 1


def test_a_held_call_is_answered_in_chromium_and_returns_the_charge(data_dir, tmp_path, me):
    from tests.e2e.test_console_browser import CHROMIUM, CHROMIUM_ARGS, createstaff, sign_in

    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip("needs Debian's chromium")
    agent = gateway_agent_file(tmp_path, wait=120)
    with Server(data_dir, agent_file=agent) as server:
        progress: list[str] = []
        done: dict[str, Any] = {}

        async def noted(value: float, total: float | None, message: str | None) -> None:
            progress.append(message or "")

        async def call() -> None:
            async with mcp_session(f"{server.url}/mcp/", name=me) as session:
                done["result"] = await session.call_tool("charge_card", CHARGE, progress_callback=noted)

        caller = threading.Thread(target=lambda: run(call()), daemon=True)
        caller.start()
        deadline = time.monotonic() + 30
        while not progress and time.monotonic() < deadline:
            time.sleep(0.1)
        assert progress, server.log()
        url = progress[0].rsplit(": ", 1)[1]
        name = unique("approver")
        password = createstaff(data_dir, name)
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page()
            sign_in(page, server.url, name, password)
            page.goto(url)  # the status page the progress names; staff follow it to the console
            assert page.inner_text("[role=status]") == "Waiting for a person's approval"
            page.click("text=answer it in the console")
            assert "charge_card" in page.inner_text("main, #content")
            page.click("button[value=approve]")
            page.wait_for_selector(".messagelist")
            browser.close()
        caller.join(timeout=60)
    assert done["result"].structured_content["charge_id"] == "ch-4411"
    assert len(shop.charges("4411")) == 1


@pytest.mark.skipif(not on_postgres(), reason="two workers share a PostgreSQL database")
def test_a_call_held_on_one_worker_is_answered_through_the_other(data_dir, tmp_path, me):
    agent = gateway_agent_file(tmp_path, wait=60)
    with Server(data_dir, agent_file=agent) as one, Server(data_dir, agent_file=agent) as other:
        console = Console(other.url, data_dir, unique("ops"))
        result: dict[str, Any] = {}

        async def call() -> None:
            async with mcp_session(f"{one.url}/mcp/", name=me) as session:
                result["held"] = await session.call_tool("charge_card", CHARGE)

        caller = threading.Thread(target=lambda: run(call()), daemon=True)
        caller.start()
        deadline = time.monotonic() + 30
        while not pause_rows(data_dir, me) and time.monotonic() < deadline:
            time.sleep(0.1)
        console.answer(pause_rows(data_dir, me)[-1][0], "approve")  # on the other worker
        caller.join(timeout=60)
        console.close()
    assert result["held"].structured_content["charge_id"] == "ch-4411" and len(shop.charges("4411")) == 1


WORKERS = [pytest.param("fresh", id="a-fresh-worker"),
           pytest.param("two", id="two-workers", marks=pytest.mark.skipif(
               not on_postgres(), reason="two workers serving at once need PostgreSQL"))]


@contextmanager
def servers() -> Iterator[list[Server]]:
    """The servers a test starts, each stopped at its end, however it ends (an orphan would serve on,
    and sweep other tests' rows on a database the suite shares)."""
    started: list[Server] = []
    try:
        yield started
    finally:
        for server in started:
            server.stop()


def kill(server: Server) -> None:
    assert server.proc is not None
    os.kill(server.proc.pid, signal.SIGKILL)
    server.proc.wait()
    server.stop()


@pytest.mark.parametrize("workers", WORKERS)
def test_a_worker_killed_while_a_write_waits_leaves_the_pause_and_the_same_call_reattaches(data_dir, tmp_path,
                                                                                           workers, me):
    (tmp_path / "long").mkdir()
    (tmp_path / "short").mkdir()
    agent = gateway_agent_file(tmp_path / "long", wait=120)  # the doomed worker holds the call
    quick = gateway_agent_file(tmp_path / "short", wait=2)  # the survivor's answers "waiting" soon

    async def call(url: str) -> Any:
        async with mcp_session(f"{url}/mcp/", name=me) as session:
            return await session.call_tool("charge_card", CHARGE)

    with servers() as started:
        doomed = Server(data_dir, agent_file=agent, env=FAST_SWEEP)
        started.append(doomed.start())
        if workers == "two":
            started.append(Server(data_dir, agent_file=quick, env=FAST_SWEEP).start())
        threading.Thread(target=lambda: _quietly(lambda: run(call(doomed.url))), daemon=True).start()
        deadline = time.monotonic() + 30
        while not pause_rows(data_dir, me) and time.monotonic() < deadline:
            time.sleep(0.1)
        first = pause_rows(data_dir, me)[-1][0]
        kill(doomed)
        if workers == "fresh":
            started.append(Server(data_dir, agent_file=quick, env=FAST_SWEEP).start())
        again = run(call(started[-1].url))
        assert again.structured_content["status"] == "waiting"
        assert again.structured_content["pause"]["id"] == first  # re-attached to the same pause
        assert [r[1] for r in pause_rows(data_dir, me)] == ["open"] and shop.charges() == []


@pytest.mark.parametrize("workers", WORKERS)
def test_a_worker_killed_mid_write_after_approval_never_writes_twice_and_the_client_reads_the_outcome(
        data_dir, tmp_path, workers, me):
    agent = gateway_agent_file(tmp_path, wait=2)
    env = {**FAST_SWEEP, "STALWART_SHOP_FAULTS": "archive_order=hang", "STALWART_SHOP_HANG": "120"}

    async def call(url: str) -> Any:
        async with mcp_session(f"{url}/mcp/", name=me) as session:
            return await session.call_tool("archive_order", {"order_id": "4412"})

    with servers() as started:
        doomed = Server(data_dir, agent_file=agent, env=env)
        started.append(doomed.start())
        if workers == "two":
            started.append(Server(data_dir, agent_file=agent, env=env).start())
        pause = run(call(doomed.url)).structured_content["pause"]
        console = Console(doomed.url, data_dir, unique("ops"))
        threading.Thread(target=lambda: _quietly(lambda: console.answer(pause["id"], "approve")),
                         daemon=True).start()
        deadline = time.monotonic() + 30
        while shop.get_order("4412")["status"] != "archived" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert shop.get_order("4412")["status"] == "archived"  # the effect happened; its reply hangs
        kill(doomed)
        console.close()
        if workers == "fresh":
            started.append(Server(data_dir, agent_file=agent, env=env).start())
        outcome: Any = None
        while time.monotonic() < deadline + 30:
            outcome = run(call(started[-1].url))  # the same call: its run, as the sweep left it
            if outcome.structured_content["status"] != "waiting":
                break
            time.sleep(0.5)
        assert outcome.structured_content["status"] == "outcome_unknown", started[-1].log()
        assert outcome.structured_content["pause"]["tool"] == "archive_order"
        sends = rows(data_dir, "SELECT data FROM threads_event WHERE thread_id = ? AND type = 'step'", (thread_of(me),))
        running = [d for (d,) in sends if (json.loads(d) if isinstance(d, str) else d)["status"] == "running"]
        assert len(running) == 1  # sent once, never again


def _quietly(call: Any) -> None:
    try:
        call()
    except Exception:  # noqa: BLE001 - the worker died under it: the client never hears back
        pass


def test_stalwart_in_front_of_the_shops_own_mcp_server(data_dir, me):
    """docs/mcp.md's MCP-to-MCP gateway: examples/shop/agent-mcp.yaml's tools are the shop's MCP server's."""
    from tests.support.server import ROOT

    async def scenario() -> tuple[Any, Any, Any]:
        async with mcp_stdio(ROOT / "examples" / "shop" / "agent-mcp.yaml", data_dir, name=me,
                             ) as session:
            tools = [t.name for t in (await session.list_tools()).tools]
            read = await session.call_tool("get_order", {"order_id": "4411"})
            write = await session.call_tool("archive_order", {"order_id": "4412"})
            return tools, read, write

    tools, read, write = run(scenario())
    assert {"get_order", "charge_card", "stalwart_pause_status"} <= set(tools)
    assert read.structured_content["card"] == "visa-0019"  # through the shop's MCP server
    assert write.structured_content["status"] == "waiting" and shop.get_order("4412")["status"] == "paid"
