"""Step leases (SPEC §9): who is running a write's call, and whether they still live.

A write's step goes ``running`` holding a lease: the worker's id and a
heartbeat time (``lease_at``). The serving process beats every few seconds
for every step it holds (``heartbeat``). A step whose heartbeat is older than
``STALWART_LEASE_SECONDS`` belongs to a worker that died; a sweep takes it
over with one conditional UPDATE (``lease_claim``: the old owner and time
must still be there), so of two sweepers only one acts. The worker that sent
the call records its outcome only while it still holds the lease
(``lease_release``, or the step's own save with ``release``:
``lifecycle.step_status_set``); one that lost it to a sweep records nothing
on the step.
"""

from __future__ import annotations

import os
import secrets
import socket
from datetime import timedelta

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone

from threads.models import Step

_worker: tuple[int, str] | None = None


def worker_id() -> str:
    """This process's id: host, pid and a random tail (a new one after a fork)."""
    global _worker
    pid = os.getpid()
    if _worker is None or _worker[0] != pid:
        _worker = (pid, f"{socket.gethostname()[:40]}:{pid}:{secrets.token_hex(4)}")
    return _worker[1]


def lease_seconds() -> float:
    return float(getattr(settings, "STALWART_LEASE_SECONDS", 5.0))


def lease_take(step: Step) -> None:
    """Mark ``step`` as held by this worker (saved with its status)."""
    step.lease_owner = worker_id()
    step.lease_at = timezone.now()


def heartbeat() -> int:
    """Renew every lease this worker holds; the number renewed."""
    held = Step.objects.filter(status=Step.Status.RUNNING, lease_owner=worker_id())
    if not held.exists():  # a read: no write lock taken while this worker runs nothing
        return 0
    return held.update(lease_at=timezone.now())


def lapsed() -> QuerySet[Step]:
    """Running steps whose worker stopped beating."""
    limit = timezone.now() - timedelta(seconds=lease_seconds())
    return Step.objects.filter(status=Step.Status.RUNNING, lease_at__lt=limit).order_by("lease_at")


def is_lapsed(step: Step) -> bool:
    return step.lease_at is None or step.lease_at < timezone.now() - timedelta(seconds=lease_seconds())


def lease_claim(step: Step) -> bool:
    """Take over a lapsed lease: one conditional UPDATE, True for the one sweeper that wins."""
    now = timezone.now()
    won = Step.objects.filter(
        pk=step.pk, status=Step.Status.RUNNING, lease_owner=step.lease_owner, lease_at=step.lease_at,
    ).update(lease_owner=worker_id(), lease_at=now) == 1
    if won:
        step.lease_owner, step.lease_at = worker_id(), now
    return won


def lease_release(step: Step) -> bool:
    """Before recording a call's outcome (inside that transaction): True while
    this worker still holds the step's lease."""
    return Step.objects.filter(pk=step.pk, status=Step.Status.RUNNING, lease_owner=worker_id()).update(
        lease_owner="", lease_at=None) == 1
