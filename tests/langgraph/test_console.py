"""Mirrored LangGraph pauses in the console's queue: filtered by source and
graph, answered with the same buttons and audit, and the graph resumed."""

from __future__ import annotations

import pytest

from approvals import langgraph as bridges
from doors.langgraph.bridge import Bridge
from tests.approvals.test_console import answer, make_pause, pause_page
from tests.langgraph import graphs
from tests.langgraph.graphs import mail_agent, say
from tests.support.staff import make_staff
from threads.models import Interrupt

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def mirrored(shop_dir):  # type: ignore[no-untyped-def]
    graphs.SENT.clear()
    bridge = Bridge(mail_agent())
    bridge.graph.invoke(say(("send_email", {"to": "ana@example.com", "body": "hi"})), bridge.config("g-1"))
    yield bridge, bridge.sync("g-1")["interrupts"][0]
    bridges.bridge_forget(bridge.name)


def test_the_queue_filters_by_source_and_graph(mirrored):
    _, pause = mirrored
    own = make_pause("t-own", "charge 40 to order 4411")
    staff = make_staff()
    everything = staff.get("/admin/threads/interrupt/").content.decode()
    assert pause["id"] in everything and own["id"] in everything
    langgraph = staff.get("/admin/threads/interrupt/?source=langgraph").content.decode()
    assert pause["id"] in langgraph and own["id"] not in langgraph
    stalwart = staff.get("/admin/threads/interrupt/?source=stalwart").content.decode()
    assert pause["id"] not in stalwart and own["id"] in stalwart
    by_graph = staff.get("/admin/threads/interrupt/?graph=mail").content.decode()
    assert pause["id"] in by_graph and own["id"] not in by_graph
    assert "?graph=mail" in everything  # the graph is offered as a filter


def test_a_mirrored_pause_answered_in_the_console_resumes_its_graph(mirrored):
    bridge, pause = mirrored
    staff = make_staff()
    page = pause_page(staff, pause["id"])
    assert 'value="approve"' in page and 'value="reject"' in page and 'value="skip"' not in page
    done = answer(staff, pause["id"], page, "approve")
    assert done.status_code == 200 and "Answered: Approve." in done.content.decode()
    assert graphs.SENT == [{"to": "ana@example.com", "body": "hi"}]
    assert bridge.graph.get_state(bridge.config("g-1")).interrupts == ()
    stored = Interrupt.objects.get(pk=pause["id"])
    assert (stored.answered_by, stored.answered_via, stored.decision) == ("ana", "console", "approve")


def test_a_rejection_in_the_console_is_handed_back_and_nothing_is_sent(mirrored):
    bridge, pause = mirrored
    staff = make_staff()
    answer(staff, pause["id"], pause_page(staff, pause["id"]), "reject")
    assert graphs.SENT == []
    last = bridge.graph.get_state(bridge.config("g-1")).values["messages"][-1]
    assert "rejected" in str(bridge.graph.get_state(bridge.config("g-1")).values["messages"]) and last.content
