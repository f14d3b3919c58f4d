"""The console's staff stream (issue 24) against a real ``stalwart serve``:
every pause opened and closed, across threads, for staff only, resumable by
``Last-Event-ID``; and across two workers over Redis."""

from __future__ import annotations

import json
import os
import re
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.conftest import on_postgres
from tests.support.server import Browser, Server
from tests.support.sse import SSEReader

pytestmark = pytest.mark.server
STREAM = "/admin/threads/interrupt/stream"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with Server(Path(tmp_path_factory.mktemp("staff-stream"))) as s:
        yield s


def staff_cookie(server: Server, *, operator: bool = False) -> str:
    from tests.e2e.test_commands import stalwart

    created = stalwart("createstaff", f"st-{uuid.uuid4().hex[:6]}", *(["--operator"] if operator else []),
                       data_dir=server.data_dir)
    name = re.search(r"Created \w+ '([^']+)'", created.stdout).group(1)  # type: ignore[union-attr]
    password = re.search(r"One-time password: (\S+)", created.stdout).group(1)  # type: ignore[union-attr]
    with httpx.Client(base_url=server.url) as admin:
        login = admin.get("/admin/login/")
        signed_in = admin.post("/admin/login/?next=/admin/", data={
            "username": name, "password": password, "csrfmiddlewaretoken": login.cookies["csrftoken"]})
        assert signed_in.status_code == 302
        return f"sessionid={admin.cookies['sessionid']}"


def take_pause(reader: SSEReader, change: str, pause: str, timeout: float = 2.0) -> list[dict]:
    """Events up to the pause change named (counts and others on the way included)."""
    out: list[dict] = []
    deadline = time.monotonic() + timeout
    while not any(e["event"] == "pause" and e["data"]["change"] == change and e["data"]["pause"] == pause
                  for e in out):
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"no {change} of {pause} within {timeout}s: {out}")
        out.extend(reader.take(1, timeout=left))
    return out


def test_staff_hear_each_pause_open_and_close_across_threads_with_the_count(server):
    reader = SSEReader(f"{server.url}{STREAM}", headers={"Cookie": staff_cookie(server)})
    assert reader.status == 200 and reader.content_type.startswith("text/event-stream")
    hello, count = reader.take(2)
    assert hello["event"] == "hello" and count["event"] == "count"
    before = count["data"]["count"]
    customer = Browser(server.url)
    thread = f"staff-{uuid.uuid4().hex[:8]}"
    said = customer.say(thread, "charge 40 to order 4411").json()
    pause = said["waiting"][0]
    sent = time.monotonic()
    got = take_pause(reader, "opened", pause["id"])
    assert time.monotonic() - sent < 2.0
    opened = next(e for e in got if e["event"] == "pause")
    assert opened["data"] == {"change": "opened", "pause": pause["id"], "thread": customer.key(thread), "kind": "confirm",
                              "tool": "charge_card"}
    # The words group thousands as the console does ("1,095"): the shared PostgreSQL database of a full run
    # holds many open pauses.
    assert reader.take(1)[0] == {"id": opened["id"], "event": "count", "data": {"count": before + 1,
                                                                                 "words": f"{before + 1:,}"}}
    customer.resume(thread, pause, "skip")
    closed = next(e for e in take_pause(reader, "closed", pause["id"]) if e["event"] == "pause")
    assert closed["data"]["status"] == "answered" and closed["id"] > opened["id"]
    assert reader.take(1)[0]["data"]["count"] == before
    reader.close()
    # Resumed from the opening: exactly what followed, then the count.
    again = SSEReader(f"{server.url}{STREAM}", headers={"Cookie": staff_cookie(server),
                                                        "Last-Event-ID": str(opened["id"])})
    replay = again.take(2)
    assert replay[0]["event"] == "pause" and replay[0]["id"] == closed["id"]
    assert replay[1]["event"] == "count"
    again.close()
    customer.close()


def test_the_staff_stream_is_for_staff_only(server):
    anonymous = SSEReader(f"{server.url}{STREAM}")
    assert anonymous.status == 404
    forged = SSEReader(f"{server.url}{STREAM}", headers={"Cookie": "sessionid=not-a-session"})
    assert forged.status == 404
    customer = Browser(server.url)
    customer.say(f"cust-{uuid.uuid4().hex[:6]}", "show order 4411")
    as_customer = SSEReader(f"{server.url}{STREAM}", headers={"Stalwart-Session": str(customer.session)})
    assert as_customer.status == 404
    # From another site's page the admin's cookie counts for nothing.
    elsewhere = SSEReader(f"{server.url}{STREAM}", headers={"Cookie": staff_cookie(server),
                                                            "Origin": "https://evil.example"})
    assert elsewhere.status == 404
    customer.close()


@pytest.mark.skipif(not on_postgres(), reason="two workers share a PostgreSQL database (set DATABASE_URL)")
@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="events cross workers over Redis (set REDIS_URL)")
def test_a_pause_made_on_one_worker_reaches_a_staff_stream_on_the_other(shop_dir: Path):
    env = {"STALWART_WORKERS": "2"}
    with Server(shop_dir, env=env) as a, Server(shop_dir, env=env) as b:
        reader = SSEReader(f"{a.url}{STREAM}", headers={"Cookie": staff_cookie(a)})
        reader.take(2)  # hello, count
        customer = Browser(b.url)
        thread = f"across-{uuid.uuid4().hex[:8]}"
        pause = customer.say(thread, "charge 40 to order 4411").json()["waiting"][0]
        sent = time.monotonic()
        take_pause(reader, "opened", pause["id"], timeout=2.0)
        assert time.monotonic() - sent < 2.0
        reader.close()
        customer.close()


@pytest.mark.parametrize("given", ["soon", "\u00b2", "-1", "9" * 5000])
def test_a_last_event_id_that_is_not_a_number_starts_the_staff_stream_afresh(server, given):
    reader = SSEReader(f"{server.url}{STREAM}", headers={"Cookie": staff_cookie(server)},
                       params={"last_event_id": given})
    assert reader.status == 200
    assert [e["event"] for e in reader.take(2)] == ["hello", "count"]
    reader.close()
    by_header = SSEReader(f"{server.url}{STREAM}", headers={
        "Cookie": staff_cookie(server), "Last-Event-ID": given.encode("latin-1", "replace")})  # type: ignore[dict-item]
    assert by_header.status == 200 and by_header.take(1)[0]["event"] == "hello"
    by_header.close()


def test_the_staff_stream_refuses_a_bad_host_or_a_post_in_the_error_shape(server):
    from threads.consumers import DETAIL_GET_ONLY, DETAIL_HOST

    cookie = staff_cookie(server)
    host = SSEReader(f"{server.url}{STREAM}", headers={"Cookie": cookie, "Host": "evil.example"})
    assert host.status == 400 and host.content_type == "application/json"
    assert json.loads(host.body) == {"error": "bad_request", "detail": str(DETAIL_HOST)}
    posted = httpx.post(f"{server.url}{STREAM}", headers={"Cookie": cookie})
    assert posted.status_code == 405 and posted.headers["allow"] == "GET"
    assert posted.json() == {"error": "bad_request", "detail": str(DETAIL_GET_ONLY)}
    anonymous = httpx.get(f"{server.url}{STREAM}")
    assert anonymous.status_code == 404 and anonymous.json()["error"] == "not_found"


def test_an_approval_short_of_the_quorum_reaches_staff_as_the_pauses_approvals(tmp_path: Path, shop_dir: Path):
    """Under a two-person policy the customer's approval is one of two: staff hear it (the queue shows
    "1 of 2 approvals" without a reload), the pause still open and the open count unchanged."""
    from tests.support.quorum import QUORUM, agent_file

    with Server(shop_dir, agent_file=agent_file(tmp_path, QUORUM)) as policed:
        reader = SSEReader(f"{policed.url}{STREAM}", headers={"Cookie": staff_cookie(policed)})
        hello, count = reader.take(2)
        customer = Browser(policed.url)
        thread = f"quorum-{uuid.uuid4().hex[:8]}"
        pause = customer.say(thread, "charge 600 to order 4411").json()["waiting"][0]
        take_pause(reader, "opened", pause["id"])
        opened_count = reader.take(1)[0]["data"]["count"]
        assert customer.resume(thread, pause, "approve").status_code == 202
        approved = next(e for e in take_pause(reader, "approved", pause["id"]) if e["event"] == "pause")
        assert approved["data"]["thread"] == customer.key(thread)
        assert approved["data"]["approvals"]["needed"] == 2 and len(approved["data"]["approvals"]["given"]) == 1
        assert reader.take(1)[0]["data"]["count"] == opened_count  # still open: nothing closed
        reader.close()
        # A stream resumed from before the approval replays it.
        again = SSEReader(f"{policed.url}{STREAM}", headers={"Cookie": staff_cookie(policed),
                                                             "Last-Event-ID": str(approved["id"] - 1)})
        assert again.take(1)[0]["data"]["change"] == "approved"
        again.close()
        customer.close()
