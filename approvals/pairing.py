"""``--dev-pair`` codes: made, claimed, and guarded against guessing.

A code is six digits, kept only as a hash, valid for ``PAIR_MINUTES`` and for
one use (claimed by a conditional UPDATE, like a pause). A million codes and
ten minutes would fall to a guesser at a few hundred tries a second, so wrong
codes are counted in the database by ``threads.limits`` (every worker sees the
same count): at most ``PER_CLIENT`` wrong codes a minute from one client
address, counted since the newest code was made (its window); past that,
every try from that address, the right code included, is refused with a
``Retry-After`` until the oldest counted failure is a minute old. The limit
is per address only (issue 26): a limit for all clients together let ten
wrong codes from anyone keep the operator out for the code's whole life.
At five a minute one address has one chance in twenty thousand in a code's
ten minutes; a guesser needs many addresses to do better, and ``--dev-pair``
is for one's own machine.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from approvals.models import PairingCode
from threads.limits import Limit, guess_record, guesses_wait

PAIR_MINUTES = 10
PER_CLIENT = 5
WINDOW = timedelta(minutes=1)
LIMIT = Limit(scope="pairing", per_client=PER_CLIENT, window=WINDOW, keep=timedelta(minutes=PAIR_MINUTES))


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
    # A new code (a new `--dev-pair` start) opens a new window: failures against an older code no longer count.
    newest = PairingCode.objects.order_by("-created_at").values_list("created_at", flat=True).first()
    return guesses_wait(limit=LIMIT, client=client, since=newest)


def pairing_failure_record(*, client: str) -> None:
    guess_record(limit=LIMIT, client=client)
