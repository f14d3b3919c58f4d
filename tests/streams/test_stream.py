"""The thread stream (SSE) and the WebSocket, against a real ``stalwart serve``."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from tests.support.server import Browser, Server
from tests.support.sse import SSEReader
from threads.selectors import SESSION_HEADER

pytestmark = pytest.mark.server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with Server(Path(tmp_path_factory.mktemp("streams"))) as s:
        yield s


def tid(label: str) -> str:
    return f"{label}-{uuid.uuid4().hex[:8]}"


def started(server: Server, label: str) -> tuple[Browser, str]:
    browser = Browser(server.url)
    thread = tid(label)
    assert browser.say(thread, "show order 4411").status_code == 200
    return browser, thread


def stream(server: Server, browser: Browser, thread: str, **headers: str) -> SSEReader:
    return SSEReader(f"{server.url}/threads/{thread}/stream", headers={SESSION_HEADER: str(browser.session), **headers})


def test_a_stream_sees_a_pause_and_its_answer_then_a_reconnect_gets_exactly_what_followed(server):
    browser, thread = started(server, "live")
    reader = stream(server, browser, thread)
    assert reader.status == 200 and reader.content_type.startswith("text/event-stream")
    before = reader.take_until("reply")  # the replay: the first turn's events
    assert [e["event"] for e in before][0] == "turn" and reader.retry and reader.retry > 0

    said = browser.say(thread, "charge 40 to order 4411").json()
    paused = reader.take_until("reply")
    assert [e["event"] for e in paused] == ["turn", "waiting", "reply"]
    # The stream shows the token (to the thread's own session); the stored event keeps none.
    assert paused[1]["data"]["id"] == said["waiting"][0]["id"]
    assert paused[1]["data"]["token"] == said["waiting"][0]["token"]
    answered = browser.resume(thread, said["waiting"][0], "approve").json()
    after = reader.take_until("reply")
    kinds = [e["event"] for e in after]
    assert kinds[0] == "answered" and "step" in kinds and kinds[-1] == "reply"
    assert after[-1]["data"]["message"] == answered["reply"]["id"]
    seen = before + paused + after
    ids = [e["id"] for e in seen]
    assert ids == list(range(1, len(ids) + 1))  # numeric, increasing, no gap
    assert all(isinstance(e["data"], dict) for e in seen)
    assert reader.pending() == []  # and no duplicate
    reader.close()

    # A reconnect after the pause gets exactly what followed it, in order, then live ones.
    cut = paused[-1]["id"]
    again = stream(server, browser, thread, **{"Last-Event-ID": str(cut)})
    replayed = again.take(len(after))
    assert replayed == after
    browser.say(thread, "show order 4411")
    live = again.take_until("reply")
    assert live[0]["event"] == "turn" and live[0]["id"] == after[-1]["id"] + 1
    assert again.pending() == []
    again.close()

    # The query parameters, for EventSource, which cannot set headers.
    by_query = SSEReader(f"{server.url}/threads/{thread}/stream",
                         params={"session": str(browser.session), "last_event_id": str(live[-1]["id"] - 1)})
    assert by_query.take(1)[0] == live[-1]
    by_query.close()
    browser.close()


def test_another_session_or_none_gets_404(server):
    browser, thread = started(server, "mine")
    other = Browser(server.url)
    other.say(tid("theirs"), "show order 4411")
    for headers in ({SESSION_HEADER: str(other.session)}, {}):
        refused = SSEReader(f"{server.url}/threads/{thread}/stream", headers=headers)
        assert refused.status == 404 and json.loads(refused.body)["error"] == "not_found"
    missing = SSEReader(f"{server.url}/threads/nobody-{uuid.uuid4().hex[:6]}/stream",
                        headers={SESSION_HEADER: str(browser.session)})
    assert missing.status == 404
    browser.close()
    other.close()


@pytest.mark.parametrize("given", ["soon", "\u00b2", "\u0663", "-1", "1e3", "9" * 19, "9" * 5000, "\x00"])
def test_a_last_event_id_that_is_not_a_number_starts_afresh(server, given):
    browser, thread = started(server, "afresh")
    whole = stream(server, browser, thread)
    first = whole.take_until("reply")
    whole.close()
    assert first[0]["id"] == 1
    by_query = SSEReader(f"{server.url}/threads/{thread}/stream",
                         params={"session": str(browser.session), "last_event_id": given})
    assert by_query.status == 200 and by_query.take_until("reply") == first
    by_query.close()
    if given.isprintable() and len(given) < 100:  # a header as sent: latin-1 bytes (b"\xb2" for "²")
        by_header = SSEReader(f"{server.url}/threads/{thread}/stream",
                              headers={SESSION_HEADER: str(browser.session),
                                       "Last-Event-ID": given.encode("latin-1", "replace")})  # type: ignore[dict-item]
        assert by_header.status == 200 and by_header.take_until("reply") == first
        by_header.close()
    browser.close()


def ws_url(server: Server, path: str) -> str:
    return server.url.replace("http://", "ws://") + path


def test_a_websocket_gets_the_same_events_and_only_for_its_session(server):
    browser, thread = started(server, "ws")
    with connect(ws_url(server, f"/ws/threads/{thread}/?session={browser.session}"), open_timeout=10) as ws:
        first = [json.loads(ws.recv(timeout=10)) for _ in range(2)]
        assert first[0]["event"] == "turn" and first[0]["id"] == 1 and isinstance(first[0]["data"], dict)
        while first[-1]["event"] != "reply":
            first.append(json.loads(ws.recv(timeout=10)))
        said = browser.say(thread, "charge 40 to order 4411").json()
        live = [json.loads(ws.recv(timeout=10))]
        while live[-1]["event"] != "reply":
            live.append(json.loads(ws.recv(timeout=10)))
        assert live[0] == {"id": first[-1]["id"] + 1, "event": "turn", "data": live[0]["data"]}
        assert [e["event"] for e in live] == ["turn", "waiting", "reply"] and live[1]["data"]["id"] == said["waiting"][0]["id"]
        ws.send("not json at all")  # ignored, the socket stays open
        browser.resume(thread, said["waiting"][0], "skip")
        assert json.loads(ws.recv(timeout=10))["event"] == "answered"
    # The header works too, and last_event_id resumes.
    headers = {SESSION_HEADER: str(browser.session)}
    with connect(ws_url(server, f"/ws/threads/{thread}/?last_event_id={live[-1]['id']}"),
                 additional_headers=headers, open_timeout=10) as ws:
        assert json.loads(ws.recv(timeout=10))["event"] == "answered"

    other = Browser(server.url)
    other.say(tid("theirs"), "show order 4411")
    for path in (f"/ws/threads/{thread}/?session={other.session}", f"/ws/threads/{thread}/"):
        with pytest.raises(InvalidStatus) as refused:
            connect(ws_url(server, path), open_timeout=10)
        assert refused.value.response.status_code == 403
    browser.close()
    other.close()


def test_an_unknown_websocket_route_is_refused_cleanly_and_the_server_serves_on(server):
    with pytest.raises(InvalidStatus) as refused:
        connect(ws_url(server, "/ws/nowhere/"), open_timeout=10)
    assert refused.value.response.status_code == 403  # a refused handshake, not a 500
    assert "Traceback" not in server.log()
    browser, _ = started(server, "after")
    browser.close()


def test_open_streams_hold_no_thread_each(server):
    browser, thread = started(server, "many")
    assert server.proc is not None
    readers = [stream(server, browser, thread) for _ in range(40)]
    for reader in readers:
        reader.take_until("reply")
    threads = int(next(line.split()[1] for line in Path(f"/proc/{server.proc.pid}/status").read_text().splitlines()
                       if line.startswith("Threads:")))
    assert threads < 30, f"{threads} OS threads with 40 streams open"
    browser.say(thread, "show order 4411")
    assert all(r.take_until("reply")[0]["event"] == "turn" for r in readers)
    for reader in readers:
        reader.close()
    browser.close()


def test_staff_signed_in_to_the_admin_may_follow_any_thread(server):
    import re

    import httpx

    from tests.e2e.test_commands import stalwart

    created = stalwart("createstaff", f"st-{uuid.uuid4().hex[:6]}", data_dir=server.data_dir)
    name = re.search(r"Created approver '([^']+)'", created.stdout).group(1)  # type: ignore[union-attr]
    password = re.search(r"One-time password: (\S+)", created.stdout).group(1)  # type: ignore[union-attr]
    browser, thread = started(server, "staffed")
    with httpx.Client(base_url=server.url) as admin:
        login = admin.get("/admin/login/")
        signed_in = admin.post("/admin/login/?next=/admin/", data={
            "username": name, "password": password, "csrfmiddlewaretoken": login.cookies["csrftoken"]})
        assert signed_in.status_code == 302
        cookie = f"sessionid={admin.cookies['sessionid']}"
    key = browser.key(thread)  # staff name a thread by its key (the id alone is every session's)
    reader = SSEReader(f"{server.url}/threads/{key}/stream", headers={"Cookie": cookie})
    assert reader.status == 200 and reader.take(1)[0]["event"] == "turn"
    reader.close()
    by_id = SSEReader(f"{server.url}/threads/{thread}/stream", headers={"Cookie": cookie})
    assert by_id.status == 404
    forged = SSEReader(f"{server.url}/threads/{key}/stream", headers={"Cookie": "sessionid=not-a-session"})
    assert forged.status == 404
    with connect(ws_url(server, f"/ws/threads/{key}/"), additional_headers={"Cookie": cookie},
                 open_timeout=10) as ws:
        assert json.loads(ws.recv(timeout=10))["event"] == "turn"
    # From another site's page the admin's cookie counts for nothing.
    with pytest.raises(InvalidStatus):
        connect(ws_url(server, f"/ws/threads/{key}/"), additional_headers={"Cookie": cookie},
                origin="https://evil.example", open_timeout=10)
    browser.close()


def test_a_cross_origin_stream_gets_the_same_events_from_the_same_consumer(server):
    browser, thread = started(server, "embedded")
    same_site = stream(server, browser, thread)
    embedded = stream(server, browser, thread, Origin="https://shop.example")
    assert embedded.status == 200 and embedded.content_type.startswith("text/event-stream")
    assert embedded.take_until("reply") == same_site.take_until("reply")
    browser.say(thread, "show order 4411")
    assert embedded.take_until("reply") == same_site.take_until("reply")
    assert embedded.pending() == []
    embedded.close()
    same_site.close()
    browser.close()


def test_a_host_not_allowed_is_refused_on_the_stream_as_on_every_route(server):
    browser, thread = started(server, "host")
    refused = stream(server, browser, thread, Host="evil.example")
    assert refused.status == 400
    browser.close()


def test_an_embedding_page_gets_its_cors_grant_on_the_stream_and_others_none(tmp_path_factory):
    import httpx

    with Server(Path(tmp_path_factory.mktemp("embedded")), env={"STALWART_EMBED_ORIGINS": "https://shop.example"}) as s:
        browser, thread = started(s, "cors")
        route = f"{s.url}/threads/{thread}/stream"
        preflight = httpx.options(route, headers={"Origin": "https://shop.example",
                                                  "Access-Control-Request-Method": "GET",
                                                  "Access-Control-Request-Headers": "stalwart-session"})
        assert preflight.status_code == 200
        assert preflight.headers["access-control-allow-origin"] == "https://shop.example"
        assert "stalwart-session" in preflight.headers["access-control-allow-headers"]
        granted = stream(s, browser, thread, Origin="https://shop.example")
        assert granted.status == 200 and granted.take_until("reply")[0]["event"] == "turn"
        assert granted.headers_received.get("access-control-allow-origin") == "https://shop.example"
        granted.close()
        other = stream(s, browser, thread, Origin="https://evil.example")
        assert other.status == 200 and "access-control-allow-origin" not in other.headers_received
        other.close()
        refused = SSEReader(route, headers={"Origin": "https://shop.example"})  # no session: the 404 carries it too
        assert refused.status == 404 and refused.headers_received.get("access-control-allow-origin") == "https://shop.example"
        browser.close()
