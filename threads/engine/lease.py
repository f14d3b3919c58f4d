"""Step leases (docs/operating.md, "A worker that dies mid-call"): who is running a write's call, and
whether they still live.

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

A run carried on outside any step holds **one lease on the run** the same
way (``replay_owner``, ``replay_until``): a model hand-off (taken with the
answer's claim, ``run_lease_take``, and given up in the transaction that
records what the model said) and a team's steps replay (taken by a
conditional UPDATE, ``run_lease_try``: one replay at a time, on any worker).
The heartbeat renews it; once it lapsed, a sweep takes it over
(``run_lease_claim``) and carries the run on itself.
"""

from __future__ import annotations

import os
import secrets
import socket
import threading
from datetime import timedelta

from django.conf import settings
from django.db.models import Q, QuerySet
from django.utils import timezone

from threads.models import Run, Step

_worker: tuple[int, str] | None = None
_runs_held: set[str] = set()  # runs this process carries on outside a step, for the heartbeat
_runs_lock = threading.Lock()


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
    now = timezone.now()
    renewed = 0
    with _runs_lock:
        runs = list(_runs_held)
    if runs:
        renewed = Run.objects.filter(pk__in=runs, replay_owner=worker_id()).update(
            replay_until=now + timedelta(seconds=lease_seconds()))
    held = Step.objects.filter(status=Step.Status.RUNNING, lease_owner=worker_id())
    if not held.exists():  # a read: no write lock taken while this worker runs nothing
        return renewed
    return renewed + held.update(lease_at=now)


def run_lease_take(run: Run) -> None:
    """Inside the transaction that lets ``run`` go on outside any step (the
    claim of an answer the model is to be told): this worker holds it."""
    until = timezone.now() + timedelta(seconds=lease_seconds())
    Run.objects.filter(pk=run.pk).update(replay_owner=worker_id(), replay_until=until)
    run.replay_owner, run.replay_until = worker_id(), until
    with _runs_lock:
        _runs_held.add(run.pk)


def run_lease_try(run: Run) -> bool:
    """Take the run's lease if nobody holds it (or its holder stopped
    beating): one conditional UPDATE, True for the one caller that took it."""
    now = timezone.now()
    free = Q(replay_owner="") | Q(replay_until__lt=now)
    until = now + timedelta(seconds=lease_seconds())
    won = Run.objects.filter(free, pk=run.pk).update(replay_owner=worker_id(), replay_until=until,
                                                      replay_again=False) == 1
    if won:
        run.replay_owner, run.replay_until, run.replay_again = worker_id(), until, False
        with _runs_lock:
            _runs_held.add(run.pk)
    return won


def run_lease_claim(run: Run) -> bool:
    """A sweep takes over a run whose holder stopped beating: one conditional
    UPDATE (the old owner and time must still be there); True for the one that wins."""
    until = timezone.now() + timedelta(seconds=lease_seconds())
    won = Run.objects.filter(pk=run.pk, status=Run.Status.RUNNING, replay_owner=run.replay_owner,
                             replay_until=run.replay_until).update(replay_owner=worker_id(), replay_until=until) == 1
    if won:
        run.replay_owner, run.replay_until = worker_id(), until
        with _runs_lock:
            _runs_held.add(run.pk)
    return won


def run_lease_release(run: Run, *, unless_asked_again: bool = False) -> bool:
    """True while this worker still holds the run's lease, which it gives up
    (inside the transaction that records what the run did meanwhile).
    ``unless_asked_again``: kept (False) when an answer came in meanwhile and
    asked for another replay (``replay_again``), so the holder goes round once more."""
    rows = Run.objects.filter(pk=run.pk, replay_owner=worker_id())
    if unless_asked_again:
        rows = rows.filter(replay_again=False)
    released = rows.update(replay_owner="", replay_until=None) == 1
    if released or not unless_asked_again:
        run_lease_forget(run)
    return released


def run_lease_forget(run: Run) -> None:
    """The heartbeat stops renewing ``run`` (this worker is done with it, or failed)."""
    with _runs_lock:
        _runs_held.discard(run.pk)


def runs_lapsed() -> QuerySet[Run]:
    """Runs carried on outside a step whose holder stopped beating."""
    return (Run.objects.filter(status__in=[Run.Status.RUNNING, Run.Status.WAITING], replay_until__lt=timezone.now())
            .exclude(replay_owner=""))


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


def lease_lapse(step: Step) -> None:
    """Give a step this worker took over back to the sweep, lapsed (a reconciliation
    that failed): no heartbeat renews it, and the next sweep of any worker tries again."""
    Step.objects.filter(pk=step.pk, status=Step.Status.RUNNING, lease_owner=worker_id()).update(
        lease_owner="", lease_at=timezone.now() - timedelta(seconds=2 * lease_seconds()))
