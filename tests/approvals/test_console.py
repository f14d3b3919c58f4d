"""The console's pause queue and pause page (interface tier, Django's test client)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client

from approvals.admin.answers import MESSAGE_STALE_WON
from examples.shop import tools as shop
from tests.support.staff import csrf, make_staff
from threads.keys import thread_key
from threads.models import Interrupt, Receipt
from threads.selectors import session_hash

pytestmark = pytest.mark.django_db(transaction=True)


def make_pause(thread: str = "t-charge", text: str = "charge 40 to order 4411") -> dict[str, Any]:
    """A customer's turn over HTTP; returns the first pause as the customer sees it, with
    its session and its thread's key."""
    customer = Client()
    body = customer.post(f"/threads/{thread}/messages", data=json.dumps({"text": text}),
                         content_type="application/json")
    data = body.json()
    data["waiting"][0]["session"] = body.headers["Stalwart-Session"]
    data["waiting"][0]["key"] = thread_key(thread, session_hash(body.headers["Stalwart-Session"]))  # as staff name it
    return data["waiting"][0]


def pause_page(client: Client, pause_id: str) -> str:
    response = client.get(f"/admin/threads/interrupt/{pause_id}/change/")
    assert response.status_code == 200
    return response.content.decode()


def answer(client: Client, pause_id: str, page: str, decision: str) -> Any:
    token = re.search(r'name="token" value="([^"]+)"', page)
    assert token, "the page carries the pause's token"
    return client.post(f"/admin/threads/interrupt/{pause_id}/answer/", {
        "decision": decision, "token": token.group(1), "csrfmiddlewaretoken": csrf(client)}, follow=True)


@pytest.fixture
def shop_fresh(shop_dir: Any) -> None:
    shop.reset()


def test_the_queue_lists_open_pauses_oldest_first_with_reasons_and_irreversible(shop_fresh):
    first = make_pause("t-a", "charge 40 to order 4411")
    second = make_pause("t-b", "refund 40 on order 4411")
    staff = make_staff()
    page = staff.get("/admin/threads/interrupt/").content.decode()
    assert "<h1>Pauses</h1>" in page
    assert page.index(">t-a<") < page.index(">t-b<")
    assert "charge_card" in page and "refund_card" in page and "it writes" in page
    # refund_card is irreversible, charge_card is not: a warning mark only when true, no red cross
    assert page.count('class="queue-irreversible"') == 1 and 'alt="False"' not in page
    assert first["id"] in page and second["id"] in page


def test_the_queue_finds_a_pause_by_thread_and_hides_answered_ones_by_default(shop_fresh):
    pause = make_pause("t-find")
    make_pause("t-other")
    staff = make_staff()
    found = staff.get("/admin/threads/interrupt/?q=t-find").content.decode()
    assert "t-find" in found and "t-other" not in found
    answer(staff, pause["id"], pause_page(staff, pause["id"]), "skip")
    assert "t-find" not in staff.get("/admin/threads/interrupt/").content.decode()
    everything = staff.get("/admin/threads/interrupt/?status=all").content.decode()
    assert "t-find" in everything and "Skip by ana" in everything


def test_the_queue_finds_every_sessions_thread_of_an_id_and_one_thread_by_its_key(shop_fresh):
    mine = make_pause("t-namesake", "charge 40 to order 4411")
    theirs = make_pause("t-namesake", "refund 40 on order 4411")  # another session, the same id
    assert mine["key"] != theirs["key"]
    staff = make_staff()
    by_id = staff.get("/admin/threads/interrupt/?q=t-namesake").content.decode()
    assert mine["id"] in by_id and theirs["id"] in by_id and by_id.count(">t-namesake<") == 2
    by_key = staff.get(f"/admin/threads/interrupt/?q={mine['key']}").content.decode()
    assert mine["id"] in by_key and theirs["id"] not in by_key
    assert f'title="{mine["key"]}"' in by_key  # the row's link names the key


def test_the_pause_page_shows_the_call_in_words_and_three_buttons(shop_fresh):
    pause = make_pause()
    page = pause_page(make_staff(), pause["id"])
    assert "charge_card" in page and "you typed it" in page and "4411" in page
    assert re.findall(r'name="decision" value="([a-z_]+)"', page) == ["approve", "skip", "cancel_all"]
    assert 'name="csrfmiddlewaretoken"' in page


def test_approving_from_the_console_charges_once_and_records_who(shop_fresh):
    pause = make_pause()
    staff = make_staff()
    page = pause_page(staff, pause["id"])
    done = answer(staff, pause["id"], page, "approve")
    assert "Answered: Approve." in done.content.decode()
    assert len(shop.charges("4411")) == 1
    row = Interrupt.objects.get(pk=pause["id"])
    assert (row.status, row.decision, row.answered_by) == ("answered", "approve", "ana")
    shown = pause_page(staff, pause["id"])
    assert "Approve by ana" in shown and 'name="decision"' not in shown
    # The same form sent again (a second tab): stale, names the winner, charges nothing.
    again = answer(staff, pause["id"], page, "approve").content.decode()
    expected = str(MESSAGE_STALE_WON).split("{")[0]
    assert expected in again.replace("&#x27;", "'").replace("&quot;", '"') and "ana" in again
    # The moment is in brackets: a date that ends with a period ("8:45 p.m.") does not end the line "..".
    said = re.search(r"<li[^>]*>(Nothing changed:[^<]*)</li>", again).group(1)
    assert re.search(r"by ana \([^()]+\)\.$", said) and ".." not in said
    assert len(shop.charges("4411")) == 1
    # The customer's late answer over HTTP: 409 naming the approve that won.
    late = Client().post("/threads/t-charge/resume", data=json.dumps(
        {"interrupt_id": pause["id"], "decision": "skip", "token": pause["token"]}),
        content_type="application/json", HTTP_STALWART_SESSION=pause["session"])
    assert late.status_code == 409
    assert late.json()["interrupt"]["decision"] == "approve" and late.json()["interrupt"]["answered_by"] == "ana"


def test_an_answer_with_another_token_changes_nothing(shop_fresh):
    pause = make_pause()
    staff = make_staff()
    page = pause_page(staff, pause["id"]).replace(pause["token"], "x" * len(pause["token"]))
    answer(staff, pause["id"], page, "approve")
    assert Interrupt.objects.get(pk=pause["id"]).status == "open" and shop.charges("4411") == []


def test_answering_needs_the_answer_permission_and_a_post(shop_fresh):
    pause = make_pause()
    staff = make_staff()
    assert staff.get(f"/admin/threads/interrupt/{pause['id']}/answer/").status_code == 405
    nobody = Client()
    response = nobody.post(f"/admin/threads/interrupt/{pause['id']}/answer/", {"decision": "approve"})
    assert response.status_code in (302, 403) and Interrupt.objects.get(pk=pause["id"]).status == "open"


def test_a_question_is_answered_by_an_open_text_field(shop_fresh):
    pause = make_pause("t-ask", "show order")
    assert pause["kind"] == "ask"
    staff = make_staff()
    page = pause_page(staff, pause["id"])
    assert 'name="text"' in page and 'name="decision"' not in page
    token = re.search(r'name="token" value="([^"]+)"', page).group(1)
    staff.post(f"/admin/threads/interrupt/{pause['id']}/answer/", {
        "text": "4411", "token": token, "csrfmiddlewaretoken": csrf(staff)})
    row = Interrupt.objects.get(pk=pause["id"])
    assert row.status == "answered" and row.answer == {"kind": "open", "text": "4411"}


def test_the_queue_costs_a_fixed_number_of_queries_over_10000_open_pauses(shop_fresh,
                                                                           django_assert_max_num_queries):
    from tests.approvals.builders import make_open_pauses

    staff = make_staff()
    make_open_pauses(10_000)
    with django_assert_max_num_queries(12):
        response = staff.get("/admin/threads/interrupt/")
    assert response.status_code == 200 and response.content.count(b'class="field-kind"') == 50


def test_with_a_portuguese_browser_the_pause_page_and_queue_read_in_portuguese(shop_fresh):
    pause = make_pause()
    staff = make_staff("bia", language="pt-BR")
    page = pause_page(staff, pause["id"])
    assert '<html lang="pt-br"' in page
    for words in ("Aprovar", "Pular", "Cancelar tudo", "você digitou", "Por que espera uma pessoa", "ela altera dados"):
        assert words in page, words
    for english in (">Approve<", ">Skip<", "you typed it", "Why it waits", "Your answer"):
        assert english not in page, english
    assert "<h1>Pausas</h1>" in staff.get("/admin/threads/interrupt/").content.decode()


def test_the_language_switch_sets_the_console_language(shop_fresh):
    staff = make_staff("bia")
    assert "<h1>Pauses</h1>" in staff.get("/admin/threads/interrupt/").content.decode()
    staff.post("/i18n/setlang/", {"language": "pt-br", "next": "/admin/threads/interrupt/",
                                  "csrfmiddlewaretoken": csrf(staff)})
    assert "<h1>Pausas</h1>" in staff.get("/admin/threads/interrupt/").content.decode()


def test_the_thread_page_shows_the_trace_and_who_answered(shop_fresh):
    pause = make_pause("t-trace")
    staff = make_staff()
    answer(staff, pause["id"], pause_page(staff, pause["id"]), "approve")
    page = staff.get(f"/admin/threads/thread/{pause['key']}/change/").content.decode()
    assert "charge 40 to order 4411" in page  # the turn
    assert "charge_card" in page and "succeeded" in page  # the step and its status
    receipt = Receipt.objects.get(step__run__thread_id=pause["key"])
    assert f"{receipt.get_verdict_display()}<br>" in page  # its receipt's verdict
    assert ">ana<" in page and ">answered<" in page  # who answered the pause
    assert ">waiting<" in page and ">answered<" in page  # events


def test_the_queue_finds_pauses_by_tool(shop_fresh):
    make_pause("t-charge-1", "charge 40 to order 4411")
    make_pause("t-refund-1", "refund 40 on order 4411")
    page = make_staff().get("/admin/threads/interrupt/?q=refund_card").content.decode()
    assert ">t-refund-1<" in page and ">t-charge-1<" not in page


def edit(client: Client, pause_id: str, page: str, **values: str) -> Any:
    token = re.search(r'name="token" value="([^"]+)"', page).group(1)  # type: ignore[union-attr]
    return client.post(f"/admin/threads/interrupt/{pause_id}/edit/", {
        "token": token, "csrfmiddlewaretoken": csrf(client), **{f"arg:{k}": v for k, v in values.items()}},
        follow=True)


def test_an_edited_call_pauses_again_as_a_new_proposal_with_origin_staff(shop_fresh):
    pause = make_pause("t-edit")
    ana = make_staff("ana")
    done = edit(ana, pause["id"], pause_page(ana, pause["id"]), amount="35", order_id="4411")
    old = Interrupt.objects.get(pk=pause["id"])
    assert (old.status, old.answered_by, old.answer) == ("edited", "ana", {"arguments": {"amount": 35}})
    new = Interrupt.objects.get(thread_id=pause["key"], status="open")
    assert new.pk != old.pk and new.step_id == old.step_id
    assert {a["name"]: (a["value"], a["origin"]) for a in new.payload["arguments"]} == {
        "amount": (35, "staff"), "order_id": ("4411", "typed")}
    page = done.content.decode()
    assert done.redirect_chain[-1][0].endswith(f"/{new.pk}/change/")
    assert "a staff member edited it" in page and "Edited by" in page and shop.charges("4411") == []
    # The customer's old token no longer answers anything.
    late = Client().post("/threads/t-edit/resume", data=json.dumps(
        {"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]}),
        content_type="application/json", HTTP_STALWART_SESSION=pause["session"])
    assert late.status_code == 409 and shop.charges("4411") == []


def test_whoever_edited_may_not_approve_and_another_approver_may(shop_fresh):
    pause = make_pause("t-eyes")
    ana = make_staff("ana")
    edit(ana, pause["id"], pause_page(ana, pause["id"]), amount="35")
    new = Interrupt.objects.get(thread_id=pause["key"], status="open")
    refused = answer(ana, new.pk, pause_page(ana, new.pk), "approve").content.decode()
    assert "another person approves it" in refused and shop.charges("4411") == []
    assert Interrupt.objects.get(pk=new.pk).status == "open"
    bob = make_staff("bob")
    answer(bob, new.pk, pause_page(bob, new.pk), "approve")
    assert [c["amount"] for c in shop.charges("4411")] == ["35.00"]


def test_four_eyes_can_be_turned_off(shop_fresh, settings):
    settings.STALWART_FOUR_EYES = False
    pause = make_pause("t-two")
    ana = make_staff("ana")
    edit(ana, pause["id"], pause_page(ana, pause["id"]), amount="35")
    new = Interrupt.objects.get(thread_id=pause["key"], status="open")
    answer(ana, new.pk, pause_page(ana, new.pk), "approve")
    assert Interrupt.objects.get(pk=new.pk).status == "answered" and len(shop.charges("4411")) == 1


def test_an_edit_that_changes_nothing_is_refused(shop_fresh):
    pause = make_pause("t-same")
    ana = make_staff("ana")
    page = edit(ana, pause["id"], pause_page(ana, pause["id"]), amount="40").content.decode()
    assert "No value changed" in page and Interrupt.objects.get(pk=pause["id"]).status == "open"


def test_an_operator_rolls_back_from_the_thread_page_and_sees_the_report(shop_fresh):
    from threads.admin import MESSAGE_ROLLED_BACK

    pause = make_pause("t-undo")
    approver = make_staff()
    answer(approver, pause["id"], pause_page(approver, pause["id"]), "approve")
    assert [c["kind"] for c in shop.charges("4411")] == ["charge"]
    # An approver sees no button and may not roll back, by GET or by POST.
    thread_url = f"/admin/threads/thread/{pause['key']}"
    assert "Roll back this thread" not in approver.get(f"{thread_url}/change/").content.decode()
    assert approver.get(f"/admin/threads/thread/{pause['key']}/rollback/").status_code == 403
    assert approver.post(f"/admin/threads/thread/{pause['key']}/rollback/",
                         {"csrfmiddlewaretoken": csrf(approver)}).status_code == 403
    assert [c["kind"] for c in shop.charges("4411")] == ["charge"]

    operator = make_staff("olga", operator=True)
    assert "Roll back this thread" in operator.get(f"{thread_url}/change/").content.decode()
    confirm = operator.get(f"/admin/threads/thread/{pause['key']}/rollback/").content.decode()
    assert "Step 1: charge_card" in confirm and "Yes, roll back" in confirm
    assert "refund_card(amount=40, order_id=4411)" in confirm  # the confirmation names each undo call
    assert [c["kind"] for c in shop.charges("4411")] == ["charge"]  # the confirmation page changes nothing
    done = operator.post(f"/admin/threads/thread/{pause['key']}/rollback/", {"csrfmiddlewaretoken": csrf(operator)},
                         follow=True).content.decode()
    assert str(MESSAGE_ROLLED_BACK).format(undone=1, not_undoable=0, stuck=0) in done
    assert "Step 1, charge_card: undone by refund_card" in done  # the report on the thread page
    assert [c["kind"] for c in shop.charges("4411")] == ["charge", "refund"]
    # Twice undoes nothing twice.
    operator.post(f"/admin/threads/thread/{pause['key']}/rollback/", {"csrfmiddlewaretoken": csrf(operator)})
    assert [c["kind"] for c in shop.charges("4411")] == ["charge", "refund"]


@pytest.mark.parametrize(("operator", "status"), [(True, 200), (False, 403)])
def test_operators_read_the_feedback_list_and_approvers_do_not(db, operator, status):
    # Issue 26: the operators group gives view_feedback (migration 0008); the
    # twin is an approver, the same client with the one condition changed.
    client = make_staff("fiona" if operator else "abel", operator=operator)
    assert client.get("/admin/threads/feedback/").status_code == status
    page = client.get("/admin/")
    assert ("/admin/threads/feedback/" in page.content.decode()) is operator


def test_the_migration_gives_an_existing_operators_group_the_permission(db):
    from importlib import import_module

    from django.apps import apps
    from django.contrib.auth.models import Group, Permission
    from django.contrib.contenttypes.models import ContentType

    from approvals.groups import groups_make

    groups_make(ContentType, Permission, Group)
    migration = import_module("approvals.migrations.0009_operators_read_feedback")
    operators = Group.objects.get(name="operators")
    migration.revoke(apps, None)  # a database from before issue 26...
    assert not operators.permissions.filter(codename="view_feedback").exists()
    migration.grant(apps, None)  # ...is given the permission by the migration
    assert operators.permissions.filter(codename="view_feedback").exists()
    assert not Group.objects.get(name="approvers").permissions.filter(codename="view_feedback").exists()


def test_an_answer_says_what_came_of_it_and_links_the_next_open_pause(shop_fresh, monkeypatch):
    first = make_pause("t-next-1")
    second = make_pause("t-next-2", "charge 99.90 to order 5001")
    staff = make_staff()
    done = answer(staff, first["id"], pause_page(staff, first["id"]), "approve").content.decode()
    assert "Answered: Approve. It ran." in done
    assert "The reply: “Done: charge card. charge id: ch-4411" in done
    assert f'href="/admin/threads/interrupt/{second["id"]}/change/"' in done and "Next open pause" in done

    # Its failure twin: the call fails, and the page says so with the reply; nothing else is open.
    monkeypatch.setenv("STALWART_SHOP_FAULTS", "charge_card=fail")
    failed = answer(staff, second["id"], pause_page(staff, second["id"]), "approve").content.decode()
    assert "Answered: Approve. It ran and failed." in failed and "Charge card failed" in failed
    assert "No pause is open now." in failed


def test_a_run_whose_step_failed_is_not_headed_done_and_offers_no_rollback(shop_fresh, monkeypatch):
    monkeypatch.setenv("STALWART_SHOP_FAULTS", "charge_card=fail")
    pause = make_pause("t-failed-run")
    operator = make_staff("olga", operator=True)
    answer(operator, pause["id"], pause_page(operator, pause["id"]), "approve")
    page = operator.get(f"/admin/threads/thread/{pause['key']}/change/").content.decode()
    assert "ended with a failed step" in page and "”: done</h2>" not in page
    # Nothing succeeded, so nothing to undo: no rollback offered, and its page has no button.
    assert "Roll back this thread" not in page
    confirm = operator.get(f"/admin/threads/thread/{pause['key']}/rollback/").content.decode()
    assert "Nothing this thread did is left to undo." in confirm and "Yes, roll back" not in confirm
