"""Request-wide guards that run before any view.

- ``RequestIdMiddleware`` gives each request an id (echoed as
  ``X-Request-Id``; a 500's JSON body carries it and the log line names it)
  and refuses a header holding a lone surrogate: such text cannot be encoded,
  stored or compared, so it is a ``400 bad_request`` before anything reads it.
- ``BodyLimitMiddleware``: a body size limit that answers ``413 too_large`` as
  JSON (docs/http-api.md, "Errors"). Django's own
  ``DATA_UPLOAD_MAX_MEMORY_SIZE`` only trips when the body is read; a declared
  Content-Length over the limit is refused here before anything reads it.
- ``ContentSecurityPolicyMiddleware``: one Content-Security-Policy for every
  HTML page (the chat, ``/pair/``, the admin, ``/api/docs/``), set in one
  place; a page that sets its own keeps it.
- ``PasswordChangeFirstMiddleware``: the first sign-in with ``createstaff``'s
  one-time password goes to the password change form before anything else.
- ``ConsoleAddressMiddleware``: a console address (``/admin/...``) whose path,
  query or posted form holds a NUL or a lone surrogate, text no lookup can take
  (PostgreSQL refuses a NUL in any string), is a 400 page in the console before
  any view reads it: every list, filter, search, object page, action and export
  at once.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable

from django.conf import settings
from django.contrib import admin
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext_lazy as _

from approvals.services import password_must_change
from stalwart_site.embed import CSP as CSP_TEMPLATE
from stalwart_site.errors import DETAIL_TOO_LARGE, error_response
from stalwart_site.parsers import lone_surrogate
from threads.errors import TooLarge

REQUEST_ID_HEADER = "X-Request-Id"
DETAIL_BAD_ADDRESS = _("This address holds a character that cannot be looked up (a NUL or a lone surrogate): "
                       "nothing was read or changed.")
DETAIL_BAD_HEADER = _("A request header holds text that is not valid Unicode (a lone surrogate).")

# Strict: nothing inline, nothing from another origin. The chat page, the
# pairing page, the admin and Swagger UI (its initialiser served as a file)
# all live with it.
# The one policy, the chat's (stalwart_site.embed): every HTML page gets it
# with no framing; `/` itself lets the embedding origins frame it.
CSP = CSP_TEMPLATE.format(ancestors="'none'")


class RequestIdMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request.request_id = uuid.uuid4().hex  # type: ignore[attr-defined]
        if any(isinstance(v, str) and lone_surrogate(v) for k, v in request.META.items() if k.startswith("HTTP_")):
            response: HttpResponse = JsonResponse({"error": "bad_request", "detail": str(DETAIL_BAD_HEADER)}, status=400)
        else:
            response = self.get_response(request)
        response[REQUEST_ID_HEADER] = request.request_id  # type: ignore[attr-defined]
        return response


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


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.get("Content-Type", "").startswith("text/html"):
            response.headers.setdefault("Content-Security-Policy", CSP)
        return response


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
        if path.startswith(self.ALLOWED[0]):  # the form says why it appeared, and which old password to type
            request.one_time_password = password_must_change(request.user)  # type: ignore[attr-defined]
        return self.get_response(request)


class ConsoleAddressMiddleware:
    """The console's addresses refuse what no lookup can take, in one place (docs/operating.md)."""

    PREFIX = "/admin/"

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path.startswith(self.PREFIX) and not self.readable(request):
            return render(request, "admin/bad_address.html", {
                **admin.site.each_context(request), "title": _("Bad address"), "detail": DETAIL_BAD_ADDRESS},
                status=400)
        return self.get_response(request)

    @staticmethod
    def readable(request: HttpRequest) -> bool:
        """The path, the query and a posted form (an action's chosen rows: ``_selected_action``)."""
        texts = [request.path]
        for form in (request.GET, request.POST if request.method == "POST" else None):
            for name, values in form.lists() if form is not None else ():
                texts.extend([name, *values])
        return not any("\x00" in text or lone_surrogate(text) for text in texts)
