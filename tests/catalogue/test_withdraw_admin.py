"""Withdrawing and restoring a tool in the admin's web form, with who and why."""

from __future__ import annotations

import pytest
from django.test import Client

from approvals.services import staff_create
from catalogue.models import Withdrawal

pytestmark = pytest.mark.django_db


def signed_in(operator: bool) -> Client:
    name = "ops" if operator else "approver"
    password = staff_create(username=name, operator=operator)
    client = Client(enforce_csrf_checks=True)
    page = client.get("/admin/login/")
    token = page.cookies["csrftoken"].value
    response = client.post("/admin/login/?next=/admin/", {"username": name, "password": password,
                                                          "csrfmiddlewaretoken": token})
    assert response.status_code == 302
    return client


def csrf(client: Client) -> str:
    return client.cookies["csrftoken"].value


def test_an_operator_withdraws_a_tool_with_who_and_why_then_restores_it():
    client = signed_in(operator=True)
    form = client.get("/admin/catalogue/withdrawal/add/")
    assert form.status_code == 200 and b"Shop: archive_order (write)" in form.content
    response = client.post("/admin/catalogue/withdrawal/add/", {
        "target": "Shop:archive_order", "reason": "archives are broken today", "csrfmiddlewaretoken": csrf(client),
    })
    assert response.status_code == 302, response.content
    withdrawal = Withdrawal.objects.get()
    assert (withdrawal.agent, withdrawal.tool, withdrawal.reason) == ("Shop", "archive_order",
                                                                     "archives are broken today")
    assert withdrawal.withdrawn_by is not None and withdrawal.withdrawn_by.username == "ops"
    listed = client.get("/admin/catalogue/withdrawal/")
    assert b"archives are broken today" in listed.content
    response = client.post(f"/admin/catalogue/withdrawal/{withdrawal.pk}/delete/",
                           {"post": "yes", "csrfmiddlewaretoken": csrf(client)})
    assert response.status_code == 302 and not Withdrawal.objects.exists()


def test_a_post_without_csrf_is_refused():
    client = signed_in(operator=True)
    response = client.post("/admin/catalogue/withdrawal/add/", {"target": "Shop:archive_order", "reason": "x"})
    assert response.status_code == 403 and not Withdrawal.objects.exists()


def test_an_approver_may_not_withdraw():
    client = signed_in(operator=False)
    assert client.get("/admin/catalogue/withdrawal/add/").status_code == 403
