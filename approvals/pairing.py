"""``--dev-pair`` codes: made, claimed, and guarded against guessing.

A code is six digits, kept only as a hash, valid for ``PAIR_MINUTES`` and for
one use (claimed by a conditional UPDATE, like a pause). A million codes and
ten minutes would fall to a guesser at a few hundred tries a second, so wrong
codes are counted in the database (every worker sees the same count): at most
``PER_CLIENT`` wrong codes a minute from one client address and ``PER_WINDOW``
a minute from all clients together, counted since the newest code was made
(its window); past that, every
try, the right code included, is refused with a ``Retry-After`` until the
oldest counted failure is a minute old. At ten a minute the ten-minute window
gives a guesser one chance in ten thousand.
"""

from __future__ import annotations

import hashlib
import math
import secrets
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from approvals.models import PairingCode, PairingFailure

PAIR_MINUTES = 10
PER_CLIENT = 5
PER_WINDOW = 10
WINDOW = timedelta(minutes=1)


def _hash(code: str) -> str:
    return hashlib.sha256(code.strip().encode()).hexdigest()


@transaction.atomic
def pairing_code_create() -> str:
    code = f"{secrets.randbelow(10**6):06d}"
    PairingCode.objects.create(code_hash=_hash(code), expires_at=timezone.now() + timedelta(minutes=PAIR_MINUTES))
    return code


@transaction.atomic
def pairing_code_claim(*, code: str) -> bool:
    """True for the one try that uses a valid, unused, unexpired code."""
    if not (code.strip().isascii() and code.strip().isdigit() and len(code.strip()) == 6):
        return False
    now = timezone.now()
    return bool(
        PairingCode.objects.filter(code_hash=_hash(code), used_at__isnull=True, expires_at__gt=now).update(used_at=now)
    )


def pairing_retry_after(*, client: str) -> int:
    """Seconds this client must wait before its next try; 0 when it may try now."""
    now = timezone.now()
    since = now - WINDOW
    # A new code (a new `--dev-pair` start) opens a new window: failures against an older code no longer count.
    newest = PairingCode.objects.order_by("-created_at").values_list("created_at", flat=True).first()
    if newest is not None and newest > since:
        since = newest
    recent = PairingFailure.objects.filter(created_at__gt=since)
    waits = []
    for queryset, limit in ((recent.filter(client=client), PER_CLIENT), (recent, PER_WINDOW)):
        stamps = list(queryset.order_by("-created_at").values_list("created_at", flat=True)[:limit])
        if len(stamps) >= limit:
            # The try becomes possible again when the limit-th newest failure leaves the window.
            waits.append(math.ceil((stamps[-1] + WINDOW - now).total_seconds()))
    return max([1, *waits]) if waits else 0


@transaction.atomic
def pairing_failure_record(*, client: str) -> None:
    now = timezone.now()
    PairingFailure.objects.filter(created_at__lt=now - timedelta(minutes=PAIR_MINUTES)).delete()
    PairingFailure.objects.create(client=client[:64])
