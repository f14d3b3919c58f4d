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
    detail = _("You may not do this.")


class Unauthorized(StalwartError):
    code = "unauthorized"
    http_status = 401


class TooLarge(StalwartError):
    code = "too_large"
    http_status = 413
