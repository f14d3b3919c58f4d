"""Service tier: approval policies (docs/policies.md) enforced by the engine: refusals, reads that wait,
quorums and groups, deadlines that fail closed, reminders."""

from __future__ import annotations

import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth.models import Group, User

from examples.shop import tools as shop
from tests.support.quorum import TOOLS
from threads.engine import Via, open_pauses, pause_answer, pauses_escalate_due, pauses_expire_due
from threads.errors import ApprovalRecorded, NotAnApprover, Stale
from threads.models import Event, Interrupt, Step

pytestmark = pytest.mark.django_db(transaction=True)

AGENT = """
agents:
  - name: Shop
    language: en
""" + TOOLS + """
    policies:
      - name: big-charges
        when: {tool: charge_card, args: {amount: {gt: 500}}}
        approvers: {quorum: 2, group: finance}
        deadline: 3600
        on_timeout: refuse
        remind_before: 600
      - name: huge-charges
        when: {tool: charge_card, args: {amount: {gt: 5000}}}
        refuse: Charges over 5,000 go through the finance office.
      - name: looked-up
        when: {tool: get_order}
        confirm: true
"""


@pytest.fixture
def desk(db: None, shop_dir: Path, tmp_path: Path):  # type: ignore[no-untyped-def]
    from stalwart_site.desk import Desk

    path = tmp_path / "agent.yaml"
    path.write_text(AGENT, encoding="utf-8")
    return Desk(path)


@pytest.fixture
def finance(db: None) -> list[str]:
    group = Group.objects.create(name="finance")
    names = []
    for name in ("ana", "bruno", "carla"):
        user = User.objects.create_user(name, password="x", is_staff=True)
        if name != "carla":
            user.groups.add(group)
        names.append(name)
    return names


def console(desk, thread: str, pause: dict, who: str, decision: str = "approve"):  # type: ignore[no-untyped-def]
    return pause_answer(thread_id=desk._thread(thread), pause_id=pause["id"], decision=decision,
                        token=pause["token"], by=who, via=Via.CONSOLE)


def test_a_charge_over_the_ceiling_is_refused_by_the_policy_and_nothing_waits(desk):
    reply = desk.say("t-1", "charge 6000 to order 4411")
    assert reply.waiting == []
    assert [(r["rule"], r["sentence"]) for r in reply.refusals] == [
        ("policy:huge-charges", "Charges over 5,000 go through the finance office.")]


def test_a_small_charge_waits_for_one_person_as_without_policies(desk):
    pause = desk.say("t-1", "charge 40 to order 4411").waiting[0]
    assert pause["reasons"] == ["write"] and "approvals" not in pause


def test_a_read_under_confirm_waits_with_the_policy_as_its_reason(desk):
    pause = desk.say("t-1", "show order 4411").waiting[0]
    assert pause["tool"] == "get_order"
    assert pause["reasons"] == ["policy:looked-up"]
    assert pause["approvals"] == {"needed": 1, "given": [], "group": None}


def test_two_finance_approvals_run_a_big_charge_once(desk, finance):
    pause = desk.say("t-1", "charge 600 to order 4411").waiting[0]
    assert pause["reasons"][-1] == "policy:big-charges"
    assert pause["approvals"] == {"needed": 2, "given": [], "group": "finance"}
    with pytest.raises(ApprovalRecorded) as first:
        console(desk, "t-1", pause, "ana")
    assert first.value.http_status == 202
    assert [g["by"] for g in first.value.approvals["given"]] == ["ana"]
    assert first.value.body()["status"] == "approval_recorded"
    still = desk.waiting("t-1")[0]
    assert still["id"] == pause["id"] and [g["by"] for g in still["approvals"]["given"]] == ["ana"]
    # the same person again counts once
    with pytest.raises(ApprovalRecorded) as again:
        console(desk, "t-1", pause, "ana")
    assert len(again.value.approvals["given"]) == 1
    assert shop.charges("4411") == []  # nothing ran on one approval
    answer = console(desk, "t-1", pause, "bruno").to_json()
    assert len(shop.charges("4411")) == 1
    assert answer["waiting"] == []
    assert [s["status"] for s in answer["steps"]] == ["succeeded"]
    row = Interrupt.objects.get(pk=pause["id"])
    assert row.status == "answered" and row.answered_by == "bruno"
    assert [g["by"] for g in row.payload["approvals"]["given"]] == ["ana", "bruno"]
    assert Event.objects.filter(type="approval").count() == 1  # the second is the claim's `answered` event
    with pytest.raises(Stale):
        console(desk, "t-1", pause, "carla")


def test_someone_outside_the_group_is_not_an_approver_and_changes_nothing(desk, finance):
    pause = desk.say("t-1", "charge 600 to order 4411").waiting[0]
    for who, via in (("carla", Via.CONSOLE), ("desk", Via.PYTHON), ("session", Via.WIDGET)):
        with pytest.raises(NotAnApprover) as refused:
            pause_answer(thread_id=desk._thread("t-1"), pause_id=pause["id"], decision="approve",
                         token=pause["token"], by=who, via=via)
        assert refused.value.http_status == 403 and refused.value.code == "not_an_approver"
    with pytest.raises(NotAnApprover):
        console(desk, "t-1", pause, "carla", decision="skip")
    assert Interrupt.objects.get(pk=pause["id"]).payload["approvals"]["given"] == []
    assert Interrupt.objects.get(pk=pause["id"]).status == "open" and shop.charges("4411") == []


def test_one_finance_skip_closes_it_at_once(desk, finance):
    pause = desk.say("t-1", "charge 600 to order 4411").waiting[0]
    with pytest.raises(ApprovalRecorded):
        console(desk, "t-1", pause, "ana")
    answer = console(desk, "t-1", pause, "bruno", decision="skip").to_json()
    assert answer["waiting"] == [] and [s["status"] for s in answer["steps"]] == ["skipped"]


def test_a_policy_deadline_with_on_timeout_refuse_refuses_the_call(desk, finance):
    pause = desk.say("t-1", "charge 600 to order 4411").waiting[0]
    row = Interrupt.objects.get(pk=pause["id"])
    assert (row.expires_at - row.created_at).total_seconds() == pytest.approx(3600, abs=2)
    assert (row.expires_at - row.escalate_at).total_seconds() == pytest.approx(600, abs=2)
    assert pauses_escalate_due(now=row.escalate_at) == [pause["id"]]
    assert pauses_expire_due(now=row.expires_at) == [pause["id"]]
    step = Step.objects.get(pk=row.step_id)
    assert (step.status, step.rule) == ("refused", "policy:big-charges")
    assert open_pauses(desk._thread("t-1")) == []


def test_a_staff_member_who_edited_the_call_cannot_approve_it_and_the_edit_starts_over(desk, finance):
    from threads.engine import pause_edit

    pause = desk.say("t-1", "charge 600 to order 4411").waiting[0]
    with pytest.raises(ApprovalRecorded):
        console(desk, "t-1", pause, "bruno")
    edited = pause_edit(pause_id=pause["id"], token=pause["token"], values={"amount": "700"}, by="ana").to_json()
    new = edited["waiting"][0]
    assert new["id"] != pause["id"] and new["approvals"] == {"needed": 2, "given": [], "group": "finance"}
    with pytest.raises(NotAnApprover) as refused:
        console(desk, "t-1", new, "ana")
    assert str(refused.value.detail) == "You proposed this call, so other people approve it."
    with pytest.raises(ApprovalRecorded):
        console(desk, "t-1", new, "bruno")
    assert Interrupt.objects.get(pk=new["id"]).status == "open"


def desk_of(tmp_path: Path, text: str):  # type: ignore[no-untyped-def]
    from stalwart_site.desk import Desk

    path = tmp_path / "other.yaml"
    path.write_text(text, encoding="utf-8")
    return Desk(path)


def test_the_caller_that_proposed_the_run_cannot_approve_it_through_its_own_door(desk, tmp_path):
    from threads.engine import Proposer, turn_submit

    desk_of(tmp_path, AGENT.replace("approvers: {quorum: 2, group: finance}", "approvers: {quorum: 2}"))
    pause = turn_submit(thread_id="t-mcp", session_hash="s", text="charge 600 to order 4411",
                        proposer=Proposer(door="mcp", name="bot-7")).waiting[0]

    def answer(by: str, via: str):  # type: ignore[no-untyped-def]
        return pause_answer(thread_id="t-mcp", pause_id=pause.id, decision="approve", token=pause.token, by=by,
                            via=via)

    with pytest.raises(NotAnApprover) as refused:
        answer("bot-7", Via.MCP)
    assert str(refused.value.detail) == "You proposed this call, so other people approve it."
    with pytest.raises(ApprovalRecorded):  # another client may: one person, by its door and name
        answer("bot-8", Via.MCP)
    done = answer("ana", Via.CONSOLE)
    assert [s.status for s in done.steps] == ["succeeded"]
    given = Interrupt.objects.get(pk=pause.id).payload["approvals"]["given"]
    assert [(g["by"], g["door"]) for g in given] == [("bot-8", "mcp"), ("ana", "console")]


def test_on_timeout_keep_waits_past_the_deadline_and_its_reminder_is_told_as_a_reminder(desk, tmp_path):
    from approvals.notify import set_listeners

    heard: list[dict] = []
    set_listeners([lambda thread, pause: heard.append(pause)])
    try:
        other = desk_of(tmp_path, AGENT.replace("on_timeout: refuse", "on_timeout: keep"))
        pause = other.say("t-2", "charge 600 to order 4411").waiting[0]
        row = Interrupt.objects.get(pk=pause["id"])
        assert row.expires_at is None  # keep: it waits on past its deadline
        assert (row.escalate_at - row.created_at).total_seconds() == pytest.approx(3000, abs=2)
        assert pauses_expire_due(now=row.created_at + timedelta(seconds=7200)) == []
        assert pauses_escalate_due(now=row.escalate_at) == [pause["id"]]
        deadline = time.monotonic() + 10
        while len(heard) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        told = [p for p in heard if p.get("type")]
        assert [(p["type"], p["escalation"], p["id"]) for p in told] == [("reminder", True, pause["id"])]
    finally:
        set_listeners([])


def test_on_timeout_expire_closes_the_pause_as_timed_out_and_refuses_nothing(desk, tmp_path):
    other = desk_of(tmp_path, AGENT.replace("on_timeout: refuse", "on_timeout: expire"))
    pause = other.say("t-3", "charge 600 to order 4411").waiting[0]
    row = Interrupt.objects.get(pk=pause["id"])
    assert pauses_expire_due(now=row.expires_at) == [pause["id"]]
    step = Step.objects.get(pk=row.step_id)
    assert (step.status, step.rule) == ("cancelled", "")


def test_the_chat_session_is_one_person_whether_it_says_it_is_the_widget_or_not(desk, tmp_path):
    desk_of(tmp_path, AGENT.replace("approvers: {quorum: 2, group: finance}", "approvers: {quorum: 2}"))
    from threads.engine import turn_submit

    pause = turn_submit(thread_id="t-w", session_hash="s", text="charge 600 to order 4411").waiting[0]
    for via in (Via.WIDGET, Via.HTTP, Via.WIDGET):
        with pytest.raises(ApprovalRecorded) as kept:
            pause_answer(thread_id="t-w", pause_id=pause.id, decision="approve", token=pause.token, by="session",
                         via=via)
        assert len(kept.value.approvals["given"]) == 1
    assert shop.charges("4411") == []


def test_the_reply_says_who_approves_where_the_person_in_the_chat_may_not(desk, tmp_path):
    from threads.texts import text

    assert desk.say("t-1", "charge 600 to order 4411").text == "Charge card? It waits for approval by finance."
    assert desk.say("t-2", "charge 40 to order 4412").text == text("en", "waiting_confirm", question="Charge card?")
    other = desk_of(tmp_path, AGENT.replace("approvers: {quorum: 2, group: finance}", "approvers: {quorum: 2}"))
    assert other.say("t-3", "charge 600 to order 4411").text == "Charge card? It waits for the approval of 2 people."
