"""The tools page, withdrawals and settings in the console, with who and why."""

from __future__ import annotations

import pytest
from django.test import Client

from catalogue import registry
from catalogue.models import AgentSetting, Withdrawal
from tests.support.staff import csrf, make_staff

pytestmark = pytest.mark.django_db


def test_the_tools_page_lists_the_catalogue_with_read_write_declarations_and_lints():
    page = make_staff("ops", operator=True).get("/admin/catalogue/tool/").content.decode()
    assert "<h1>Tools</h1>" in page
    assert 'id="tool-charge_card"' in page and "undone by refund_card" in page and "irreversible" in page
    assert "write_without_compensation" in page  # archive_order: the shop's deliberate lint
    assert page.count('>Withdraw<') == 7  # every tool but those the file itself withdraws


@pytest.mark.parametrize(("language", "sentence"), [
    ("en", "a write neither compensated nor marked irreversible"),
    ("pt-BR", "altera dados sem compensação e sem ser marcada irreversível"),
])
def test_a_lints_sentence_is_in_the_consoles_language(language, sentence):
    page = make_staff("ops", operator=True, language=language).get("/admin/catalogue/tool/").content.decode()
    assert sentence in page


@pytest.mark.parametrize(("language", "purpose", "other"), [
    ("en", "<p>I look up your orders, charge them and refund them.</p>", "Eu consulto os seus pedidos"),
    ("pt-BR", "<p>Eu consulto os seus pedidos, faço cobranças e estornos.</p>", "I look up your orders"),
])
def test_the_agents_purpose_is_in_the_readers_language(language, purpose, other):
    page = make_staff("ops", operator=True, language=language).get("/admin/catalogue/tool/").content.decode()
    assert purpose in page and other not in page


def test_an_operator_withdraws_from_the_tools_page_with_who_and_why_then_restores_it():
    ops = make_staff("ops", operator=True)
    response = ops.post("/admin/catalogue/tool/withdraw/", {
        "agent": "Shop", "tool": "archive_order", "reason": "archives are broken today",
        "csrfmiddlewaretoken": csrf(ops)}, follow=True)
    page = response.content.decode()
    assert "Withdrawn: archive_order." in page and "archives are broken today" in page and "by ops" in page
    withdrawal = Withdrawal.objects.get()
    assert (withdrawal.tool, withdrawal.reason, withdrawal.withdrawn_by.username) == (
        "archive_order", "archives are broken today", "ops")
    assert "archive_order" in registry.withdrawn_tools(registry.get_agent("Shop"))
    response = ops.post("/admin/catalogue/tool/restore/", {
        "agent": "Shop", "tool": "archive_order", "csrfmiddlewaretoken": csrf(ops)}, follow=True)
    assert "Restored: archive_order." in response.content.decode() and not Withdrawal.objects.exists()


def test_a_withdrawal_without_a_reason_is_refused():
    ops = make_staff("ops", operator=True)
    ops.post("/admin/catalogue/tool/withdraw/", {"agent": "Shop", "tool": "archive_order", "reason": " ",
                                                 "csrfmiddlewaretoken": csrf(ops)})
    assert not Withdrawal.objects.exists()


def test_the_withdrawal_form_names_the_withdrawal_by_its_tool_and_restoring_says_restore():
    ops = make_staff("ops", operator=True)
    form = ops.get("/admin/catalogue/withdrawal/add/")
    assert form.status_code == 200 and b"Shop: archive_order (write)" in form.content
    response = ops.post("/admin/catalogue/withdrawal/add/", {
        "target": "Shop:archive_order", "reason": "broken", "csrfmiddlewaretoken": csrf(ops)}, follow=True)
    page = response.content.decode()
    assert "archive_order" in page and "“: ”" not in page and "&quot;: &quot;" not in page
    assert "Restore the selected tools" in page and "Delete selected" not in page
    withdrawal = Withdrawal.objects.get()
    response = ops.post("/admin/catalogue/withdrawal/", {
        "action": "restore_selected", "_selected_action": [withdrawal.pk], "csrfmiddlewaretoken": csrf(ops)})
    assert response.status_code == 302 and not Withdrawal.objects.exists()


def test_a_post_without_csrf_is_refused():
    ops = make_staff("ops", operator=True)
    ops.cookies.pop("csrftoken", None)
    response = ops.post("/admin/catalogue/tool/withdraw/", {"agent": "Shop", "tool": "archive_order", "reason": "x"})
    assert response.status_code == 403 and not Withdrawal.objects.exists()


def test_an_approver_is_not_offered_the_withdraw_form_and_gets_403_opening_it():
    approver = make_staff("ana")
    assert b"Withdraw" not in approver.get("/admin/").content
    assert approver.get("/admin/catalogue/withdrawal/add/").status_code == 403
    assert approver.get("/admin/catalogue/tool/").status_code == 403
    response = approver.post("/admin/catalogue/tool/withdraw/", {
        "agent": "Shop", "tool": "archive_order", "reason": "x", "csrfmiddlewaretoken": csrf(approver)})
    assert response.status_code == 403 and not Withdrawal.objects.exists()


def test_settings_have_a_row_per_agent_an_operator_edits():
    ops = make_staff("ops", operator=True)
    assert ops.get("/admin/catalogue/agentsetting/").status_code == 200
    setting = AgentSetting.objects.get(agent="Shop")
    response = ops.post(f"/admin/catalogue/agentsetting/{setting.pk}/change/", {
        "language": "pt-BR", "csrfmiddlewaretoken": csrf(ops)})
    assert response.status_code == 302
    assert registry.choose_language(registry.get_agent("Shop")) == "pt-BR"
    assert make_staff("ana").get(f"/admin/catalogue/agentsetting/{setting.pk}/change/").status_code == 403


def test_the_first_sign_in_must_change_the_one_time_password():
    client = make_staff("new", change_password=False)
    response = client.get("/admin/")
    assert response.status_code == 302 and response["Location"].endswith("/admin/password_change/")
    assert client.get("/admin/threads/interrupt/").status_code == 302
    assert client.get("/admin/password_change/").status_code == 200


def test_the_one_time_password_does_not_work_twice():
    from approvals.services import staff_create

    password = staff_create(username="once")
    first = Client()
    assert first.login(username="once", password=password)
    first.post("/admin/password_change/", {"old_password": password, "new_password1": "brand-new-pass-99",
                                           "new_password2": "brand-new-pass-99"})
    assert not Client().login(username="once", password=password)
