"""``Idempotency-Key`` on ``POST /threads/{id}/messages`` (the IETF httpapi
draft's semantics), so a client that lost a reply can send the turn again.

A key is kept per session for ``KEEP`` (24 hours). The first request with a
key inserts its row as ``running`` (the unique constraint on session and key
is the claim: of two requests at once on any workers, one inserts, the other
finds the row); when it has answered, the row keeps that answer (status and
body) and becomes ``done``. A later request with the same key then:

- with the same fingerprint (thread id plus canonical body) gets the first
  answer again, whatever happened since, and starts nothing;
- with another fingerprint is ``422 idempotency_mismatch``;
- while the first is still ``running`` is ``409 idempotency_in_progress``.

An answer that failed unexpectedly (a 500) is not kept: the row is removed so
the client may retry. A process that dies mid-request leaves its row
``running`` (409) until the key ages out: whether its run started is not
known, and a second run is the one thing a key must never cause.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from threads.errors import BadRequest, IdempotencyInProgress, IdempotencyMismatch, StalwartError
from threads.models import IdempotencyKey
from threads.tokens import canonical

HEADER = "Idempotency-Key"
KEEP = timedelta(hours=24)
MAX_KEY = 255
DETAIL_BAD_KEY = _("An Idempotency-Key is 1 to 255 visible ASCII characters (optionally in double quotes).")


@dataclass(frozen=True)
class Replay:
    status: int
    body: Any
    replayed: bool = True


def key_of(value: str | None) -> str | None:
    """The key a header carries (a structured-field string or a bare token), or None without one."""
    if value is None:
        return None
    key = value[1:-1] if len(value) >= 2 and value[0] == value[-1] == '"' else value
    if not (0 < len(key) <= MAX_KEY and key.isascii() and key.isprintable() and key.strip() == key):
        raise BadRequest(DETAIL_BAD_KEY)
    return key


def fingerprint(thread_id: str, body: Any) -> str:
    return hashlib.sha256(canonical([thread_id, body]).encode()).hexdigest()


@transaction.atomic
def idempotency_begin(*, session_hash: str, key: str, fingerprint: str) -> Replay | None:
    """None when this request is the first with its key (and now holds it);
    the kept answer when it is a retry; raises 409 or 422 otherwise."""
    mine = IdempotencyKey.objects.filter(session_hash=session_hash, key=key)
    mine.filter(created_at__lt=timezone.now() - KEEP).delete()
    try:
        with transaction.atomic():
            IdempotencyKey.objects.create(session_hash=session_hash, key=key, fingerprint=fingerprint)
            return None
    except IntegrityError:
        pass
    row = mine.get()
    if row.fingerprint != fingerprint:
        raise IdempotencyMismatch()
    if row.status == IdempotencyKey.Status.RUNNING:
        raise IdempotencyInProgress()
    return Replay(status=int(row.response_status or 200), body=row.response_body)


@transaction.atomic
def idempotency_finish(*, session_hash: str, key: str, status: int, body: Any) -> None:
    row = IdempotencyKey.objects.select_for_update().get(session_hash=session_hash, key=key)
    row.status = IdempotencyKey.Status.DONE
    row.response_status = status
    row.response_body = body
    row.save(update_fields=["status", "response_status", "response_body", "updated_at"])


@transaction.atomic
def idempotency_abandon(*, session_hash: str, key: str) -> None:
    IdempotencyKey.objects.filter(session_hash=session_hash, key=key, status=IdempotencyKey.Status.RUNNING).delete()


def answer_once(*, session_hash: str, key: str, fingerprint: str, answer: Callable[[], Any]) -> Replay:
    """``answer()`` run at most once per (session, key): the first call runs it
    and keeps its answer (a 200, or the application error it raised); a retry
    gets that answer again (``replayed``); a 500 keeps nothing."""
    held = {"session_hash": session_hash, "key": key}
    kept = idempotency_begin(**held, fingerprint=fingerprint)
    if kept is not None:
        return kept
    try:
        body = answer()
    except StalwartError as exc:  # the turn's own 4xx is its answer too
        idempotency_finish(**held, status=exc.http_status, body=exc.body())
        return Replay(status=exc.http_status, body=exc.body(), replayed=False)
    except BaseException:
        idempotency_abandon(**held)
        raise
    idempotency_finish(**held, status=200, body=body)
    return Replay(status=200, body=body, replayed=False)
