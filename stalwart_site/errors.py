"""One renderer for SPEC §10's ``{"error", "detail"}``.

The hierarchy itself lives where it is raised (``threads.errors``,
``approvals.errors``); every application error carries a ``code``, an
``http_status`` and a sentence. DRF's own exceptions (parse errors, 404s) are
mapped onto the same shape; anything else stays a 500 and is logged.
"""

from __future__ import annotations

import logging
from typing import Any

from django.http import Http404, JsonResponse
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions as drf
from rest_framework.response import Response

from threads.errors import DETAIL_NOT_FOUND, StalwartError

log = logging.getLogger("stalwart")

DETAIL_BAD_JSON = _("The body is not valid JSON.")
DETAIL_TOO_LARGE = _("The body is larger than this server takes ({limit} bytes).")
DETAIL_METHOD = _("This route does not take {method}.")


def error_response(err: StalwartError) -> JsonResponse:
    return JsonResponse(err.body(), status=err.http_status)


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, StalwartError):
        return Response(exc.body(), status=exc.http_status)
    if isinstance(exc, drf.ParseError):
        return Response({"error": "bad_request", "detail": DETAIL_BAD_JSON}, status=400)
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
    return None  # a 500, logged by Django


def _first_message(detail: Any, prefix: str = "") -> str:
    if isinstance(detail, dict):
        for key, value in detail.items():
            name = "" if key == "non_field_errors" else f"{prefix}{key}"
            return _first_message(value, f"{name}: " if name else "")
    if isinstance(detail, list) and detail:
        return _first_message(detail[0], prefix)
    return f"{prefix}{detail}"
