"""The application's error hierarchy, at the lowest layer that raises it.

Every application error carries a ``code``, an ``http_status`` and a sentence;
``stalwart_site.errors.exception_handler`` renders any of them as the HTTP
API's ``{"error": <code>, "detail": <sentence>}`` (docs/http-api.md,
"Errors"). The answering side's own (stale, invalid decision or answer) are
here, since the engine answers pauses; ``approvals.errors`` adds the signed
channel's.
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


DETAIL_TOO_MANY_TRIES = _("Too many wrong tries from this address. Try again in {seconds} seconds.")


class TooManyTries(StalwartError):
    """A client past a limit on wrong guesses (``threads.limits``): 429 with ``Retry-After``."""

    code = "too_many_tries"
    http_status = 429

    def __init__(self, seconds: int) -> None:
        super().__init__(DETAIL_TOO_MANY_TRIES.format(seconds=seconds))
        self.headers = {"Retry-After": str(seconds)}


class TooLarge(StalwartError):
    code = "too_large"
    http_status = 413


DETAIL_CONTEXT_INVALID = _("The Stalwart-Context token is not valid.")


class ContextInvalid(Unauthorized):
    """A ``Stalwart-Context`` that is missing its signature, expired or malformed:
    one code and one sentence for all (the log says which)."""

    code = "context_invalid"
    detail = DETAIL_CONTEXT_INVALID


class IdempotencyInProgress(StalwartError):
    code = "idempotency_in_progress"
    http_status = 409
    detail = _("A request with this Idempotency-Key is still being answered; retry it in a moment.")


class IdempotencyMismatch(StalwartError):
    code = "idempotency_mismatch"
    http_status = 422
    detail = _("This Idempotency-Key was used with another request; use a new key for a new message.")


class Stale(StalwartError):
    """An answer to a pause that is no longer open, with another token, or
    that lost the claim to another answer (docs/http-api.md, "409 interrupt_stale")."""

    code = "interrupt_stale"
    http_status = 409
    detail = _("That pause is no longer open, or the answer does not match what was shown.")


class InvalidDecision(StalwartError):
    code = "invalid_decision"
    http_status = 422


class InvalidAnswer(StalwartError):
    code = "invalid_answer"
    http_status = 422


class NotAnApprover(StalwartError):
    """An answer to a pause under a policy from someone the policy does not
    let answer it: outside its staff group, or the one who proposed the call
    (docs/policies.md). Nothing changes."""

    code = "not_an_approver"
    http_status = 403
    detail = _("You are not one of the approvers this call needs.")


class ApprovalRecorded(StalwartError):
    """An approval short of the quorum a policy asks for: recorded, and the
    pause stays open for the others (docs/policies.md). Not a failure: HTTP
    answers it ``202`` with ``{"status": "approval_recorded", "approvals"}``;
    raised after the answer's unit committed the approval."""

    code = "approval_recorded"
    http_status = 202
    detail = _("Your approval is recorded; the call waits for the other approvals it needs.")

    def __init__(self, approvals: dict[str, Any], interrupt: str) -> None:
        super().__init__(approvals=approvals, interrupt_id=interrupt)
        self.approvals, self.interrupt = approvals, interrupt

    def body(self) -> dict[str, Any]:
        return {"status": "approval_recorded", "detail": str(self.detail), "interrupt_id": self.interrupt,
                "approvals": self.approvals}


class PausesPending(StalwartError):
    """New input while pauses of the thread wait, where the door takes none
    until they are answered (AG-UI's rule): refused under the thread's lock,
    so of two at once one runs and the other is told this."""

    code = "pending_interrupts"
    http_status = 409
    detail = _("Calls in this thread wait for an answer: answer each of them before writing a new message.")


class CallRefused(StalwartError):
    """A proposed call refused before anything is stored: a tool the catalogue
    does not list, or arguments that cannot be stored, are not ones its schema
    names, or do not fit it. ``rule`` is the check's (``unknown_tool``,
    ``arguments``), the detail its sentence."""

    code = "call_refused"
    http_status = 422

    def __init__(self, rule: str, sentence: str) -> None:
        super().__init__(sentence, rule=rule)
        self.rule = rule


DETAIL_NOT_STORABLE = _("The thread's id, the context or the text holds a NUL character, a lone surrogate, NaN or "
                        "Infinity, or nests too deep: it cannot be stored.")
DETAIL_THREAD_TOO_LONG = _("A thread's id is at most 128 characters.")
