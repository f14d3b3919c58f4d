"""Reads: the only way a view, consumer or admin gets a thread, and the
request's session and context."""

from __future__ import annotations

import hashlib
import logging
import re
import secrets
from typing import Any

from django.conf import settings
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from threads.context import HEADER as CONTEXT_HEADER
from threads.context import ContextTokenError, context_read
from threads.errors import BadRequest, ContextInvalid, NotFound
from threads.keys import KEY_RE, NAME_RE, thread_key
from threads.models import Thread

security = logging.getLogger("stalwart.security")
log = logging.getLogger("stalwart")

DETAIL_BODY_CONTEXT = _("This server takes context only from the signed Stalwart-Context header, "
                        "never from the body.")
# Seconds of clock difference forgiven between the site that mints a token and this server.
CONTEXT_LEEWAY = 5

SESSION_HEADER = "Stalwart-Session"
_SESSION_RE = re.compile(r"^[A-Za-z0-9_-]{16,128}$")
THREAD_ID_RE = NAME_RE  # a thread's id as its client names it
THREAD_KEY_RE = KEY_RE  # its stored key, as staff, signed channels and webhooks name it


def session_of(request: HttpRequest) -> tuple[str, bool]:
    """The browser's session id from ``Stalwart-Session``, or a new one."""
    given = request.headers.get(SESSION_HEADER, "")
    if _SESSION_RE.match(given):
        return given, False
    return secrets.token_urlsafe(24), True


def session_valid(session: str) -> bool:
    return bool(_SESSION_RE.match(session))


def session_hash(session: str) -> str:
    return hashlib.sha256(session.encode()).hexdigest()


def thread_access(*, thread_id: str, session: str) -> Thread:
    """The session's thread of that name (its key combines the two, so
    another session's thread of the same name is never found): the same 404
    for a thread that does not exist and one that is another's."""
    if not session:
        raise NotFound()
    thread = Thread.objects.filter(pk=thread_key(thread_id, session_hash(session))).first()
    if thread is None or not secrets.compare_digest(thread.session_hash, session_hash(session)):
        raise NotFound()
    return thread


def thread_by_key(key: str) -> Thread:
    """A thread by its stored key (staff, signed channels, webhooks), else 404."""
    thread = Thread.objects.filter(pk=key).first() if KEY_RE.match(key) else None
    if thread is None:
        raise NotFound()
    return thread


def thread_access_or_staff(*, thread_id: str, session: str, staff: bool = False) -> Thread:
    """The session's thread of that name (``thread_access``); failing that,
    for staff, any thread by its stored key (the admin's thread page)."""
    if session and NAME_RE.match(thread_id):
        try:
            return thread_access(thread_id=thread_id, session=session)
        except NotFound:
            if not staff:
                raise
    if staff:
        return thread_by_key(thread_id)
    raise NotFound()


def context_of(request: HttpRequest, body_context: dict[str, Any] | None) -> tuple[dict[str, Any], list[str]]:
    """The request's context and privileges (docs/http-api.md, "Signed context (Stalwart-Context)").

    With ``STALWART_CONTEXT_SECRET`` set they come only from the signed
    ``Stalwart-Context`` header: a bad, expired or malformed token is
    ``401 context_invalid`` (one sentence; the log says which), a body
    ``context`` is ``400``. Without the secret (the demo) a body context is
    taken as unsigned: logged, and never a privilege.
    """
    secret = settings.STALWART_CONTEXT_SECRET
    header = request.headers.get(CONTEXT_HEADER)
    if not secret:
        if header is not None:
            security.warning("a %s header, but this server has no STALWART_CONTEXT_SECRET to check it",
                             CONTEXT_HEADER)
            raise ContextInvalid()
        if body_context:
            log.info("unsigned context from the request body (no STALWART_CONTEXT_SECRET): keys %s",
                     sorted(body_context))
        return dict(body_context or {}), []
    if body_context is not None:
        security.warning("a body context while STALWART_CONTEXT_SECRET is set: refused")
        raise BadRequest(DETAIL_BODY_CONTEXT)
    if header is None:
        return {}, []
    try:
        signed = context_read(header, secret, leeway=CONTEXT_LEEWAY)
    except ContextTokenError as exc:
        security.warning("a %s token refused: %s", CONTEXT_HEADER, exc.reason)
        raise ContextInvalid() from exc
    return dict(signed.ctx), list(signed.priv)
