"""Staff accounts: the forced first password change says why it appeared and
which old password to type, and a new password passes Django's validators."""

from __future__ import annotations

import pytest
from django.test import Client

from approvals.services import staff_create
from tests.support.staff import csrf, make_staff

pytestmark = pytest.mark.django_db

WHY = {
    "en": "Your account still has the one-time password that stalwart createstaff printed",
    "pt-BR": "Sua conta ainda usa a senha de uso único que o stalwart createstaff mostrou",
}
OLD = {"en": "Old password: that one-time password.", "pt-BR": "Senha antiga: essa senha de uso único."}


@pytest.mark.parametrize("language", ["en", "pt-BR"])
def test_the_forced_change_says_why_and_that_the_old_password_is_the_one_time_one(language):
    client = make_staff("opa", operator=True, change_password=False, language=language)
    page = client.get("/admin/password_change/").content.decode()
    assert WHY[language] in page and OLD[language] in page


def test_a_change_by_choice_does_not_speak_of_the_one_time_password():
    client = make_staff("bea")  # past the first change
    page = client.get("/admin/password_change/").content.decode()
    assert WHY["en"] not in page and "Please enter your old password" in page


@pytest.mark.parametrize(("new", "refusal"), [
    ("abc", "This password is too short. It must contain at least 12 characters."),
    ("password1234", "This password is too common."),
    ("8419305726184", "This password is entirely numeric."),
])
def test_the_forced_change_refuses_a_weak_password_for_an_operator(new, refusal):
    password = staff_create(username="opb", operator=True)
    client = Client(enforce_csrf_checks=True)
    client.get("/admin/login/")
    client.post("/admin/login/?next=/admin/", {"username": "opb", "password": password,
                                               "csrfmiddlewaretoken": csrf(client)})
    response = client.post("/admin/password_change/", {"old_password": password, "new_password1": new,
                                                       "new_password2": new, "csrfmiddlewaretoken": csrf(client)})
    assert response.status_code == 200 and refusal in response.content.decode()
    # Still the one-time password: the console stays closed.
    assert client.get("/admin/").headers["Location"].endswith("/admin/password_change/")


def test_the_refusal_reads_in_portuguese():
    password = staff_create(username="opc", operator=True)
    client = Client(enforce_csrf_checks=True, HTTP_ACCEPT_LANGUAGE="pt-BR")
    client.get("/admin/login/")
    client.post("/admin/login/?next=/admin/", {"username": "opc", "password": password,
                                               "csrfmiddlewaretoken": csrf(client)})
    response = client.post("/admin/password_change/", {"old_password": password, "new_password1": "abc",
                                                       "new_password2": "abc", "csrfmiddlewaretoken": csrf(client)})
    assert "Esta senha é muito curta. Ela precisa conter pelo menos 12 caracteres." in response.content.decode()
