"""The console under approval policies (docs/operating.md, "Approval policies in the console"; interface
tier, Django's test client): "1 of 2 approvals" and who, an approval short of the quorum is a success
that stays on the pause, who sees a pause read-only and why, the queue's "waiting for me", the Tools
page's policies, and the decisions page and CSV with every approval."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client

from examples.shop import tools as shop
from tests.support.quorum import TOOLS
from tests.support.staff import csrf, make_staff
from threads.engine import Via, pause_answer
from threads.models import Interrupt

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
      - name: huge-charges
        when: {tool: charge_card, args: {amount: {gt: 5000}}}
        refuse: Charges over 5,000 go through the finance office.
"""


@pytest.fixture
def desk(db: None, shop_dir: Path, tmp_path: Path):  # type: ignore[no-untyped-def]
    from stalwart_site.desk import Desk

    shop.reset()
    path = tmp_path / "agent.yaml"
    path.write_text(AGENT, encoding="utf-8")
    return Desk(path)


@pytest.fixture
def staff(desk: Any) -> dict[str, Client]:
    """ana and bruno in finance, carla not."""
    finance = Group.objects.create(name="finance")
    clients = {name: make_staff(name) for name in ("ana", "bruno", "carla")}
    for name in ("ana", "bruno"):
        User.objects.get(username=name).groups.add(finance)
    return clients


def big_charge(desk: Any, thread: str = "t-big", amount: int = 600) -> dict[str, Any]:
    pause = desk.say(thread, f"charge {amount} to order 4411").waiting[0]
    assert pause["reasons"][-1] == "policy:big-charges"
    return pause  # type: ignore[no-any-return]


def page_of(client: Client, pause_id: str) -> str:
    response = client.get(f"/admin/threads/interrupt/{pause_id}/change/")
    assert response.status_code == 200
    return response.content.decode()


def approve(client: Client, pause_id: str) -> Any:
    page = page_of(client, pause_id)
    token = re.search(r'name="token" value="([^"]+)"', page)
    assert token, "the page offers an answer"
    return client.post(f"/admin/threads/interrupt/{pause_id}/answer/", {
        "decision": "approve", "token": token.group(1), "csrfmiddlewaretoken": csrf(client)}, follow=True)


def messages_of(response: Any) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def test_an_approval_short_of_the_quorum_is_recorded_and_stays_on_the_pause(desk, staff):
    pause = big_charge(desk)
    response = approve(staff["ana"], pause["id"])
    assert response.redirect_chain[-1][0] == f"/admin/threads/interrupt/{pause['id']}/change/"
    assert messages_of(response) == ["Your approval is recorded: 1 of 2 approvals."]
    page = response.content.decode()
    assert "1 of 2 approvals" in page and "from staff in finance" in page
    assert re.search(r"<li>ana, [^<]+ \(console\)</li>", page)
    # ana herself now reads it without answers, told why
    assert 'name="decision"' not in page
    assert "You approved it; it waits for 1 more." in page
    assert len(shop.charges("4411")) == 0
    # the second finance member's approval runs it, once
    done = approve(staff["bruno"], pause["id"])
    assert any(m.startswith("Answered: Approve.") for m in messages_of(done))
    assert len(shop.charges("4411")) == 1
    assert Interrupt.objects.get(pk=pause["id"]).status == Interrupt.Status.ANSWERED


def test_staff_outside_the_group_read_the_pause_without_answers_and_are_told_why(desk, staff):
    pause = big_charge(desk)
    page = page_of(staff["carla"], pause["id"])
    assert "Only staff in finance may answer this call." in page
    assert 'name="decision"' not in page and "pause-edit" not in page
    assert "0 of 2 approvals" in page
    # the twin: a finance member is offered the answers and no such sentence
    theirs = page_of(staff["ana"], pause["id"])
    assert 'name="decision" value="approve"' in theirs
    assert "Only staff in finance" not in theirs and "pause-read-only" not in theirs


def test_an_answer_from_outside_the_group_is_an_error_and_changes_nothing(desk, staff):
    pause = big_charge(desk)
    token = re.search(r'name="token" value="([^"]+)"', page_of(staff["ana"], pause["id"])).group(1)  # type: ignore[union-attr]
    carla = staff["carla"]
    response = carla.post(f"/admin/threads/interrupt/{pause['id']}/answer/", {
        "decision": "approve", "token": token, "csrfmiddlewaretoken": csrf(carla)}, follow=True)
    assert messages_of(response) == ["Only staff in finance may answer this call."]
    row = Interrupt.objects.get(pk=pause["id"])
    assert row.status == Interrupt.Status.OPEN and row.payload["approvals"]["given"] == []
    assert len(shop.charges("4411")) == 0


def test_an_edit_from_outside_the_group_is_an_error_and_changes_nothing(desk, staff):
    """An edit is an answer too: posted by staff outside the group (the page offers them none), it is refused
    with the page's sentence; the call waits as it was, under the same id. The desk's own caller the same."""
    from threads.engine import PauseAnswer, pauses_answer
    from threads.errors import NotAnApprover

    pause = big_charge(desk)
    token = re.search(r'name="token" value="([^"]+)"', page_of(staff["ana"], pause["id"])).group(1)  # type: ignore[union-attr]
    carla = staff["carla"]
    response = carla.post(f"/admin/threads/interrupt/{pause['id']}/edit/", {
        "token": token, "arg:order_id": "4411", "arg:amount": "400", "csrfmiddlewaretoken": csrf(carla)}, follow=True)
    assert messages_of(response) == ["Only staff in finance may answer this call."]
    with pytest.raises(NotAnApprover):  # another door's caller, editing as AG-UI does
        pauses_answer(thread_id=Interrupt.objects.get(pk=pause["id"]).thread_id, by="agui", via=Via.AGUI,
                      answers=[PauseAnswer(pause=pause["id"], token=token, edit={"amount": "400"})])
    row = Interrupt.objects.get(pk=pause["id"])
    assert row.status == Interrupt.Status.OPEN and Interrupt.objects.count() == 1
    assert {a["name"]: a["value"] for a in row.step.arguments}["amount"] == 600
    assert len(shop.charges("4411")) == 0


def test_whoever_edited_the_call_reads_its_new_proposal_without_answers(desk, staff):
    pause = big_charge(desk)
    ana = staff["ana"]
    token = re.search(r'name="token" value="([^"]+)"', page_of(ana, pause["id"])).group(1)  # type: ignore[union-attr]
    ana.post(f"/admin/threads/interrupt/{pause['id']}/edit/", {
        "token": token, "arg:order_id": "4411", "arg:amount": "700", "csrfmiddlewaretoken": csrf(ana)})
    successor = Interrupt.objects.get(status=Interrupt.Status.OPEN)
    assert successor.payload["approvals"]["given"] == []
    assert "You edited this call, so other people approve it." in page_of(ana, successor.pk)
    assert 'name="decision" value="approve"' in page_of(staff["bruno"], successor.pk)


def test_a_pause_without_a_policy_looks_as_before(desk, staff):
    pause = desk.say("t-small", "charge 40 to order 4411").waiting[0]
    page = page_of(staff["carla"], pause["id"])
    assert 'name="decision" value="approve"' in page
    assert "pause-approvals" not in page and "pause-read-only" not in page
    queue = staff["carla"].get("/admin/threads/interrupt/").content.decode()
    assert f'form="answer-{pause["id"]}"' in queue  # its row still answers
    assert "queue-approvals" not in queue


def test_the_queue_row_says_how_many_approvals_and_whose(desk, staff):
    pause = big_charge(desk)
    queue = staff["carla"].get("/admin/threads/interrupt/").content.decode()
    assert '<span class="queue-approvals">0 of 2 approvals</span>' in queue
    assert f'form="answer-{pause["id"]}"' not in queue  # answered on its page, which says who may
    approve(staff["ana"], pause["id"])
    queue = staff["carla"].get("/admin/threads/interrupt/").content.decode()
    assert '<span class="queue-approvals">1 of 2 approvals: ana</span>' in queue


def test_waiting_for_me_lists_what_this_person_may_still_answer(desk, staff):
    big = big_charge(desk, "t-big")
    small = desk.say("t-small", "charge 40 to order 4411").waiting[0]
    approve(staff["ana"], big["id"])

    def mine(name: str) -> set[str]:
        response = staff[name].get("/admin/threads/interrupt/?mine=me")
        return {p.pk for p in response.context["cl"].result_list}

    assert mine("bruno") == {big["id"], small["id"]}  # in finance, not yet approved
    assert mine("ana") == {small["id"]}  # she approved the big one
    assert mine("carla") == {small["id"]}  # outside finance
    everyone = staff["carla"].get("/admin/threads/interrupt/")
    assert {p.pk for p in everyone.context["cl"].result_list} == {big["id"], small["id"]}  # without the filter


def test_the_tools_page_shows_the_agents_policies(desk, staff):
    operator = make_staff("olga", operator=True)
    page = operator.get("/admin/catalogue/tool/").content.decode()
    row = re.search(r'<tr id="policy-big-charges">(.*?)</tr>', page, re.S)
    assert row, "the policy has its row"
    assert "2 approvals from staff in finance" in row.group(1)
    assert "answered within 3600 s, else it is refused" in row.group(1)
    assert "<code>amount &gt; 500</code>" in row.group(1)
    assert '<a href="#tool-charge_card"><code>charge_card</code></a>' in row.group(1)
    assert "get_order" not in row.group(1)
    huge = re.search(r'<tr id="policy-huge-charges">(.*?)</tr>', page, re.S)
    assert huge and "refuses it: “Charges over 5,000 go through the finance office.”" in huge.group(1)


def test_the_decisions_page_and_its_csv_record_every_approval(desk, staff):
    big = big_charge(desk, "t-big")
    small = desk.say("t-small", "charge 40 to order 4411").waiting[0]
    approve(staff["ana"], big["id"])
    approve(staff["bruno"], big["id"])
    pause_answer(thread_id=desk._thread("t-small"), pause_id=small["id"], decision="approve",
                 token=small["token"], by="carla", via=Via.CONSOLE)
    page = staff["carla"].get("/admin/approvals/decision/").content.decode()
    assert "2 of 2 approvals" in page and re.search(r"<li>ana, [^<]+ \(console\)</li>", page)
    response = staff["carla"].get("/admin/approvals/decision/csv/")
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode("utf-8-sig"))))
    assert rows[0] == ["when", "who", "pause", "call", "thread", "agent", "decision", "from where", "approvals"]
    by_pause = {r[2]: r for r in rows[1:]}
    assert re.fullmatch(r"ana \(console, \d{4}-\d\d-\d\dT\d\d:\d\dZ\); bruno \(console, \d{4}-\d\d-\d\dT\d\d:\d\dZ\)",
                        by_pause[big["id"]][8])
    assert by_pause[big["id"]][1] == "bruno"
    assert by_pause[small["id"]][8] == ""  # the twin: no policy, no approvals


def test_approve_selected_records_a_policy_approval_and_refuses_one_from_outside_the_group(desk, staff):
    pause = big_charge(desk)

    def bulk(name: str) -> str:
        client = staff[name]
        page = client.get("/admin/threads/interrupt/").content.decode()
        token = re.search(rf'name="token:{pause["id"]}" value="([^"]+)"', page)
        assert token
        return client.post("/admin/threads/interrupt/", {
            "action": "approve_selected", "index": "0", "_selected_action": [pause["id"]],
            f"token:{pause['id']}": token.group(1), "csrfmiddlewaretoken": csrf(client)}).content.decode()

    outside = bulk("carla")
    assert 'class="bulk-refused"' in outside and "Only staff in finance may answer this call." in outside
    assert Interrupt.objects.get(pk=pause["id"]).payload["approvals"]["given"] == []
    recorded = bulk("ana")
    assert 'class="bulk-recorded"' in recorded and "Your approval is recorded: 1 of 2 approvals." in recorded
    assert [g["by"] for g in Interrupt.objects.get(pk=pause["id"]).payload["approvals"]["given"]] == ["ana"]
    assert len(shop.charges("4411")) == 0
