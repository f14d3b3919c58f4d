"""Thumbs on replies: ``POST /threads/{id}/feedback`` and the counts per agent."""

from __future__ import annotations

from typing import Any

import pytest

from tests.threads.test_api import Session
from threads.feedback import DETAIL_NO_REPLY, DETAIL_THUMB, feedback_counts
from threads.models import Feedback

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def browser(shop_dir: Any) -> Session:
    return Session()


def said(browser: Session, thread: str) -> dict[str, Any]:
    response = browser.post(f"/threads/{thread}/messages", {"text": "show order 4411"})
    assert response.status_code == 200
    return response.json()


def test_a_thumb_from_the_session_shown_the_reply_is_kept_and_a_second_replaces_it(browser):
    reply = said(browser, "fb-1")["reply"]
    up = browser.post("/threads/fb-1/feedback", {"message": reply["id"], "thumb": "up"})
    assert up.status_code == 200
    assert up.json() == {"thread": "fb-1", "message": reply["id"], "thumb": "up", "comment": ""}
    down = browser.post("/threads/fb-1/feedback", {"message": reply["id"], "thumb": "down", "comment": "wrong order"})
    assert down.status_code == 200 and down.json()["thumb"] == "down"
    stored = list(Feedback.objects.values_list("message_id", "thumb", "comment", "agent"))
    assert stored == [(reply["id"], "down", "wrong order", "Shop")]
    assert feedback_counts() == {"Shop": {"up": 0, "down": 1}}


def test_another_session_gets_404_and_the_thumb_is_not_kept(browser):
    reply = said(browser, "fb-2")["reply"]
    other = Session()
    said(other, "fb-2-other")
    refused = other.post("/threads/fb-2/feedback", {"message": reply["id"], "thumb": "up"})
    assert refused.status_code == 404 and refused.json()["error"] == "not_found"
    assert not Feedback.objects.exists()


def test_a_message_of_another_thread_or_a_persons_own_turn_is_404(browser):
    mine = said(browser, "fb-3")
    elsewhere = said(browser, "fb-4")["reply"]
    wrong_thread = browser.post("/threads/fb-3/feedback", {"message": elsewhere["id"], "thumb": "up"})
    assert wrong_thread.status_code == 404 and wrong_thread.json()["detail"] == DETAIL_NO_REPLY
    from threads.models import Message

    turn = Message.objects.get(run_id=mine["run"], role="person")
    own_turn = browser.post("/threads/fb-3/feedback", {"message": turn.id, "thumb": "up"})
    assert own_turn.status_code == 404
    assert not Feedback.objects.exists()


@pytest.mark.parametrize("thumb", ["sideways", "", "UP", 1, None])
def test_a_thumb_that_is_neither_up_nor_down_is_400(browser, thumb):
    reply = said(browser, "fb-5")["reply"]
    bad = browser.post("/threads/fb-5/feedback", {"message": reply["id"], "thumb": thumb})
    assert bad.status_code == 400 and bad.json()["error"] == "bad_request"
    if isinstance(thumb, str):
        assert bad.json()["detail"] == DETAIL_THUMB
    assert not Feedback.objects.exists()


def test_counts_are_per_agent_and_the_admin_lists_them(browser, admin_client):
    first = said(browser, "fb-6")["reply"]
    second = said(browser, "fb-6")["reply"]
    browser.post("/threads/fb-6/feedback", {"message": first["id"], "thumb": "up"})
    browser.post("/threads/fb-6/feedback", {"message": second["id"], "thumb": "down", "comment": "slow"})
    assert feedback_counts(agent="Shop") == {"Shop": {"up": 1, "down": 1}}
    page = admin_client.get("/admin/threads/feedback/")
    assert page.status_code == 200 and "Shop: 1 up, 1 down" in page.content.decode()
    thread_page = admin_client.get(f"/admin/threads/thread/{browser.key('fb-6')}/change/")
    assert thread_page.status_code == 200 and "slow" in thread_page.content.decode()
