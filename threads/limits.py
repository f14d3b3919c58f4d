"""Wrong guesses of a secret, limited per client address (issue 26).

A ``Limit`` names what is guessed (its ``scope``: ``operator`` for the
rollback route's bearer, ``pairing`` for ``--dev-pair`` codes) and how many
wrong tries one client address may make in a ``window``. Each wrong try is a
``WrongGuess`` row, in the database rather than in Django's cache (whose
default is per process), so every worker counts the same tries; rows older
than ``keep`` are pruned on each insert. Past the limit, ``guesses_wait``
says how many seconds until the oldest counted try leaves the window, and
the caller refuses every try from that client (the right secret included,
else the limit would only slow a guesser down) with ``429`` and
``Retry-After``. Only the client that guessed is held: another address may
go on (issue 26: one client must not keep the operator out). The address is
the socket's peer, or the forwarded address when that peer is a proxy listed
in ``STALWART_TRUSTED_PROXIES`` (``threads.forwarded``).

Two workers may each let one try past the limit at the same moment (the
count and the insert are two statements); a few tries more a minute do not
change what a guesser can reach.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.http import HttpRequest
from django.utils import timezone

from threads.forwarded import Peer, peer_of
from threads.models import WrongGuess


@dataclass(frozen=True)
class Limit:
    scope: str
    per_client: int
    window: timedelta = timedelta(minutes=1)
    keep: timedelta = timedelta(minutes=10)


def request_peer(request: HttpRequest) -> Peer:
    """Who sent ``request``: its socket's peer, or the address a listed proxy forwarded."""
    headers = {name.lower(): value for name, value in request.headers.items()}
    return peer_of(str(request.META.get("REMOTE_ADDR") or ""), headers, settings.STALWART_TRUSTED_PROXIES)


def request_client(request: HttpRequest) -> str:
    """The client address a limit counts."""
    return request_peer(request).address


def guesses_wait(*, limit: Limit, client: str, since: datetime | None = None) -> int:
    """Seconds ``client`` must wait before its next try; 0 when it may try now.
    ``since``: count only tries after it too (a new pairing code)."""
    now = timezone.now()
    start = now - limit.window
    if since is not None and since > start:
        start = since
    stamps = list(
        WrongGuess.objects.filter(scope=limit.scope, client=client[:64], created_at__gt=start)
        .order_by("-created_at").values_list("created_at", flat=True)[:limit.per_client]
    )
    if len(stamps) < limit.per_client:
        return 0
    # The try becomes possible again when the limit-th newest wrong try leaves the window.
    return max(1, math.ceil((stamps[-1] + limit.window - now).total_seconds()))


@transaction.atomic
def guess_record(*, limit: Limit, client: str) -> None:
    """A wrong try from ``client``."""
    WrongGuess.objects.filter(scope=limit.scope, created_at__lt=timezone.now() - limit.keep).delete()
    WrongGuess.objects.create(scope=limit.scope, client=client[:64])
