"""The application's error hierarchy, at the lowest layer that raises it.

Every application error carries a ``code``, an ``http_status`` and a
sentence; ``stalwart_site.errors.exception_handler`` renders any of them as
SPEC §10's ``{"error": <code>, "detail": <sentence>}``. ``approvals.errors``
adds the answering side's own (stale, invalid decision or answer, signature).
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _

DETAIL_NOT_FOUND = _("There is nothing here.")


class StalwartError(Exception):
    code = "bad_request"
    http_status = 400
    detail = _("The request is not valid.")
    headers: dict[str, str] = {}  # response headers it needs (401's WWW-Authenticate)

    def __init__(self, detail: str | None = None, **extra: Any) -> None:
        super().__init__(detail or self.detail)
        self.detail = detail or self.detail
        self.extra = extra

    def body(self) -> dict[str, Any]:
        # str(): a lazily translated sentence becomes text in the active language here.
        return {"error": self.code, "detail": str(self.detail), **self.extra}


class BadRequest(StalwartError):
    pass


class NotFound(StalwartError):
    code = "not_found"
    http_status = 404
    detail = DETAIL_NOT_FOUND


class Forbidden(StalwartError):
    code = "forbidden"
    http_status = 403
    detail = _("You may not do this.")


class Unauthorized(StalwartError):
    code = "unauthorized"
    http_status = 401


class OperatorUnauthorized(Unauthorized):
    headers = {"WWW-Authenticate": 'Bearer realm="stalwart"'}


class TooLarge(StalwartError):
    code = "too_large"
    http_status = 413


DETAIL_CONTEXT_INVALID = "The Stalwart-Context token is not valid."


class ContextInvalid(Unauthorized):
    """A ``Stalwart-Context`` that is missing its signature, expired or malformed:
    one code and one sentence for all (the log says which)."""

    code = "context_invalid"
    detail = DETAIL_CONTEXT_INVALID


class IdempotencyInProgress(StalwartError):
    code = "idempotency_in_progress"
    http_status = 409
    detail = "A request with this Idempotency-Key is still being answered; retry it in a moment."


class IdempotencyMismatch(StalwartError):
    code = "idempotency_mismatch"
    http_status = 422
    detail = "This Idempotency-Key was used with another request; use a new key for a new message."
