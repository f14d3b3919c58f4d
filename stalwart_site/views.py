"""The site's own pages: the chat at ``/``, and the OpenAPI document and its
browsable page (drf-spectacular's views, with their errors in JSON)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.cache import patch_vary_headers
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from catalogue import registry
from stalwart_site.embed import WIDGET_MODULES, chat_headers

# The chat page's language switch: ``/?language=pt-BR`` sets the widget's
# ``language`` (its words, and the language sent with each turn), kept in a
# cookie that lasts the browser's session. Each language is named in itself.
LANGUAGE_COOKIE = "stalwart_chat_language"
LANGUAGE_NAMES = {"en": "English", "pt-BR": "Português"}


def browser_language(header: str) -> str:
    """The first language of an ``Accept-Language`` header the chat speaks (``pt-BR`` for any
    ``pt``, ``en`` for any ``en``), by its q-values; ``""`` when it names neither, or is not one."""
    ranked: list[tuple[float, int, str]] = []
    for index, item in enumerate(header[:1000].split(",")):
        tag, _, params = item.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if quality > 0 and tag:
            ranked.append((-quality, index, tag.strip().lower()))
    for _, _, tag in sorted(ranked):
        primary = tag.split("-")[0]
        if primary == "pt":
            return "pt-BR"
        if primary == "en":
            return "en"
    return ""


def chat_view(request: HttpRequest) -> HttpResponse:
    # The policy every HTML page gets (ContentSecurityPolicyMiddleware), with framing by the embed origins.
    agent = registry.get_agent()
    asked = request.GET.get("language", "")
    kept = request.COOKIES.get(LANGUAGE_COOKIE, "")
    chosen = asked if asked in LANGUAGE_NAMES else kept if kept in LANGUAGE_NAMES else ""
    # The switch (or its cookie) first. An agent that reads Portuguese speaks it to every browser (the
    # widget's pt-BR table is the one it ships with, docs/widget.md); an English one speaks the browser's
    # Accept-Language, then its own.
    own = registry.choose_language(agent)
    browser = browser_language(request.headers.get("Accept-Language", ""))
    language = chosen or (own if own == "pt-BR" else browser or own)
    response = render(request, "chat.html", {
        "agent": agent, "language": language, "django_language": language.lower(), "modules": WIDGET_MODULES,
        "languages": [{"code": code, "name": name, "current": code == language}
                      for code, name in LANGUAGE_NAMES.items()],
    })
    if asked in LANGUAGE_NAMES and asked != kept:
        # No max_age: a session cookie, forgotten when the browser closes.
        response.set_cookie(LANGUAGE_COOKIE, asked, samesite="Lax", httponly=True, secure=request.is_secure())
    patch_vary_headers(response, ("Accept-Language", "Cookie"))  # the page's words depend on both
    return chat_headers(response)


class JSONErrorsMixin:
    """A view whose answers are not JSON (YAML, HTML) that still answers its
    errors in the API's JSON (docs/http-api.md, "Errors").

    DRF renders an error with the renderer the request negotiated, or, when
    negotiation itself failed (``?format=xml``: 404; an ``Accept`` nothing
    matches: 406), with the view's first renderer. For the schema view that is
    YAML, which cannot represent the error's lazily translated sentence, so
    ``/api/schema/?format=xml`` was a 500; the Swagger page answered HTML."""

    def finalize_response(self, request: Request, response: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(response, Response) and getattr(response, "exception", False):
            request.accepted_renderer = JSONRenderer()
            request.accepted_media_type = JSONRenderer.media_type
        return super().finalize_response(request, response, *args, **kwargs)  # type: ignore[misc]


class SchemaApi(JSONErrorsMixin, SpectacularAPIView):
    """``GET /api/schema/``: the OpenAPI 3.1 document (YAML; JSON with ``?format=json``)."""


class SchemaDocsView(JSONErrorsMixin, SpectacularSwaggerSplitView):
    """``GET /api/docs/``: Swagger UI over the document, its assets served locally."""


FAVICON = Path(__file__).resolve().parent.parent / "static" / "stalwart" / "favicon.svg"


def favicon_view(request: HttpRequest) -> HttpResponse:
    """``/favicon.ico``, which browsers ask for on every page without an icon of its own (the console's): an SVG."""
    response = HttpResponse(FAVICON.read_bytes(), content_type="image/svg+xml")
    response["Cache-Control"] = "public, max-age=86400"
    return response
