"""The LangGraph bridge served for real (daphne, make_app over a graph): its routes'
bodies, statuses and errors as a client sees them, through Channels and Django."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.langgraph.graphs import say
from tests.support.server import Server

pytestmark = pytest.mark.server
JSON = {"Content-Type": "application/json"}


@pytest.fixture(scope="module")
def bridge(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    folder: Path = tmp_path_factory.mktemp("langgraph")
    server = Server(folder, module="tests.langgraph.graphs:mail_agent").start(timeout=180)  # langchain's imports
    try:
        with httpx.Client(base_url=server.url, timeout=60.0) as client:
            yield client
    finally:
        server.stop()


def test_a_run_waits_the_interrupts_are_stable_and_one_approval_resumes_it(bridge):
    started = bridge.post("/threads/s-1/runs", json={"if_not_exists": "create", "input": say(("send_email", {"to": "ana@example.com",
                                                                                    "body": "hi"}))})
    assert (started.status_code, started.json()["status"]) == (200, "success")
    (pause,) = bridge.get("/threads/s-1/interrupts").json()["waiting"]
    assert (pause["kind"], pause["tool"]) == ("confirm", "send_email")
    listed = [bridge.get("/threads/s-1/interrupts").json()["interrupts"] for _ in range(2)]
    assert [p["id"] for p in listed[0]] == [p["id"] for p in listed[1]] == [pause["id"]]
    body = {"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]}
    done = bridge.post("/threads/s-1/resume", json=body)
    assert done.status_code == 200 and done.json()["resumed"] is True and done.json()["waiting"] == []
    assert "sent to ana@example.com" in done.json()["output"]["messages"][-1]["content"]
    again = bridge.post("/threads/s-1/resume", json=body)
    assert again.status_code == 409 and again.json()["error"] == "interrupt_stale"
    assert again.json()["interrupt"]["decision"] == "approve"


def test_bad_requests_get_the_error_shape(bridge):
    bridge.post("/threads/s-2/runs", json={"if_not_exists": "create", "input": say(("delete_file", {"path": "/tmp/r"}))})
    pause = bridge.get("/threads/s-2/interrupts").json()["interrupts"][0]
    cases = [
        (bridge.post("/threads/s-2/resume", content=b"{not json", headers=JSON), 400, "bad_request"),
        (bridge.post("/threads/s-2/resume", content=b"{}"), 415, "bad_request"),  # not said to be JSON
        (bridge.post("/threads/s-2/resume", json={"interrupt_id": "p-nope", "decision": "approve", "token": ""}),
         404, "not_found"),
        (bridge.post("/threads/s-2/resume", json={"interrupt_id": pause["id"], "decision": "edit",
                                                  "token": pause["token"]}), 422, "invalid_decision"),
        (bridge.post("/threads/s-2/resume", json={"interrupt_id": pause["id"], "decision": "approve",
                                                  "token": "0" * 64}), 409, "interrupt_stale"),
        (bridge.post("/threads/s-2/runs", json={"command": {"update": {"x": 1}, "resume": 1}}), 400, "bad_request"),
    ]
    for response, status, code in cases:
        assert (response.status_code, response.json()["error"]) == (status, code), response.text
        assert response.json()["detail"]


def test_defect_1_langgraphs_resume_map_in_a_config_is_refused_and_the_write_waits(bridge):
    started = bridge.post("/threads/s-3/runs", json={"if_not_exists": "create", "input": say(("send_email", {"to": "ana@example.com",
                                                                                    "body": "hi"}))})
    assert started.status_code == 200, started.text
    (pause,) = bridge.get("/threads/s-3/interrupts").json()["interrupts"]
    sneaked = bridge.post("/threads/s-3/runs", json={"input": None, "config": {"configurable": {
        "__pregel_resume_map": {"any": {"decisions": [{"type": "approve"}]}}}}})
    assert (sneaked.status_code, sneaked.json()["error"]) == (400, "bad_request")
    assert [p["id"] for p in bridge.get("/threads/s-3/interrupts").json()["interrupts"]] == [pause["id"]]


def test_the_console_is_served_beside_it(bridge):
    assert bridge.get("/admin/login/").status_code == 200
    assert bridge.get("/healthz").status_code == 200
