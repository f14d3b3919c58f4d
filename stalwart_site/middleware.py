"""A body size limit that answers ``413 too_large`` as JSON (SPEC §10).

Django's own ``DATA_UPLOAD_MAX_MEMORY_SIZE`` only trips when the body is
read, and then as a 400; a declared Content-Length over the limit is refused
here before anything reads it.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from stalwart_site.errors import DETAIL_TOO_LARGE, error_response
from threads.errors import TooLarge


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
