"""A pause's status page for the person who asked (docs/mcp.md, "While a write waits").

``GET /pauses/<id>/<mac>/``: what waits, who must answer it, and what became
of it once answered, readable without a staff account by whoever holds the
address (an MCP client's URL elicitation sends its person there). The
address is unguessable: ``mac`` is an HMAC of the pause id under the
server's ``SECRET_KEY`` (its own salt, so it is no pause token), compared in
constant time; a wrong one is the same 404 as a pause that does not exist.
The page answers nothing: staff answer in the console, which it links to.
While the pause is open the page reloads itself every few seconds.
"""

from __future__ import annotations

import hmac
from typing import Any

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import translation
from django.utils.crypto import salted_hmac
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET

from approvals.words import origin_words
from threads.engine import pause_read, run_read
from threads.errors import NotFound
from threads.models import Interrupt

SALT = "stalwart.pause-status"
REFRESH_SECONDS = 5
LANGUAGES = {"en": "English", "pt-br": "Português (Brasil)"}

HEADLINES = {
    "waiting": _("Waiting for a person's approval"),
    "running": _("Approved: it is being done"),
    "done": _("Approved: it was done"),
    "skipped": _("Not done: a person decided to skip it"),
    "cancelled": _("Not done: it was cancelled"),
    "refused": _("Not done: it was refused"),
    "failed": _("Approved, but it failed"),
    "undone": _("It was done, and undone since"),
    "outcome_unknown": _("It may or may not have been done: a person is checking"),
    "saga_stuck": _("Undoing it is stuck: a person decides what to do"),
    "timed_out": _("Not done: no one answered in time"),
}
WHO = _("A staff member answers it in the console of this service. You do not need to do anything here: "
        "this page shows what becomes of it.")


def status_mac(pause_id: str) -> str:
    return salted_hmac(SALT, pause_id, algorithm="sha256").hexdigest()[:32]


def status_path(pause_id: str) -> str:
    return f"/pauses/{pause_id}/{status_mac(pause_id)}/"


def status_url(pause_id: str, base: str = "") -> str:
    """The pause's status page, absolute when the public URL (or ``base``) is known."""
    return f"{(settings.PUBLIC_URL or base).rstrip('/')}{status_path(pause_id)}"


def _language(request: HttpRequest) -> str:
    asked = request.GET.get("language", "").lower()
    if asked in LANGUAGES:
        return asked
    return translation.get_language_from_request(request) or settings.LANGUAGE_CODE


def _state(pause: Any) -> str:
    """The page's headline key: what became of the pause's call."""
    if pause.status == "timed_out":
        return "timed_out"
    try:
        outcome = run_read(pause.run).outcome(pause.step or 1)
    except NotFound:  # the run was deleted since: say what the pause says
        return "waiting" if pause.status == "open" else "cancelled"
    return outcome.status if outcome.status in HEADLINES else "waiting"


@require_GET
def pause_status_view(request: HttpRequest, pause_id: str, mac: str) -> HttpResponse:
    if len(pause_id) > 64 or not hmac.compare_digest(mac.encode(), status_mac(pause_id).encode()):
        raise Http404
    pause = pause_read(pause_id)
    if pause is None:
        raise Http404
    language = _language(request)
    # The MCP client that proposed the call (its key's name, or "local"), named beside the values it wrote.
    payload = Interrupt.objects.filter(id=pause.id).values_list("payload", flat=True).first() or {}
    proposer = payload.get("proposer") if isinstance(payload, dict) else None
    client = str(proposer.get("name") or "") if isinstance(proposer, dict) and proposer.get("door") == "mcp" else ""
    with translation.override(language):
        state = _state(pause)
        response = render(request, "approvals/status.html", {
            "pause": pause, "state": state, "headline": HEADLINES[state], "who": WHO,
            "open": state in ("waiting", "running", "outcome_unknown", "saga_stuck"),
            "refresh": REFRESH_SECONDS, "language": language,
            "arguments": [{"name": a["name"].replace("_", " "), "value": a.get("value"),
                           "origin": origin_words(str(a.get("origin") or ""), client=client)}
                          for a in pause.arguments],
            "console": f"/admin/threads/interrupt/{pause.id}/change/",
            "languages": [{"code": code, "name": name, "current": code == language}
                          for code, name in LANGUAGES.items()],
        })
    response["Cache-Control"] = "no-store"
    response["Referrer-Policy"] = "no-referrer"
    response["X-Robots-Tag"] = "noindex"
    response["Content-Language"] = language
    return response
