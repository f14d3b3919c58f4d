"""Stalwart's own middleware.

``BodyLimitMiddleware``: a body size limit that answers ``413 too_large`` as JSON (SPEC §10).

Django's own ``DATA_UPLOAD_MAX_MEMORY_SIZE`` only trips when the body is
read, and then as a 400; a declared Content-Length over the limit is refused
here before anything reads it.

``PasswordChangeFirstMiddleware``: the first sign-in with ``createstaff``'s
one-time password goes to the password change form before anything else.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect

from approvals.services import password_must_change
from stalwart_site.errors import DETAIL_TOO_LARGE, error_response
from threads.errors import TooLarge


class BodyLimitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = settings.STALWART_MAX_BODY
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length > limit and not request.path.startswith("/admin/"):
            return error_response(TooLarge(DETAIL_TOO_LARGE.format(limit=limit)))
        return self.get_response(request)


class PasswordChangeFirstMiddleware:
    """A staff account still on its one-time password sees only the password
    change form (and may sign out) until it chooses its own."""

    ALLOWED = ("/admin/password_change/", "/admin/logout/", "/admin/login/", "/admin/jsi18n/", "/i18n/")

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        path = request.path
        if path.startswith("/admin/") and not path.startswith(self.ALLOWED) and password_must_change(request.user):
            return redirect("admin:password_change")
        return self.get_response(request)
