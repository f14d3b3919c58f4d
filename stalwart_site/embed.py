"""Embedding the web components on a shop's own site (docs/widget.md, "The snippet a shop pastes").

``STALWART_EMBED_ORIGINS`` (settings, from the environment) names the origins
that may load the widget's module, call the API with CORS and frame ``/``;
with none, nothing outside this origin is allowed. Three places carry it:

- django-cors-headers' ``CorsMiddleware`` (the settings' embedding block) for
  the API routes;
- ``EmbeddableStaticFilesHandler`` for the static files, which the app serves
  itself ahead of every middleware (a module script loaded from another origin
  is fetched in CORS mode, so without the grant it never runs);
- ``chat_headers`` for ``/``: CSP ``frame-ancestors`` lists them, and then
  ``X-Frame-Options`` (which cannot list origins) is left off that page.
"""

from __future__ import annotations

import logging
from typing import Any

from corsheaders.middleware import CorsMiddleware
from django.conf import settings
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
from django.core.exceptions import SuspiciousFileOperation
from django.http import Http404, HttpRequest, HttpResponse

from stalwart_site.errors import security_headers

security = logging.getLogger("stalwart.security")

# The modules the entry module imports, for <link rel="modulepreload"> on `/`.
WIDGET_MODULES = [
    "stalwart/base.js",
    "stalwart/styles.js",
    "stalwart/lib/strings.js",
    "stalwart/strings.en.js",
    "stalwart/strings.pt-BR.js",
    "stalwart/lib/words.js",
    "stalwart/lib/wire.js",
    "stalwart/lib/sse.js",
    "stalwart/stalwart-chat.js",
    "stalwart/stalwart-confirm.js",
    "stalwart/stalwart-decision.js",
    "stalwart/stalwart-rollback.js",
    "stalwart/stalwart-trace.js",
]

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors {ancestors}; "
    "form-action 'self'"
)


def embed_origins() -> list[str]:
    return list(getattr(settings, "STALWART_EMBED_ORIGINS", []) or [])


def chat_headers(response: HttpResponse) -> HttpResponse:
    """The chat page's CSP; framing only by the embedding origins."""
    origins = embed_origins()
    response["Content-Security-Policy"] = CSP.format(ancestors=" ".join(origins) if origins else "'none'")
    if origins:
        response.xframe_options_exempt = True  # type: ignore[attr-defined]
    return response


def _no_view(request: HttpRequest) -> HttpResponse:  # CorsMiddleware's get_response, never called
    raise AssertionError("only check_preflight and add_response_headers are used")


class EmbeddableStaticFilesHandler(ASGIStaticFilesHandler):
    """The app's own static files, with the same CORS grant as the API, and
    the security headers the middleware (which does not run here) gives every
    other answer.

    A path that leaves the static folder (``/static/%2e%2e/x``: daphne
    decodes it to ``..``) makes Django's finders raise
    ``SuspiciousFileOperation``, which its handler does not catch (it only
    turns ``Http404`` into an answer), so daphne answered an HTML 500. There
    is nothing there to serve: it is the JSON 404 of any missing file."""

    def serve(self, request: HttpRequest) -> Any:
        try:
            return super().serve(request)
        except SuspiciousFileOperation as exc:
            security.warning("a static path outside the static folder: %r (from %s)", request.path,
                             request.META.get("REMOTE_ADDR"))
            raise Http404 from exc

    async def get_response_async(self, request: HttpRequest) -> Any:
        cors = CorsMiddleware(_no_view)
        response = cors.check_preflight(request) or await super().get_response_async(request)
        for name, value in security_headers():
            response.headers.setdefault(name, value)
        return cors.add_response_headers(request, response)
