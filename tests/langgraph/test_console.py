"""Mirrored LangGraph pauses in the console's queue: filtered by source and graph,
answered with the same buttons and audit, and the graph resumed at once whoever
answered (the console's single and bulk answers, the HTTP API's signed resume)."""

from __future__ import annotations

import html
import json
from typing import Any

import pytest
from django.test import Client

from approvals.admin.answers import MESSAGE_NOT_OFFERED
from approvals.webhooks import HEADER, sign
from approvals.words import decision_words
from tests.approvals.test_console import answer, make_pause, pause_page
from tests.approvals.test_console_list import QUEUE, bulk, get
from tests.langgraph import graphs
from tests.langgraph.lg import handed, started
from tests.support.staff import make_staff
from threads.models import Interrupt

pytestmark = pytest.mark.django_db(transaction=True)
G = "g-1"
SECRET = "channel-s3cret-long-enough-for-a-signing-key"


@pytest.fixture
def mirrored(bridges_forgotten):  # type: ignore[no-untyped-def]
    graphs.SENT.clear()
    bridge = started(("send_email", {"to": "ana@example.com", "body": "hi"}), thread=G)
    return bridge, bridge.sync(G)["interrupts"][0]


def resumed(bridge: Any) -> bool:
    return bridge.graph.get_state(bridge.config(G)).interrupts == ()


def test_the_queue_filters_by_source_and_graph(mirrored):
    _, pause = mirrored
    own = make_pause("t-own", "charge 40 to order 4411")
    staff = make_staff()
    everything = staff.get(QUEUE).content.decode()
    assert pause["id"] in everything and own["id"] in everything
    langgraph = staff.get(f"{QUEUE}?source=langgraph").content.decode()
    assert pause["id"] in langgraph and own["id"] not in langgraph
    stalwart = staff.get(f"{QUEUE}?source=stalwart").content.decode()
    assert pause["id"] not in stalwart and own["id"] in stalwart
    by_graph = staff.get(f"{QUEUE}?graph=mail").content.decode()
    assert pause["id"] in by_graph and own["id"] not in by_graph
    assert "graph=mail" in langgraph  # the graph is offered as a filter among the mirrored pauses


def test_a_mirrored_pause_answered_in_the_console_resumes_its_graph_at_once(mirrored):
    bridge, pause = mirrored
    given = handed(bridge)
    staff = make_staff()
    page = pause_page(staff, pause["id"])
    assert 'value="approve"' in page and 'value="reject"' in page and 'value="skip"' not in page
    done = answer(staff, pause["id"], page, "approve")
    assert done.status_code == 200 and "Answered: Approve." in done.content.decode()
    assert graphs.SENT == [{"to": "ana@example.com", "body": "hi"}] and resumed(bridge)
    assert [list(g.values()) for g in given] == [[{"decisions": [{"type": "approve"}]}]]
    stored = Interrupt.objects.get(pk=pause["id"])
    assert (stored.answered_by, stored.answered_via, stored.decision) == ("ana", "console", "approve")


def test_a_rejection_in_the_console_is_handed_back_as_a_rejection_and_nothing_is_sent(mirrored):
    bridge, pause = mirrored
    given = handed(bridge)
    staff = make_staff()
    answer(staff, pause["id"], pause_page(staff, pause["id"]), "reject")
    assert graphs.SENT == [] and resumed(bridge)
    assert list(given[0].values()) == [{"decisions": [{"type": "reject"}]}]
    assert "rejected" in str(bridge.graph.get_state(bridge.config(G)).values["messages"])


@pytest.mark.parametrize("decision", ["edit", "respond", "skip"])
def test_defect_5_the_console_refuses_a_decision_its_page_does_not_offer_and_nothing_is_handed_back(
        mirrored, decision):
    bridge, pause = mirrored
    staff = make_staff()
    refused = answer(staff, pause["id"], pause_page(staff, pause["id"]), decision)
    said = str(MESSAGE_NOT_OFFERED).format(decision=decision_words(decision))
    assert said in html.unescape(refused.content.decode())
    stored = Interrupt.objects.get(pk=pause["id"])
    assert (stored.status, stored.decision) == (Interrupt.Status.OPEN, "")
    assert graphs.SENT == [] and not resumed(bridge)
    done = answer(staff, pause["id"], pause_page(staff, pause["id"]), "approve")  # the twin: offered, taken
    assert "Answered: Approve." in done.content.decode() and len(graphs.SENT) == 1


def test_a_bulk_approval_in_the_console_resumes_each_graph_at_once(mirrored):
    bridge, pause = mirrored
    bridge.graph.invoke(graphs.say(("send_email", {"to": "bia@example.com", "body": "yo"})), bridge.config("g-2"))
    other = bridge.sync("g-2")["interrupts"][0]
    staff = make_staff()
    report = bulk(staff, get(staff, f"{QUEUE}?source=langgraph"), "approve_selected", [pause["id"], other["id"]])
    assert report.status_code == 200 and "Approve: 2 pauses answered." in report.content.decode()
    assert sorted(s["to"] for s in graphs.SENT) == ["ana@example.com", "bia@example.com"]
    assert resumed(bridge) and bridge.graph.get_state(bridge.config("g-2")).interrupts == ()


def test_a_signed_resume_through_the_http_api_resumes_the_graph_at_once(mirrored, settings):
    bridge, pause = mirrored
    settings.STALWART_RESUME_SECRET = SECRET
    body = json.dumps({"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]}).encode()
    done = Client().post(f"/threads/{bridge.thread_of(G)}/resume", data=body, content_type="application/json",
                         headers={HEADER: sign(body, SECRET)})  # the HTTP API's route, not the bridge's
    assert done.status_code == 200, done.content
    assert graphs.SENT == [{"to": "ana@example.com", "body": "hi"}] and resumed(bridge)
    assert Interrupt.objects.get(pk=pause["id"]).answered_via == "signed_channel"


def test_an_answered_mirrored_pause_says_who_asked_and_what_the_graph_then_did(mirrored):
    _, pause = mirrored
    staff = make_staff()
    page = pause_page(staff, pause["id"])
    assert "the LangGraph graph mail" in page
    done = answer(staff, pause["id"], page, "approve").content.decode()
    # The graph's output, once handed its answer, is the run's reply: in the message and on the page.
    assert "What the graph then returned: “done: sent to ana@example.com”" in html.unescape(done)
    again = html.unescape(pause_page(staff, pause["id"]))
    assert "What the run then did" in again and "done: sent to ana@example.com" in again
    assert "What the graph returned once it carried on with this answer." in again
    pt = html.unescape(pause_page(make_staff("bia", language="pt-BR"), pause["id"]))
    assert "O que o grafo devolveu" in pt and "Como foi dito à pessoa" not in pt  # no person was told it
