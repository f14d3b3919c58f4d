"""Signed-in staff browsers for the console's interface tests."""

from __future__ import annotations

from django.test import Client

from approvals.services import staff_create


def csrf(client: Client) -> str:
    return client.cookies["csrftoken"].value


def make_staff(name: str = "ana", *, operator: bool = False, change_password: bool = True,
               language: str | None = None) -> Client:
    """A signed-in staff browser (CSRF enforced), past the first password change."""
    password = staff_create(username=name, operator=operator)
    client = Client(enforce_csrf_checks=True, **({"HTTP_ACCEPT_LANGUAGE": language} if language else {}))
    client.get("/admin/login/")
    response = client.post("/admin/login/?next=/admin/", {"username": name, "password": password,
                                                          "csrfmiddlewaretoken": csrf(client)})
    assert response.status_code == 302
    if change_password:
        client.get("/admin/password_change/")
        new = "a-long-new-password-" + name
        response = client.post("/admin/password_change/", {
            "old_password": password, "new_password1": new, "new_password2": new,
            "csrfmiddlewaretoken": csrf(client)})
        assert response.status_code == 302, response.content
    return client
