"""Interface tier: ``POST /threads/{id}/resume`` under an approval policy
(docs/http-api.md, docs/policies.md): 202 ``approval_recorded`` short of the
quorum, 403 ``not_an_approver`` outside the policy's group, ``approvals`` on
every pause shown."""

from __future__ import annotations

from typing import Any

import pytest

from examples.shop import tools as shop
from tests.support.quorum import GROUPED, QUORUM, console_approve, serve
from tests.threads.test_api import Session
from threads.models import Interrupt

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def browser(shop_dir: Any) -> Session:
    return Session()


def waiting_charge(browser: Session, thread: str) -> dict[str, Any]:
    answer = browser.post(f"/threads/{thread}/messages", {"text": "charge 600 to order 4411"})
    assert answer.status_code == 200
    return answer.json()["waiting"][0]


def test_a_first_approval_is_202_recorded_and_nothing_runs_then_a_second_person_runs_it_once(browser, tmp_path):
    serve(tmp_path, QUORUM)
    pause = waiting_charge(browser, "q-1")
    assert pause["approvals"] == {"needed": 2, "given": [], "group": None}
    answer = {"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]}
    first = browser.post("/threads/q-1/resume", answer)
    assert first.status_code == 202
    body = first.json()
    assert body["status"] == "approval_recorded" and body["interrupt_id"] == pause["id"] and body["detail"]
    assert body["approvals"]["needed"] == 2 and [g["door"] for g in body["approvals"]["given"]] == ["http"]
    assert shop.charges() == []
    listed = browser.get("/threads/q-1/interrupts").json()["interrupts"]
    assert [p["id"] for p in listed] == [pause["id"]] and listed[0]["token"] == pause["token"]
    assert len(listed[0]["approvals"]["given"]) == 1
    again = browser.post("/threads/q-1/resume", answer)  # the same caller counts once
    assert again.status_code == 202 and len(again.json()["approvals"]["given"]) == 1
    assert shop.charges() == []
    done = console_approve(browser.key("q-1"), pause).to_json()
    assert [s["status"] for s in done["steps"]] == ["succeeded"]
    assert len(shop.charges("4411")) == 1
    late = browser.post("/threads/q-1/resume", answer)
    assert late.status_code == 409 and len(shop.charges("4411")) == 1


def test_a_caller_outside_the_policys_group_is_403_and_nothing_changes(browser, tmp_path):
    serve(tmp_path, GROUPED)
    pause = waiting_charge(browser, "q-2")
    assert pause["approvals"]["group"] == "finance"
    for decision in ("approve", "skip"):
        refused = browser.post("/threads/q-2/resume",
                               {"interrupt_id": pause["id"], "decision": decision, "token": pause["token"]})
        assert refused.status_code == 403
        assert refused.json()["error"] == "not_an_approver" and refused.json()["detail"]
    row = Interrupt.objects.get(pk=pause["id"])
    assert row.status == "open" and row.payload["approvals"]["given"] == []
    assert shop.charges() == []
    assert browser.get("/threads/q-2/interrupts").json()["interrupts"][0]["approvals"]["given"] == []


def test_a_small_charge_under_the_same_file_is_answered_200_as_ever(browser, tmp_path):
    serve(tmp_path, QUORUM)
    pause = browser.post("/threads/q-3/messages", {"text": "charge 40 to order 4411"}).json()["waiting"][0]
    assert "approvals" not in pause
    ok = browser.post("/threads/q-3/resume", {"interrupt_id": pause["id"], "decision": "approve",
                                              "token": pause["token"]})
    assert ok.status_code == 200 and len(shop.charges("4411")) == 1
