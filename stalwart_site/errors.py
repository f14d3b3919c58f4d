"""One error hierarchy and one renderer for SPEC §10's ``{"error", "detail"}``.

Every application error carries a ``code``, an ``http_status`` and a sentence.
DRF's own exceptions (parse errors, 404s) are mapped onto the same shape;
anything else stays a 500 and is logged.
"""

from __future__ import annotations

import logging
from typing import Any

from django.http import Http404, JsonResponse
from rest_framework import exceptions as drf
from rest_framework.response import Response

log = logging.getLogger("stalwart")

DETAIL_BAD_JSON = "The body is not valid JSON."
DETAIL_NOT_FOUND = "There is nothing here."
DETAIL_TOO_LARGE = "The body is larger than this server takes ({limit} bytes)."
DETAIL_METHOD = "This route does not take {method}."


class StalwartError(Exception):
    code = "bad_request"
    http_status = 400
    detail = "The request is not valid."

    def __init__(self, detail: str | None = None, **extra: Any) -> None:
        super().__init__(detail or self.detail)
        self.detail = detail or self.detail
        self.extra = extra

    def body(self) -> dict[str, Any]:
        return {"error": self.code, "detail": self.detail, **self.extra}


class BadRequest(StalwartError):
    pass


class NotFound(StalwartError):
    code = "not_found"
    http_status = 404
    detail = DETAIL_NOT_FOUND


class Forbidden(StalwartError):
    code = "forbidden"
    http_status = 403
    detail = "You may not do this."


class Unauthorized(StalwartError):
    code = "unauthorized"
    http_status = 401


class SignatureInvalid(StalwartError):
    code = "signature_invalid"
    http_status = 401


class TooLarge(StalwartError):
    code = "too_large"
    http_status = 413


class Stale(StalwartError):
    code = "interrupt_stale"
    http_status = 409
    detail = "That pause is no longer open, or the answer does not match what was shown."


class InvalidDecision(StalwartError):
    code = "invalid_decision"
    http_status = 422


class InvalidAnswer(StalwartError):
    code = "invalid_answer"
    http_status = 422


def error_response(err: StalwartError) -> JsonResponse:
    return JsonResponse(err.body(), status=err.http_status)


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, StalwartError):
        return Response(exc.body(), status=exc.http_status)
    if isinstance(exc, drf.ParseError):
        return Response({"error": "bad_request", "detail": DETAIL_BAD_JSON}, status=400)
    if isinstance(exc, drf.UnsupportedMediaType):
        return Response({"error": "bad_request", "detail": "Send the body as application/json."}, status=415)
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
