"""Errors of the answering side (SPEC §7.2, §10, §11)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from threads.errors import StalwartError


class Stale(StalwartError):
    code = "interrupt_stale"
    http_status = 409
    detail = _("That pause is no longer open, or the answer does not match what was shown.")


class InvalidDecision(StalwartError):
    code = "invalid_decision"
    http_status = 422


class InvalidAnswer(StalwartError):
    code = "invalid_answer"
    http_status = 422


class SignatureInvalid(StalwartError):
    code = "signature_invalid"
    http_status = 401
