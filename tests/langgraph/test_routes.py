"""The bridge's routes through Django (doors.langgraph.views, the URLconf make_app
serves): a caller's config kept to the caller's keys, LangGraph's own keys refused
before anything runs, the signature on every route that can run or resume a graph,
hostile bodies refused in the error shape."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt
from typing_extensions import TypedDict

from approvals.webhooks import HEADER, sign
from doors.langgraph.requests import DETAIL_INTERNAL_KEY
from doors.langgraph.views import DETAIL_SIGNATURE
from tests.langgraph import graphs
from tests.langgraph.graphs import say
from tests.langgraph.lg import T, checkpoint, served, started
from threads.models import Interrupt

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.urls("stalwart_site.urls_langgraph")]

SECRET = "bridge-s3cret-long-enough-for-a-signing-key"
EMAIL = ("send_email", {"to": "ana@example.com", "body": "hi"})


@pytest.fixture(autouse=True)
def _fresh(bridges_forgotten):  # type: ignore[no-untyped-def]
    graphs.SENT.clear()


def post(path: str, body: Any, *, secret: str | None = None, raw: bytes | None = None) -> Any:
    content = raw if raw is not None else json.dumps(body).encode()
    headers = {HEADER: sign(content, secret)} if secret else {}
    return Client().post(path, data=content, content_type="application/json", headers=headers)


def test_defect_1_a_resume_map_in_a_runs_config_is_400_and_the_write_is_not_sent():
    bridge = started(EMAIL)
    pause = bridge.sync(T)["interrupts"][0]
    before = checkpoint(bridge)
    interrupt_id = bridge.graph.get_state(bridge.config(T)).interrupts[0].id
    sneaked = {"input": None, "config": {"configurable": {
        "__pregel_resume_map": {interrupt_id: {"decisions": [{"type": "approve"}]}}}}}
    refused = post(f"/threads/{T}/runs", sneaked)
    assert (refused.status_code, refused.json()["error"]) == (400, "bad_request")
    assert refused.json()["detail"] == str(DETAIL_INTERNAL_KEY).format(key="__pregel_resume_map")
    assert graphs.SENT == [] and checkpoint(bridge) == before
    assert Interrupt.objects.get(pk=pause["id"]).status == Interrupt.Status.OPEN


@pytest.mark.parametrize("config", [
    {"configurable": {"__pregel_resume_map": {}}},
    {"configurable": {"user": {"deep": [{"__pregel_send": 1}]}}},
    {"__pregel_checkpointer": "x"},
    {"metadata": {"__anything": True}},
    {"tags": ["ok"], "callbacks": [{"__x": 1}]},
])
def test_a_config_with_a_key_beginning_with_two_underscores_runs_nothing_and_its_twin_runs(config):
    bridge = served(graphs.mail_agent())
    refused = post("/threads/fresh/runs", {"if_not_exists": "create", "input": say(EMAIL), "config": config})
    assert (refused.status_code, refused.json()["error"]) == (400, "bad_request"), refused.content
    assert bridge.graph.get_state(bridge.config("fresh")).values == {}  # nothing ran
    twin = post("/threads/fresh/runs", {"if_not_exists": "create", "input": say(EMAIL),
                                        "config": {"configurable": {"user": "x"}, "tags": ["ok"],
                                                   "recursion_limit": 25}})
    assert twin.status_code == 200 and twin.json()["status"] == "success", twin.content
    waiting = Client().get("/threads/fresh/interrupts").json()["waiting"]
    assert [p["tool"] for p in waiting] == ["send_email"] and graphs.SENT == []


@pytest.mark.parametrize("route", ["resume", "sync"])
def test_every_route_refuses_a_config_with_langgraphs_own_keys(route):
    bridge = started(EMAIL)
    pause = bridge.sync(T)["interrupts"][0]
    body = {"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"],
            "config": {"configurable": {"__pregel_resume_map": {}}}}
    refused = post(f"/threads/{T}/{route}", body)
    assert (refused.status_code, refused.json()["error"]) == (400, "bad_request")
    assert graphs.SENT == [] and Interrupt.objects.get(pk=pause["id"]).status == Interrupt.Status.OPEN


def test_a_caller_config_keeps_only_the_callers_keys_and_the_routes_thread():
    from doors.langgraph.requests import caller_config

    kept = caller_config({"configurable": {"thread_id": "another", "checkpoint_id": "old", "user": "x"},
                          "tags": ["a"], "recursion_limit": 5, "metadata": {"m": 1}, "callbacks": None},
                         graph=graphs.mail_agent(), graph_thread=T)
    assert kept == {"configurable": {"thread_id": T}, "tags": ["a"], "recursion_limit": 5}


def routes_of(bridge: Any) -> dict[str, dict[str, Any]]:
    pause = bridge.sync(T)["interrupts"][0]
    return {"runs": {"input": say(EMAIL)}, "sync": {},
            "resume": {"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]}}


@pytest.mark.parametrize("route", ["runs", "resume", "sync"])
def test_with_a_secret_each_route_that_can_run_or_resume_needs_the_signature(route):
    bridge = started(EMAIL, secret=SECRET)
    body = routes_of(bridge)[route]
    before = checkpoint(bridge)
    for refused in (post(f"/threads/{T}/{route}", body), post(f"/threads/{T}/{route}", body, secret="not-" + SECRET)):
        assert (refused.status_code, refused.json()) == (401, {"error": "signature_invalid",
                                                               "detail": str(DETAIL_SIGNATURE)})
    assert checkpoint(bridge) == before and graphs.SENT == []
    signed = post(f"/threads/{T}/{route}", body, secret=SECRET)
    assert signed.status_code == 200, signed.content
    assert Client().get(f"/threads/{T}/interrupts").status_code == 200  # a read needs none


def test_a_signed_resume_is_recorded_as_the_signed_channels_and_resumes_the_graph():
    bridge = started(EMAIL, secret=SECRET)
    body = routes_of(bridge)["resume"]
    done = post(f"/threads/{T}/resume", body, secret=SECRET)
    assert done.status_code == 200 and done.json()["resumed"] is True
    assert graphs.SENT == [{"to": "ana@example.com", "body": "hi"}]
    stored = Interrupt.objects.get(pk=body["interrupt_id"])
    assert (stored.answered_via, stored.answered_by) == ("signed_channel", "signed channel")


def test_a_run_and_a_resume_answer_what_waits_and_what_the_graph_did():
    started(EMAIL, thread="other")
    run = post(f"/threads/{T}/runs", {"if_not_exists": "create", "input": say(EMAIL)})
    assert run.status_code == 200 and run.headers["Cache-Control"] == "no-store"
    assert (run.json()["thread_id"], run.json()["status"]) == (T, "success")  # the Agent Server API's Run
    listed = Client().get(f"/threads/{T}/interrupts").json()
    (pause,) = listed["waiting"]
    assert [p["id"] for p in listed["interrupts"]] == [pause["id"]] and listed["graph"] == "mail"
    done = post(f"/threads/{T}/resume", {"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]})
    assert done.status_code == 200 and done.json()["resumed"] is True and done.json()["waiting"] == []
    assert "sent to ana@example.com" in done.json()["output"]["messages"][-1]["content"]
    again = post(f"/threads/{T}/resume", {"interrupt_id": pause["id"], "decision": "approve",
                                          "token": pause["token"]})
    assert again.status_code == 409 and again.json()["interrupt"]["decision"] == "approve"
    assert len(graphs.SENT) == 1
    stored = Interrupt.objects.get(pk=pause["id"])
    assert (stored.answered_via, stored.answered_by) == ("langgraph", "langgraph bridge")


def test_bad_requests_get_the_error_shape_and_store_nothing():
    bridge = started(("delete_file", {"path": "/tmp/r"}))
    pause = bridge.sync(T)["interrupts"][0]
    deep = b'{"input": ' + b"[" * 40 + b"]" * 40 + b"}"
    cases = [
        (post(f"/threads/{T}/resume", None, raw=b"{not json"), 400, "bad_request"),
        (post(f"/threads/{T}/runs", None, raw=b'{"input": NaN}'), 400, "bad_request"),
        (post(f"/threads/{T}/runs", None, raw=deep), 400, "bad_request"),
        (post(f"/threads/{T}/runs", {"input": {"text": "a\u0000b"}}), 400, "bad_request"),
        (post(f"/threads/{T}/runs", {"command": {"resume": 1, "goto": "tools"}}), 400, "bad_request"),
        (post(f"/threads/{T}/runs", {"input": None, "checkpoint_id": "1"}), 400, "bad_request"),
        (post(f"/threads/{T}/runs", {"input": None, "config": ["not", "an", "object"]}), 400, "bad_request"),
        (post(f"/threads/{T}/runs", {"input": None, "config": {"recursion_limit": "many"}}), 400, "bad_request"),
        (post(f"/threads/{'x' * 201}/runs", {"input": None}), 400, "bad_request"),
        (post(f"/threads/{T}/resume", ["a", "list"]), 400, "bad_request"),
        (post(f"/threads/{T}/resume", None, raw=b'{"interrupt_id": "\\ud800", "decision": "approve", "token": "t"}'),
         400, "bad_request"),
        (post(f"/threads/{T}/resume", None, raw=json.dumps({"interrupt_id": pause["id"], "decision": "approve",
                                                            "token": "TOKEN"}).replace("TOKEN", "\\ud800").encode()),
         400, "bad_request"),
        (post("/threads/a%00b/resume", {"interrupt_id": pause["id"], "decision": "approve", "token": ""}),
         400, "bad_request"),
        (Client().get("/threads/a%00b/interrupts"), 400, "bad_request"),
        (post("/threads/a%00b/sync", {}), 400, "bad_request"),
        (post(f"/threads/{T}/runs", None, raw=b'{"input": ' + b"[" * 3000 + b"]" * 3000 + b"}"), 400, "bad_request"),
        (post(f"/threads/{T}/resume", {"interrupt_id": "p-nope", "decision": "approve", "token": ""}),
         404, "not_found"),
        (post(f"/threads/{T}/resume", {"interrupt_id": pause["id"], "decision": "edit", "token": pause["token"]}),
         422, "invalid_decision"),
        (post(f"/threads/{T}/resume", {"interrupt_id": pause["id"], "decision": "approve", "token": "0" * 64}),
         409, "interrupt_stale"),
    ]
    for response, status, code in cases:
        assert (response.status_code, response.json()["error"]) == (status, code), response.content
        assert response.json()["detail"]
    assert Interrupt.objects.get(pk=pause["id"]).status == Interrupt.Status.OPEN
    assert [p["id"] for p in bridge.sync(T)["interrupts"]] == [pause["id"]]


class _Values(TypedDict, total=False):
    answer: str


def _unstorable(state: _Values) -> _Values:
    return {"answer": interrupt({"question": "Send it\x00 now?", "n": float("nan"), "deep": json.loads(
        "[" * 40 + "]" * 40)})}


def test_a_graph_whose_interrupt_holds_what_postgresql_cannot_store_is_mirrored_with_it_shown_replaced():
    # The graph's own value, not a caller's input: nothing to refuse, and a thread that could never be
    # mirrored again (every /interrupts a 500 on PostgreSQL) would strand it.
    g = StateGraph(_Values)
    g.add_node("ask", _unstorable)
    g.add_edge(START, "ask")
    g.add_edge("ask", END)
    served(g.compile(checkpointer=InMemorySaver(), name="unstorable"))
    ran = post("/threads/t-nul/runs", {"if_not_exists": "create", "input": {"answer": ""}})
    assert ran.status_code == 200, ran.content
    shown = Client().get("/threads/t-nul/interrupts")
    assert shown.status_code == 200
    [pause] = shown.json()["interrupts"]
    assert pause["question"] == "Send it\ufffd now?" and ran.json()["status"] == "success"
    assert Interrupt.objects.get(pk=pause["id"]).status == Interrupt.Status.OPEN


def test_the_console_and_the_http_api_are_served_beside_the_bridge():
    started(EMAIL)
    assert Client().get("/admin/login/").status_code == 200
    assert Client().get("/healthz").status_code == 200
