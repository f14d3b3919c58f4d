"""``/pair/``: a browser signs in as the local operator with a ``--dev-pair``
code (``approvals.pairing`` makes, claims and rate-limits the codes)."""

from __future__ import annotations

import logging

from django.conf import settings
from django.contrib import admin
from django.contrib.auth import login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy
from django.views.decorators.http import require_http_methods

from approvals.pairing import PAIR_MINUTES, pairing_code_claim, pairing_failure_record, pairing_retry_after
from approvals.services import operator_local_sign_in_user
from threads.limits import request_client

__all__ = ["PAIR_MINUTES", "pair_view"]

security = logging.getLogger("stalwart.security")
LOCAL_STAFF = "local-staff"
DETAIL_BAD_CODE = _("That code is not valid (codes work once, for ten minutes).")
DETAIL_TOO_MANY = ngettext_lazy("Too many wrong codes. Try again in %(seconds)d second.",
                                "Too many wrong codes. Try again in %(seconds)d seconds.", "seconds")


def _page(request: HttpRequest, error: str, status: int = 200) -> HttpResponse:
    return render(request, "approvals/pair.html", {
        **admin.site.each_context(request), "title": _("Pair this browser"), "error": error}, status=status)


@require_http_methods(["GET", "POST"])
def pair_view(request: HttpRequest) -> HttpResponse:
    if not settings.STALWART_DEV_PAIR:
        # Served only by `stalwart serve --dev-pair`: anywhere else there is no such page.
        raise Http404
    if request.method != "POST":
        return _page(request, "")
    client = request_client(request)
    wait = pairing_retry_after(client=client)
    if wait:
        # Refused unread, the right code too: otherwise the limit would only slow a guesser down.
        security.warning("pairing tries from %s refused for %s s (too many wrong codes)", client, wait)
        response = _page(request, DETAIL_TOO_MANY % {"seconds": wait}, status=429)
        response["Retry-After"] = str(wait)
        return response
    if pairing_code_claim(code=str(request.POST.get("code", ""))):
        user = operator_local_sign_in_user(username=LOCAL_STAFF)
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect("/admin/")
    pairing_failure_record(client=client)
    security.warning("a wrong or used pairing code was entered (from %s)", client)
    return _page(request, str(DETAIL_BAD_CODE), status=400)
