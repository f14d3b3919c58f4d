"""One renderer for the HTTP API's ``{"error", "detail"}`` (docs/http-api.md, "Errors").

The hierarchy itself lives where it is raised (``threads.errors``,
``approvals.errors``); every application error carries a ``code``, an
``http_status`` and a sentence. DRF's own exceptions (parse errors, 404s) are
mapped onto the same shape. Anything else is a 500 in the same shape too,
``{"error": "internal", "detail", "request_id"}``, logged with the request id
(``stalwart_site.middleware.RequestIdMiddleware`` gives each request one and
echoes it as ``X-Request-Id``), so a person can quote the id and an operator
can find the traceback; an API route never answers with an HTML page.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import RequestDataTooBig
from django.http import Http404, HttpRequest, JsonResponse
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions as drf
from rest_framework.response import Response

from stalwart_site.parsers import DETAIL_BAD_JSON, BodyRefused
from threads.errors import DETAIL_NOT_FOUND, StalwartError

log = logging.getLogger("stalwart")

DETAIL_TOO_LARGE = _("The body is larger than this server takes ({limit} bytes).")
DETAIL_METHOD = _("This route does not take {method}.")
DETAIL_INTERNAL = _("Something went wrong on our side; nothing was lost. Quote the request id if you report it.")
DETAIL_BAD_REQUEST = _("The request is not valid.")


def security_headers() -> list[tuple[str, str]]:
    """The headers Django's security middleware gives an answer, from the same
    settings: for the answers made before that middleware runs (the static
    files, ``stalwart_site.guard``'s refusals)."""
    from django.conf import settings

    headers = [("X-Frame-Options", str(settings.X_FRAME_OPTIONS))]
    if settings.SECURE_CONTENT_TYPE_NOSNIFF:
        headers.append(("X-Content-Type-Options", "nosniff"))
    if settings.SECURE_REFERRER_POLICY:
        headers.append(("Referrer-Policy", str(settings.SECURE_REFERRER_POLICY)))
    if settings.SECURE_CROSS_ORIGIN_OPENER_POLICY:
        headers.append(("Cross-Origin-Opener-Policy", str(settings.SECURE_CROSS_ORIGIN_OPENER_POLICY)))
    if settings.SECURE_HSTS_SECONDS:  # a browser ignores it over plain HTTP (RFC 6797), so it may always go
        hsts = f"max-age={settings.SECURE_HSTS_SECONDS}"
        hsts += "; includeSubDomains" if settings.SECURE_HSTS_INCLUDE_SUBDOMAINS else ""
        hsts += "; preload" if settings.SECURE_HSTS_PRELOAD else ""
        headers.append(("Strict-Transport-Security", hsts))
    return headers


def error_response(err: StalwartError) -> JsonResponse:
    return JsonResponse(err.body(), status=err.http_status)


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, StalwartError):
        return Response(exc.body(), status=exc.http_status, headers=exc.headers or None)
    if isinstance(exc, BodyRefused):
        return Response({"error": "bad_request", "detail": str(exc.detail)}, status=400)
    if isinstance(exc, RequestDataTooBig):
        from django.conf import settings

        limit = settings.STALWART_MAX_BODY
        return Response({"error": "too_large", "detail": DETAIL_TOO_LARGE.format(limit=limit)}, status=413)
    if isinstance(exc, drf.ParseError):
        return Response({"error": "bad_request", "detail": str(DETAIL_BAD_JSON)}, status=400)
    if isinstance(exc, drf.UnsupportedMediaType):
        return Response({"error": "bad_request", "detail": _("Send the body as application/json.")}, status=415)
    if isinstance(exc, (Http404, drf.NotFound)):
        return Response({"error": "not_found", "detail": DETAIL_NOT_FOUND}, status=404)
    if isinstance(exc, drf.MethodNotAllowed):
        method = getattr(context.get("request"), "method", "")
        return Response({"error": "method_not_allowed", "detail": DETAIL_METHOD.format(method=method)}, status=405)
    if isinstance(exc, drf.ValidationError):
        return Response({"error": "bad_request", "detail": _first_message(exc.detail)}, status=400)
    if isinstance(exc, drf.APIException):
        return Response({"error": exc.default_code, "detail": str(exc.detail)}, status=exc.status_code)
    request = context.get("request")
    request_id = getattr(request, "request_id", "") if request is not None else ""
    log.error("internal error (request %s)", request_id, exc_info=exc)
    return Response(internal_body(request_id), status=500)


def internal_body(request_id: str) -> dict[str, Any]:
    return {"error": "internal", "detail": DETAIL_INTERNAL, "request_id": request_id}


# Django's own handlers (urls.py's handler400/403/404/500), for what fails
# outside a DRF view: middleware, the URL resolver, a SuspiciousOperation.
def bad_request_json(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    return JsonResponse({"error": "bad_request", "detail": DETAIL_BAD_REQUEST}, status=400)


def not_found_json(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    return JsonResponse({"error": "not_found", "detail": DETAIL_NOT_FOUND}, status=404)


def server_error_json(request: HttpRequest) -> JsonResponse:
    # Django has logged the traceback on django.request already; the id ties it to this answer.
    request_id = getattr(request, "request_id", "")
    log.error("internal error (request %s)", request_id)
    return JsonResponse(internal_body(request_id), status=500)


def _first_message(detail: Any, prefix: str = "") -> str:
    if isinstance(detail, dict):
        for key, value in detail.items():
            name = "" if key == "non_field_errors" else f"{prefix}{key}"
            return _first_message(value, f"{name}: " if name else "")
    if isinstance(detail, list) and detail:
        return _first_message(detail[0], prefix)
    return f"{prefix}{detail}"
