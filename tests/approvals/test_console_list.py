"""The queue staff live in (issue 24), interface tier (Django's test client):
what a row says, answers from the row and in bulk with their per-pause
report, the irreversible confirmation, the decisions page and its CSV, and
the work waiting in the header and on the index."""

from __future__ import annotations

import csv
import io
import json
import re
from typing import Any

import pytest
from django.test import Client

from examples.shop import tools as shop
from tests.support.server import session_key
from tests.support.staff import csrf, make_staff
from threads.models import Interrupt

pytestmark = pytest.mark.django_db(transaction=True)

QUEUE = "/admin/threads/interrupt/"


def make_pause(thread: str, text: str = "charge 40 to order 4411") -> dict[str, Any]:
    customer = Client()
    body = customer.post(f"/threads/{thread}/messages", data=json.dumps({"text": text}),
                         content_type="application/json")
    data = body.json()
    pause = data["waiting"][0]
    pause["session"] = body.headers["Stalwart-Session"]
    pause["key"] = session_key(thread, pause["session"])  # the thread as staff name it
    return pause


def get(client: Client, path: str) -> str:
    response = client.get(path)
    assert response.status_code == 200, (path, response.status_code)
    return response.content.decode()


def row_form(page: str, pause_id: str) -> dict[str, str]:
    """The row's own form (outside the list's form), as the browser would send it."""
    block = re.search(rf'<form id="answer-{re.escape(pause_id)}" method="post" action="([^"]+)">(.*?)</form>', page, re.S)
    assert block, f"the row of {pause_id} has its answer form"
    fields = dict(re.findall(r'name="([^"]+)" value="([^"]*)"', block.group(2)))
    return {"action": block.group(1), **fields}


def answer_from_row(client: Client, page: str, pause_id: str, decision: str) -> str:
    form = row_form(page, pause_id)
    action = form.pop("action")
    response = client.post(action, {**form, "decision": decision}, follow=True)
    assert response.status_code == 200
    return response.content.decode()


def bulk(client: Client, page: str, action: str, ids: list[str], path: str = QUEUE, **extra: str) -> Any:
    tokens = dict(re.findall(r'name="token:([^"]+)" value="([^"]+)"', page))
    data: dict[str, Any] = {"action": action, "index": "0", "_selected_action": ids,
                            "csrfmiddlewaretoken": csrf(client), **{f"token:{i}": tokens[i] for i in ids}, **extra}
    return client.post(path, data)


@pytest.fixture
def shop_fresh(shop_dir: Any) -> None:
    shop.reset()


def test_a_row_says_what_the_call_asks_its_first_reason_and_irreversible_only_when_true(shop_fresh):
    charge = make_pause("t-charge")
    refund = make_pause("t-refund", "refund 40 on order 4411")
    page = get(make_staff(), QUEUE)
    assert re.search(r"charge_card: [^<]*order_id 4411", page) and re.search(r"charge_card: [^<]*amount 40", page)
    assert "it writes" in page
    # One warning mark, on the irreversible refund's row, with its word for screen readers.
    assert page.count('class="queue-irreversible"') == 1
    refund_row = re.search(rf'<tr[^>]*>(?:(?!</tr>).)*{refund["id"]}(?:(?!</tr>).)*</tr>', page, re.S).group(0)
    assert 'class="queue-irreversible"' in refund_row and '<span class="visually-hidden">Irreversible:</span>' in refund_row
    charge_row = re.search(rf'<tr[^>]*>(?:(?!</tr>).)*{charge["id"]}(?:(?!</tr>).)*</tr>', page, re.S).group(0)
    assert "queue-irreversible" not in charge_row and "icon-no" not in charge_row
    assert "a person&#x27;s turn" in page or "a person's turn" in page
    # Approve and skip on a confirm's row, each labelled with the call for screen readers.
    assert re.search(r'<button type="submit" form="answer-' + charge["id"] + r'" name="decision" value="approve"', page)
    assert 'aria-label="Skip: charge_card: ' in page


def test_a_row_reads_in_portuguese(shop_fresh):
    make_pause("t-refund", "refund 40 on order 4411")
    make_pause("t-ask", "show order")  # a question: its reason in words too
    page = get(make_staff("bia", language="pt-BR"), QUEUE)
    assert ">ask<" not in page
    for words in ("O que pede", "Aprovar", "Pular", "Irreversível", "ela altera dados", "Pausas esperando",
                  "Aprovar as pausas selecionadas", "ela precisa de uma resposta da pessoa"):
        assert words in page, words
    assert "Por quê, e de onde" in page and "a mensagem de uma pessoa" in page
    for english in (">Approve<", ">Skip<", "what it asks", "Pauses waiting", "Approve selected"):
        assert english not in page, english


def test_approve_from_the_row_charges_once_and_a_second_click_says_who_won(shop_fresh):
    pause = make_pause("t-row")
    ana, bia = make_staff("ana"), make_staff("bia")
    ana_page = get(ana, QUEUE + "?kind=confirm")
    bia_page = get(bia, QUEUE)
    done = answer_from_row(ana, ana_page, pause["id"], "approve")
    assert "Answered: Approve (charge_card:" in done
    assert "<h1>Pauses</h1>" in done and "kind=confirm" in done  # back on the queue, filters kept
    assert len(shop.charges("4411")) == 1
    # Bia's page was open before: her click is stale, names Ana, charges nothing more.
    lost = answer_from_row(bia, bia_page, pause["id"], "approve")
    assert "already answered" in lost.replace("&#x27;", "'") and "ana" in lost
    assert len(shop.charges("4411")) == 1
    row = Interrupt.objects.get(pk=pause["id"])
    assert (row.status, row.decision, row.answered_by, row.answered_via) == ("answered", "approve", "ana", "console")


def test_skip_from_the_row_and_a_forged_token_changes_nothing(shop_fresh):
    pause = make_pause("t-skip")
    ana = make_staff()
    page = get(ana, QUEUE)
    forged = page.replace(pause["token"], "f" * len(pause["token"]))
    answer_from_row(ana, forged, pause["id"], "approve")
    assert Interrupt.objects.get(pk=pause["id"]).status == "open" and shop.charges("4411") == []
    answer_from_row(ana, page, pause["id"], "skip")
    assert Interrupt.objects.get(pk=pause["id"]).decision == "skip" and shop.charges("4411") == []


def test_a_row_answer_needs_the_permission_and_an_outside_next_is_not_followed(shop_fresh):
    from django.contrib.auth.models import Group

    pause = make_pause("t-perm")
    viewer = make_staff("vera")
    user = viewer.session.get("_auth_user_id")
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Permission

    account = get_user_model().objects.get(pk=user)
    account.groups.clear()
    account.user_permissions.add(Permission.objects.get(codename="view_interrupt"))
    page = get(viewer, QUEUE)
    assert 'name="decision"' not in page and "Approve selected" not in page and "Pauses waiting" not in page
    response = viewer.post(f"/admin/threads/interrupt/{pause['id']}/answer/", {
        "decision": "approve", "token": pause["token"], "csrfmiddlewaretoken": csrf(viewer)})
    assert response.status_code == 403 and Interrupt.objects.get(pk=pause["id"]).status == "open"
    assert Group.objects.filter(name="approvers").exists()
    ana = make_staff("ana")
    form = row_form(get(ana, QUEUE), pause["id"])
    response = ana.post(form["action"], {"token": form["token"], "csrfmiddlewaretoken": form["csrfmiddlewaretoken"],
                                         "next": "https://elsewhere.example/", "decision": "skip"})
    assert response.status_code == 302 and response.headers["Location"].startswith("/admin/threads/interrupt/")


def test_bulk_approve_of_three_with_one_answered_elsewhere_charges_two_and_names_the_lost_one(shop_fresh):
    pauses = [make_pause("t-bulk-0", "charge 40 to order 4411"), make_pause("t-bulk-1", "charge 99.90 to order 5001"),
              make_pause("t-bulk-2", "charge 40 to order 4411")]
    ana, bia = make_staff("ana"), make_staff("bia")
    page = get(ana, QUEUE)
    # Bia answers the third from her own page first (she skips it).
    answer_from_row(bia, get(bia, QUEUE), pauses[2]["id"], "skip")
    response = bulk(ana, page, "approve_selected", [p["id"] for p in pauses])
    assert response.status_code == 200
    report = response.content.decode()
    assert "What happened to each pause" in report and "Approve: 2 pauses answered." in report
    assert len(shop.charges()) == 2  # 4411 and 5001, once each
    lines = dict(x[::-1] for x in re.findall(r'<tr class="bulk-(\w+)" data-pause="([^"]+)">', report))
    assert lines == {pauses[0]["id"]: "done", pauses[1]["id"]: "done", pauses[2]["id"]: "lost"}
    lost = re.search(r'<tr class="bulk-lost".*?</tr>', report, re.S).group(0)
    assert "Lost to someone else" in lost and "bia" in lost and "Skip" in lost
    third = Interrupt.objects.get(pk=pauses[2]["id"])
    assert (third.decision, third.answered_by) == ("skip", "bia")


def test_bulk_skip_reports_a_stale_token_and_a_kind_it_does_not_answer(shop_fresh):
    charge = make_pause("t-a")
    question = make_pause("t-ask", "show order")
    assert question["kind"] == "ask"
    ana = make_staff()
    page = get(ana, QUEUE).replace(charge["token"], "0" * len(charge["token"]))
    report = bulk(ana, page, "skip_selected", [charge["id"], question["id"]]).content.decode()
    lines = dict(x[::-1] for x in re.findall(r'<tr class="bulk-(\w+)" data-pause="([^"]+)">', report))
    assert lines == {charge["id"]: "stale", question["id"]: "refused"}
    assert Interrupt.objects.filter(status="open").count() == 2


def test_a_bulk_approve_with_an_irreversible_pause_stops_at_a_confirmation_naming_it(shop_fresh):
    charge = make_pause("t-charge")
    refund = make_pause("t-refund", "refund 40 on order 4411")
    assert refund["irreversible"]
    ana = make_staff()
    page = get(ana, QUEUE)
    confirm = bulk(ana, page, "approve_selected", [charge["id"], refund["id"]]).content.decode()
    assert "Approve irreversible calls?" in confirm and "refund_card:" in confirm
    assert re.search(r'<ul class="bulk-irreversible">.*refund_card.*</ul>', confirm, re.S)
    assert "charge_card" not in re.search(r'<ul class="bulk-irreversible">.*?</ul>', confirm, re.S).group(0)
    assert Interrupt.objects.filter(status="open").count() == 2 and shop.charges("4411") == []
    # Confirmed: both answered, each with the token the list showed.
    data = dict(re.findall(r'name="(action|confirm_irreversible|next|csrfmiddlewaretoken)" value="([^"]*)"', confirm))
    tokens = dict(re.findall(r'name="token:([^"]+)" value="([^"]+)"', confirm))
    response = ana.post(QUEUE, {**data, "_selected_action": [charge["id"], refund["id"]],
                                **{f"token:{k}": v for k, v in tokens.items()}})
    report = response.content.decode()
    assert report.count('class="bulk-done"') == 2, report
    assert Interrupt.objects.filter(status="open").count() == 0
    # A bulk skip never asks: skipping undoes nothing.
    refund2 = make_pause("t-refund-2", "refund 40 on order 4411")
    skipped = bulk(ana, get(ana, QUEUE), "skip_selected", [refund2["id"]]).content.decode()
    assert 'class="bulk-done"' in skipped


def test_the_decisions_page_lists_each_answer_with_who_and_where_from_and_its_csv_matches(shop_fresh):
    by_row = make_pause("t-1")
    by_customer = make_pause("t-2")
    ana = make_staff()
    answer_from_row(ana, get(ana, QUEUE), by_row["id"], "approve")
    Client().post("/threads/t-2/resume", data=json.dumps(
        {"interrupt_id": by_customer["id"], "decision": "skip", "token": by_customer["token"]}),
        content_type="application/json", HTTP_STALWART_SESSION=by_customer["session"])
    page = get(ana, "/admin/approvals/decision/")
    assert "<h1>Decisions</h1>" in page
    assert page.index("t-2") < page.index("t-1")  # newest first
    assert "ana" in page and "console" in page and "the customer" in page and ">HTTP<" in page
    only_ana = get(ana, "/admin/approvals/decision/?person=ana")
    assert "t-1" in only_ana and "t-2" not in only_ana
    only_skip = get(ana, "/admin/approvals/decision/?decision=skip")
    assert "t-2" in only_skip and "t-1" not in only_skip
    response = ana.get("/admin/approvals/decision/csv/?person=ana")
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode("utf-8-sig"))))
    assert rows[0] == ["when", "who", "pause", "call", "thread", "agent", "decision", "from where", "approvals"]
    assert [r[1:3] + r[4:] for r in rows[1:]] == [["ana", by_row["id"], by_row["key"], "Shop", "Approve", "console",
                                                   ""]]  # no policy: no approvals
    everything = list(csv.reader(io.StringIO(b"".join(ana.get("/admin/approvals/decision/csv/")
                                                        .streaming_content).decode("utf-8-sig"))))
    assert [r[4] for r in everything[1:]] == [by_customer["key"], by_row["key"]]  # staff's name: the key
    # The pause and thread pages link to it.
    assert f"/admin/approvals/decision/?q={by_row['key']}" in get(ana, f"{QUEUE}{by_row['id']}/change/")
    assert f"/admin/approvals/decision/?q={by_row['key']}" in get(ana, f"/admin/threads/thread/{by_row['key']}/change/")
    assert by_row["id"] in get(ana, "/admin/approvals/decision/?q=t-1")  # the id finds every session's thread of it


def test_an_answer_from_the_widget_is_the_widgets_and_a_claim_of_anything_else_is_http(shop_fresh):
    ana = make_staff()
    keys = {}
    for thread, client in (("t-w", "widget"), ("t-o", "something-else")):
        pause = make_pause(thread)
        keys[pause["key"]] = thread
        Client().post(f"/threads/{thread}/resume", data=json.dumps(
            {"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]}),
            content_type="application/json", HTTP_STALWART_SESSION=pause["session"], HTTP_STALWART_CLIENT=client)
    via = {keys[k]: v for k, v in Interrupt.objects.values_list("thread_id", "answered_via")}
    assert via == {"t-w": "widget", "t-o": "http"}
    only_widget = get(ana, "/admin/approvals/decision/?answered_via__exact=widget")
    assert "t-w" in only_widget and "t-o" not in only_widget and ">widget<" in only_widget


def test_the_decisions_page_in_portuguese_and_only_for_staff_who_see_pauses(shop_fresh):
    pause = make_pause("t-1")
    bia = make_staff("bia", language="pt-BR")
    answer_from_row(bia, get(bia, QUEUE), pause["id"], "skip")
    page = get(bia, "/admin/approvals/decision/")
    for words in ("<h1>Decisões</h1>", "Exportar como CSV", "Pular", "console"):
        assert words in page, words
    assert Client().get("/admin/approvals/decision/csv/").status_code == 302  # to the sign-in


def test_the_header_counts_open_pauses_on_every_page_and_the_tab_title_too(shop_fresh):
    make_pause("t-1")
    make_pause("t-2")
    ana = make_staff()
    # (A filtered queue still counts every open pause, in its own count's statement.)
    for path in ("/admin/", "/admin/threads/thread/", QUEUE, QUEUE + "?kind=ask", "/admin/approvals/decision/"):
        page = get(ana, path)
        assert re.search(r'Pauses waiting: <strong class="work-count">2</strong>', page), path
        assert re.search(r"<title>\(2\) ", page), path
        assert '<script type="module" src="/static/stalwart/console.js">' in page
        assert "<script>" not in page  # no inline script: the admin's CSP stays as it is


def test_the_index_opens_with_the_queue_summary(shop_fresh):
    ana = make_staff()
    assert "Nothing waits: no open pauses." in get(ana, "/admin/")
    make_pause("t-1")
    make_pause("t-2")
    make_pause("t-ask", "show order")
    page = get(ana, "/admin/")
    summary = re.search(r'<section class="module queue-summary".*?</section>', page, re.S).group(0)
    assert page.index("queue-summary") < page.index('id="content-main"') or page.index("queue-summary") < \
        page.index("app-threads")
    confirm = re.search(r'<tr class="queue-summary-confirm">(.*?)</tr>', summary, re.S).group(1)
    assert "?kind__exact=confirm" in confirm and "<td>2</td>" in confirm
    assert 'class="queue-summary-ask"' in summary and "queue-summary-saga_stuck" not in summary
    pt = get(make_staff("bia", language="pt-BR"), "/admin/")
    assert "Esperando uma pessoa" in pt and "Pausas esperando" in pt


def test_four_eyes_hold_in_a_bulk_approve_and_from_the_row(shop_fresh):
    from tests.approvals.test_console import edit, pause_page

    pause = make_pause("t-eyes")
    ana = make_staff("ana")
    edit(ana, pause["id"], pause_page(ana, pause["id"]), amount="35")
    new = Interrupt.objects.get(thread_id=pause["key"], status="open")
    page = get(ana, QUEUE)
    report = bulk(ana, page, "approve_selected", [new.pk]).content.decode()
    assert f'<tr class="bulk-refused" data-pause="{new.pk}">' in report and "another person approves it" in report
    refused = answer_from_row(ana, page, new.pk, "approve")
    assert "another person approves it" in refused and shop.charges("4411") == []
    bob = make_staff("bob")
    done = bulk(bob, get(bob, QUEUE), "approve_selected", [new.pk]).content.decode()
    assert f'<tr class="bulk-done" data-pause="{new.pk}">' in done
    assert [c["amount"] for c in shop.charges("4411")] == ["35.00"]


def test_a_row_tells_the_time_left_an_escalation_and_a_deadline_passed():
    from datetime import timedelta

    from django.utils import timezone

    from approvals.admin.rows import time_left

    now = timezone.now()
    waiting = Interrupt(id="p-x", kind="confirm", status="open", payload={}, expires_at=now + timedelta(minutes=4))
    assert str(time_left(waiting, now)) == "in 4\xa0minutes"
    waiting.escalate_at = now - timedelta(seconds=1)
    assert 'class="queue-escalated">escalated<' in str(time_left(waiting, now))
    waiting.expires_at = now - timedelta(seconds=1)
    assert "past its deadline" in str(time_left(waiting, now))
    assert str(time_left(Interrupt(id="p-y", kind="confirm", status="open", payload={}), now)) == ""
    assert str(time_left(Interrupt(id="p-z", kind="confirm", status="answered", payload={}), now)) == ""


@pytest.mark.parametrize("query", ["", "?kind__exact=confirm&q=t-rows-2", "?status=all&o=-5", "?status=answered"])
def test_the_queues_rows_are_djangos_own_cell_for_cell(shop_fresh, query):
    """``approvals.admin.results`` writes the rows for less; what it writes is what Django's
    change list would: each filter's page, with its filters kept in every row's link."""
    from django.contrib.admin.templatetags.admin_list import results

    from approvals.admin.results import queue_results

    make_pause("t-rows-1")
    make_pause("t-rows-2", "refund 40 on order 4411")  # irreversible: the warning mark
    make_pause("t-rows-3", "show order")  # a question: no answers on its row
    answered = make_pause("t-rows-4", "charge 40 to order 4412")
    staff = make_staff()
    answer_from_row(staff, get(staff, QUEUE), answered["id"], "approve")
    response = staff.get(QUEUE + query)
    assert response.status_code == 200
    cl = response.context["cl"]
    assert cl.result_list, "the page has rows to compare"
    ours = ["".join(row) for row in queue_results(cl)]
    djangos = ["".join(row) for row in results(cl)]
    assert ours == djangos
    page = response.content.decode()
    assert all(row in page for row in ours)  # and these are the rows the page shows
    if "q=" in query:
        assert "_changelist_filters=" in ours[0]  # the row's link keeps the filters


def test_a_rows_address_is_the_one_django_reverses_whatever_its_key():
    from django.contrib.admin.utils import quote
    from django.urls import reverse

    from approvals.admin.results import row_url

    for key in ("t-1~a27a3d4e60963404", "a:b_c/d~e", "x y%z?", "pedido-ção", "p-0123abcd"):
        for name in ("admin:threads_thread_change", "admin:threads_interrupt_change", "admin:threads_interrupt_answer"):
            assert row_url(name, key) == reverse(name, args=(quote(key),)), (name, key)
