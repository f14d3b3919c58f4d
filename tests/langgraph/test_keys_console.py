"""LangGraph keys in the console (docs/langgraph.md, "Keys"): an operator makes one, shown once, with
what it may do; its calls are its; revoked, they are refused; an approver may neither make nor revoke."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from doors.keys import key_create, key_owner
from doors.langgraph.models import LangGraphKey
from tests.support.staff import csrf, make_staff

pytestmark = pytest.mark.django_db

ADD = "/admin/doors_langgraph/langgraphkey/add/"
LIST = "/admin/doors_langgraph/langgraphkey/"


def test_an_operator_makes_a_key_shown_once_with_what_it_may_do():
    ops = make_staff("ops", operator=True)
    form = ops.get(ADD).content.decode()
    assert "run: start runs of the graph" in form and "answer: resume what the graph waits on" in form
    made = ops.post(ADD, {"name": "agent-inbox", "may": ["answer"], "csrfmiddlewaretoken": csrf(ops)}, follow=True)
    shown = re.search(r"shown this once: (stw_[A-Za-z0-9_-]+)", made.content.decode())
    assert made.status_code == 200 and shown is not None
    key = LangGraphKey.objects.get(name="agent-inbox")
    assert key.privileges == ["answer"] and key.created_by == "ops"
    assert shown.group(1) not in str(LangGraphKey.objects.values().get())
    assert key_owner(LangGraphKey, shown.group(1), door="LangGraph") == key
    page = ops.get(f"{LIST}{key.pk}/change/").content.decode()
    assert shown.group(1) not in page and key.key_prefix in page  # never shown again


@pytest.mark.urls("stalwart_site.urls_langgraph")
def test_a_revoked_key_is_refused_and_an_approver_may_not_make_or_revoke_keys(bridges_forgotten):
    from examples.langgraph import inbox
    from tests.langgraph.lg import served

    served(inbox.build())
    made, key = key_create(LangGraphKey, name="gone", privileges=["run", "answer"])
    assert Client().post("/threads/search", {}, content_type="application/json",
                         headers={"x-api-key": key}).status_code == 200
    ops = make_staff("ops", operator=True)
    ops.get(LIST)
    done = ops.post(LIST, {"action": "revoke", "_selected_action": [made.pk], "csrfmiddlewaretoken": csrf(ops)},
                    follow=True)
    assert "Revoked 1 key" in done.content.decode()
    refused = Client().post("/threads/search", {}, content_type="application/json", headers={"x-api-key": key})
    assert (refused.status_code, refused.json()["error"]) == (401, "unauthorized")
    approver = make_staff("ana")
    assert approver.get(LIST).status_code == 403 and approver.get(ADD).status_code == 403
