"""Errors of the signed channel (docs/http-api.md, "Signed resumes"); the
answer's own (stale, invalid decision or answer) are the engine's, in
``threads.errors``."""

from __future__ import annotations

from threads.errors import StalwartError


class SignatureInvalid(StalwartError):
    code = "signature_invalid"
    http_status = 401
