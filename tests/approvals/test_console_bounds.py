"""Hostile input at the console (docs/operating.md, "The console (/admin/)"): every
registered admin's list, filters, search, pages, object pages and the Decisions
CSV, sent text PostgreSQL cannot store (NUL), broken UTF-8, digits that are not
ASCII, numbers of thousands of digits, as a signed-in superuser. Each answers a
4xx, a redirect or a page, never a 500; nothing is changed. Run on SQLite and on
PostgreSQL (DATABASE_URL), where a NUL in a lookup is a ValueError inside Django."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import Client, RequestFactory
from django.urls import reverse
from django.utils.html import escape

from tests.approvals.test_console import answer, make_pause, pause_page
from tests.support.staff import csrf, make_staff
from threads.models import Interrupt

pytestmark = pytest.mark.django_db(transaction=True)

# As a query string or a path segment carries them (already percent-encoded where needed).
HOSTILE = [quote(v, safe="") for v in (
    "\x00", "a\x00b", "\u00b2", "\u0663", "-1", "0", "9" * 30, "9" * 5000, "'", '"', "\\", "%", "_",
    "<script>x</script>", "a" * 3000, "2026-13-45", "null", "\ufffd", " ", "[]",
)] + ["%ED%A0%80", "%FF", "%C0%80"]  # a lone surrogate, a byte that is no UTF-8, an overlong NUL
# The parameters every changelist reads, and some it does not know.
LIST_PARAMS = ["q", "p", "o", "e", "all", "_facets", "_to_field", "_popup", "_changelist_filters", "foo",
               "id__exact", "pk__in"]


@pytest.fixture
def console(shop_dir: Any) -> Client:
    from examples.shop import tools as shop

    shop.reset()
    ask = make_pause("t-bounds-ask", "show order")
    confirm = make_pause("t-bounds", "charge 40 to order 4411")
    staff = make_staff("root", operator=True)
    get_user_model().objects.filter(username="root").update(is_superuser=True)  # every admin, users too
    answer(staff, confirm["id"], pause_page(staff, confirm["id"]), "skip")  # a decision to list
    assert ask["kind"] == "ask"
    return staff


def read(response: Any) -> Any:
    if getattr(response, "streaming", False):
        b"".join(response.streaming_content)  # a CSV's rows are read while it is sent
    return response


def filter_params(label: str) -> set[str]:
    """The list filters' parameters, as the admin's changelist reads them."""
    model, model_admin = admin_of(label)
    if not model._meta.managed:
        return set()  # the tools page: no table, a page of its own
    request = RequestFactory().get("/")
    request.user = get_user_model().objects.get(username="root")
    return {name for spec in model_admin.get_changelist_instance(request).filter_specs
            for name in spec.expected_parameters()}


def admin_of(label: str) -> tuple[Any, Any]:
    return next((m, a) for m, a in admin.site._registry.items() if m._meta.label_lower == label)


# Every registered admin: the console's own, the MCP clients', Django's users and groups.
ADMINS = sorted(m._meta.label_lower for m in admin.site._registry)
# The list walk sends fewer values, each a different way to fail: thousands of requests otherwise.
LIST_HOSTILE = [quote(v, safe="") for v in ("\x00", "\u00b2", "-1", "9" * 5000, "2026-13-45", "'")] + ["%ED%A0%80"]


@pytest.mark.parametrize("label", ADMINS)
def test_every_list_filter_search_and_page_answers_hostile_values_without_a_500(console, label):
    model, _ = admin_of(label)
    url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
    urls = [url, reverse("admin:approvals_decision_csv")] if label == "approvals.decision" else [url]
    failures = []
    for address in urls:
        for name in LIST_PARAMS + sorted(filter_params(label)):
            for value in LIST_HOSTILE:
                response = read(console.get(f"{address}?{name}={value}"))
                if response.status_code >= 500:
                    failures.append((address, name, value, response.status_code))
    assert failures == []


@pytest.mark.parametrize("label", ADMINS)
def test_every_object_page_answers_a_hostile_id_without_a_500(console, label):
    model, _ = admin_of(label)
    prefix = f"/admin/{model._meta.app_label}/{model._meta.model_name}/"
    failures = []
    for value in HOSTILE:
        for tail in ("change/", "history/", "delete/"):
            response = console.get(f"{prefix}{value}/{tail}")
            if response.status_code >= 500:
                failures.append((prefix, value, tail, response.status_code))
    assert failures == []


def test_the_lists_filters_are_all_walked(console):
    walked = set().union(*(filter_params(label) for label in ADMINS))
    assert {"status", "person", "kind__exact", "agent", "answered_at__gte", "answered_via__exact"} <= walked
    assert {"threads.interrupt", "approvals.decision", "threads.thread", "catalogue.tool", "catalogue.withdrawal",
            "doors_mcp.mcpclient"} <= set(ADMINS)


def test_a_nul_in_a_console_address_is_refused_with_a_400_page_in_the_console(console):
    for url in ("/admin/threads/interrupt/?q=t%00x", "/admin/threads/thread/?agent=%00",
                "/admin/approvals/decision/csv/?q=%00", "/admin/threads/thread/a%00b/change/"):
        response = console.get(url)
        assert response.status_code == 400, url
        assert "cannot be looked up" in response.content.decode(), url
    # A posted form too: a question's answer, an action's chosen rows. Nothing is answered.
    ask = Interrupt.objects.get(kind=Interrupt.Kind.ASK)
    token = re.search(r'name="token" value="([^"]+)"', pause_page(console, ask.pk)).group(1)  # type: ignore[union-attr]
    for url, data in ((f"/admin/threads/interrupt/{ask.pk}/answer/", {"text": "44\x0011", "token": token}),
                      ("/admin/threads/interrupt/", {"action": "skip_selected", "_selected_action": "\x00"})):
        response = console.post(url, {**data, "csrfmiddlewaretoken": csrf(console)})
        assert response.status_code == 400 and "cannot be looked up" in response.content.decode()
    assert Interrupt.objects.get(pk=ask.pk).status == Interrupt.Status.OPEN
    in_portuguese = make_staff("bia", language="pt-BR").get("/admin/threads/thread/?agent=%00")
    assert in_portuguese.status_code == 400 and "nada foi lido nem alterado" in in_portuguese.content.decode()


def test_the_console_posts_answer_hostile_ids_without_a_500(console):
    token = csrf(console)
    failures = []
    for value in HOSTILE:
        for url, data in ((f"/admin/threads/interrupt/{value}/answer/", {"decision": "approve"}),
                          (f"/admin/threads/interrupt/{value}/edit/", {"arg:amount": "1"}),
                          (f"/admin/threads/thread/{value}/rollback/", {}),
                          ("/admin/threads/interrupt/", {"action": "skip_selected", "_selected_action": value}),
                          ("/admin/threads/thread/", {"action": "delete_selected", "_selected_action": value})):
            from urllib.parse import unquote

            response = console.post(url, {**data, "csrfmiddlewaretoken": token}
                                    if "_selected_action" not in data else
                                    {**data, "_selected_action": unquote(value), "csrfmiddlewaretoken": token})
            if response.status_code >= 500:
                failures.append((url, value, response.status_code))
    assert failures == []
    assert Interrupt.objects.filter(status=Interrupt.Status.OPEN).count() == 1


@pytest.mark.parametrize("choice", ["\u00b2", "\u0663", "9" * 5000, "-1", "1.5", " 1", "x"])
def test_a_question_answered_with_a_choice_the_page_cannot_send_is_refused_and_nothing_changes(console, choice):
    from approvals.admin.answers import MESSAGE_NOT_A_CHOICE

    ask = Interrupt.objects.get(kind=Interrupt.Kind.ASK)
    page = pause_page(console, ask.pk)
    token = re.search(r'name="token" value="([^"]+)"', page).group(1)  # type: ignore[union-attr]
    response = console.post(f"/admin/threads/interrupt/{ask.pk}/answer/", {
        "choice": choice, "text": "4411", "token": token, "csrfmiddlewaretoken": csrf(console)}, follow=True)
    assert response.status_code == 200
    assert escape(str(MESSAGE_NOT_A_CHOICE)) in response.content.decode()
    ask.refresh_from_db()
    assert ask.status == Interrupt.Status.OPEN and ask.answer is None


@pytest.mark.parametrize("query", ["answered_at__gte=2026-13-45", "answered_at__lt=soon", "p=99999", "p=-1", "p=\u00b2",
                                   "o=99", "o=-x", "foo=1", "answered_via__exact=telepathy", "person=%00"])
def test_the_decisions_csv_answers_bad_parameters_with_a_redirect_or_a_4xx(console, query):
    response = read(console.get(f"/admin/approvals/decision/csv/?{query}"))
    assert response.status_code in (200, 302, 400), query
    if response.status_code == 302:  # to the list, which says its filters could not be read
        assert response["Location"].startswith("/admin/approvals/decision/?e=1")


def test_a_decisions_csv_cell_that_could_run_as_a_formula_is_written_as_text(console):
    import csv
    import io

    from approvals.admin.decisions import inert

    for risky in ("=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx"):
        assert inert(risky) == "'" + risky
    assert inert("ana") == "ana" and inert("") == ""
    pause = make_pause("t-formula", "charge 40 to order 4411")
    staff = make_staff("@cmd")  # a name a spreadsheet would read as a formula
    answer(staff, pause["id"], pause_page(staff, pause["id"]), "skip")
    body = b"".join(console.get("/admin/approvals/decision/csv/?q=t-formula").streaming_content)
    rows = list(csv.reader(io.StringIO(body.decode("utf-8-sig"))))
    assert len(rows) == 2 and rows[1][1] == "'@cmd"


@pytest.mark.server
def test_a_served_console_refuses_a_nul_in_its_address_with_the_400_page(tmp_path):
    """As a browser reaches it: through ``stalwart serve`` (ASGI), where the path arrives decoded."""
    import httpx

    from tests.support.server import Server

    with Server(tmp_path) as server:
        for address in ("/admin/threads/thread/%00/change/", "/admin/threads/interrupt/?q=%00",
                        "/admin/approvals/decision/csv/?person=a%00b"):
            response = httpx.get(f"{server.url}{address}")
            assert response.status_code == 400, address
            assert "cannot be looked up" in response.text, address
