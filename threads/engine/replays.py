"""The replay journal's one writer (``threads.models.Replay``: its life is there).

A door that may see the same call twice names it with a ``ReplayKey`` and
hands it to the facade with the call (a turn, a proposal, an answer of
several pauses, a mirror). Inside the call's own unit of work, before
anything else is stored, ``replay_take`` inserts the call's row, its run's
id already chosen: the unique constraint on the live rows decides, so of
two identical calls at once (one worker or two) one inserts and the other
finds the first's row and does nothing (``Taken.earlier``). The row commits
with the run and its pause, or neither does.

Each status change is one conditional UPDATE from the statuses
``REPLAY_SOURCES`` allows (``replay_status_set``). A row taken by a request
that will keep its door's answer (``held``) carries this worker's lease,
renewed by the heartbeat until the answer is kept (``replay_keep``) or the
request lets go (``replay_release``); a row whose worker died is let go by
the sweep (``replays_lapsed_release``), so its retry gets what the call
became instead of "in progress" for ever.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from threads.engine.lease import lease_seconds, worker_id
from threads.models import Interrupt, Replay, Run
from threads.tokens import canonical

R = Replay.Status
NOTHING = None
REPLAY_SOURCES: dict[str, frozenset[str | None]] = {
    R.OPEN: frozenset({NOTHING, R.OPEN}),
    R.SETTLING: frozenset({R.OPEN, R.SETTLING}),
    R.KEPT: frozenset({R.OPEN, R.SETTLING, R.KEPT}),
    R.DELIVERED: frozenset({R.OPEN, R.KEPT}),
    R.EXPIRED: frozenset({R.OPEN, R.SETTLING, R.KEPT}),
}
LIVE = (R.OPEN, R.SETTLING, R.KEPT)
RUN_ENDED = (Run.Status.DONE, Run.Status.CANCELLED, Run.Status.SUPERSEDED)

_held: set[int] = set()  # rows this process's requests hold, for the heartbeat
_held_lock = threading.Lock()


def digest(value: Any) -> str:
    """SHA-256 of a value's canonical JSON (a string as itself)."""
    text = value if isinstance(value, str) else canonical(value)
    # surrogatepass: a lone surrogate (refused before anything is stored) still digests, the same way each time
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class ReplayKey:
    """How a door names a call it may see again.

    ``identity``: what makes two calls the same call (digested);
    ``fingerprint``: what the call asks (digested: the same identity asking
    something else is the door's error); ``key``: the call's own short name,
    kept as it is (a message id, an ``Idempotency-Key``); ``meta``: what the
    door notes of it. ``keep``: seconds a row stays live (None: until
    delivered), counted from its taking or, with ``keep_after_end``, from the
    end of its run. ``held``: the request that takes it keeps the door's
    answer on it later (it is "in progress" until then)."""

    door: str
    kind: str
    caller: str
    identity: Any
    fingerprint: Any = ""
    key: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
    keep: float | None = None
    keep_after_end: bool = False
    held: bool = False


@dataclass(frozen=True)
class ReplayView:
    """A journal row as a door reads it."""

    id: int
    door: str
    kind: str
    key: str
    status: str
    thread: str
    run: str
    meta: dict[str, Any]
    result: Any
    in_progress: bool  # held by a live request that has not kept its answer
    fingerprint: str
    created_at: Any

    def asked_the_same(self, fingerprint: Any) -> bool:
        return self.fingerprint == (digest(fingerprint) if fingerprint != "" else "")


def replay_view(row: Replay) -> ReplayView:
    fresh = timezone.now() - timedelta(seconds=lease_seconds())
    return ReplayView(id=row.pk, door=row.door, kind=row.kind, key=row.key, status=row.status, thread=row.thread_id,
                      run=row.run_id, meta=dict(row.meta or {}), result=row.result,
                      in_progress=bool(row.status == R.OPEN and row.lease_owner and row.lease_at
                                       and row.lease_at >= fresh),
                      fingerprint=row.fingerprint, created_at=row.created_at)


@dataclass
class Taken:
    """What ``replay_take`` found: this call's new row, or the live row of the same call before it."""

    row: Replay | None = None
    earlier: Replay | None = None


def _live(key: ReplayKey) -> Replay | None:
    return Replay.objects.filter(door=key.door, caller=key.caller[:200], identity=digest(key.identity),
                                 status__in=LIVE).first()


def _outlived(row: Replay, key: ReplayKey) -> bool:
    """A live row past the door's window, so the same call is a new call now."""
    if key.keep is None or row.status == R.SETTLING:
        return False
    limit = timezone.now() - timedelta(seconds=key.keep)
    if not key.keep_after_end:
        return row.created_at < limit
    if row.status == R.KEPT:
        return (row.settled_at or row.updated_at) < limit
    ended = Run.objects.filter(pk=row.run_id, status__in=RUN_ENDED).values_list("updated_at", flat=True).first()
    return ended is not None and ended < limit


def replay_take(key: ReplayKey, *, thread_id: str, run_id: str) -> Taken:
    """Inside the call's unit of work: insert the call's row for ``run_id``
    (its run is stored in the same transaction), or find the live row of the
    same call taken before (then nothing else is to be stored). A live row
    past its window expires first, and the call is a new one."""
    for _ in range(2):
        row = Replay(door=key.door, kind=key.kind, caller=key.caller[:200], identity=digest(key.identity),
                     key=key.key[:255], fingerprint=digest(key.fingerprint) if key.fingerprint != "" else "",
                     thread_id=thread_id, run_id=run_id, meta=dict(key.meta), status=R.OPEN)
        if key.held:
            row.lease_owner, row.lease_at = worker_id(), timezone.now()
        try:
            with transaction.atomic():
                row.save(force_insert=True)
        except IntegrityError:
            earlier = _live(key)
            if earlier is None:
                continue  # it stopped being live meanwhile: try once more
            if _outlived(earlier, key):
                replay_status_set(earlier, R.EXPIRED)
                continue
            return Taken(earlier=earlier)
        if key.held:
            with _held_lock:
                _held.add(row.pk)
        return Taken(row=row)
    raise IntegrityError(f"a {key.door} {key.kind} could not take its place in the replay journal")


def replay_status_set(row: Replay | int, status: str, *, only_from: Iterable[str] | None = None,
                      where: Q | None = None, **values: Any) -> bool:
    """Move a row to ``status`` (one conditional UPDATE from the statuses
    ``REPLAY_SOURCES`` allows, narrowed to ``only_from`` and ``where`` when
    given), with ``values``; True for the caller that moved it."""
    pk = row if isinstance(row, int) else row.pk
    sources = [s for s in REPLAY_SOURCES[status] if s is not NOTHING and (only_from is None or s in only_from)]
    now = timezone.now()
    rows = Replay.objects.filter(pk=pk, status__in=sources)
    if where is not None:
        rows = rows.filter(where)
    changed = rows.update(status=status, updated_at=now, **values)
    if changed and isinstance(row, Replay):
        row.status = status
        for name, value in values.items():
            setattr(row, name, value)
    return bool(changed)


def _let_go(pk: int) -> None:
    with _held_lock:
        _held.discard(pk)


def replay_keep(replay_id: int, result: Any = None) -> bool:
    """The door's answer to the call, kept for the same call again; the row is let go."""
    _let_go(replay_id)
    return replay_status_set(replay_id, R.KEPT, result=result, lease_owner="", lease_at=None,
                             settled_at=timezone.now())


def replay_release(replay_id: int) -> None:
    """The request holding the row ends without an answer to keep (it failed):
    the row stays open, held by nobody, so the same call again gets what it became."""
    _let_go(replay_id)
    Replay.objects.filter(pk=replay_id, status=R.OPEN, lease_owner=worker_id()).update(
        lease_owner="", lease_at=None, updated_at=timezone.now())


def replay_delivered(replay_id: int) -> bool:
    """The caller's transport took the call's outcome: the same call is a new call from now on."""
    _let_go(replay_id)
    now = timezone.now()
    return replay_status_set(replay_id, R.DELIVERED, delivered_at=now, lease_owner="", lease_at=None)


def replay_expire(replay_id: int) -> bool:
    """The call will not go on (a graph's interrupt went away without its answer): its identity is free."""
    _let_go(replay_id)
    return replay_status_set(replay_id, R.EXPIRED, lease_owner="", lease_at=None)


@transaction.atomic
def replays_settle(values: dict[int, Any]) -> bool:
    """Claim every row of ``values`` for carrying its answer back (open ->
    settling, its value kept, under this worker's lease), all or none: one
    conditional UPDATE each, the transaction rolled back unless each moved.
    Only from ``open``: a row another worker is settling is never claimed
    again here (``replays_take_over`` takes one whose worker died)."""
    now = timezone.now()
    for pk, value in values.items():
        if not replay_status_set(pk, R.SETTLING, only_from=(R.OPEN,), result=value, lease_owner=worker_id(),
                                 lease_at=now):
            transaction.set_rollback(True)
            return False
    with _held_lock:
        _held.update(values)
    return True


def replays_settled(ids: Iterable[int]) -> None:
    """Their answers were carried back: settling -> kept."""
    now = timezone.now()
    for pk in ids:
        _let_go(pk)
        replay_status_set(pk, R.KEPT, settled_at=now, lease_owner="", lease_at=None)


def replays_find(*, door: str, caller: str | None = None, thread_id: str | None = None,
                 statuses: Iterable[str] | None = None, run_ids: Iterable[str] | None = None,
                 key: str | None = None, kind: str | None = None, waiting: bool | None = None) -> list[ReplayView]:
    """The door's rows, oldest first, filtered by what is given; ``waiting``:
    only rows whose run has an open pause (True), or has none (False)."""
    rows = Replay.objects.filter(door=door)
    if caller is not None:
        rows = rows.filter(caller=caller[:200])
    if thread_id is not None:
        rows = rows.filter(thread_id=thread_id)
    if statuses is not None:
        rows = rows.filter(status__in=list(statuses))
    if run_ids is not None:
        rows = rows.filter(run_id__in=list(run_ids))
    if key is not None:
        rows = rows.filter(key=key)
    if kind is not None:
        rows = rows.filter(kind=kind)
    if waiting is not None:
        open_runs = Interrupt.objects.filter(status=Interrupt.Status.OPEN).values("run_id")
        rows = rows.filter(run_id__in=open_runs) if waiting else rows.exclude(run_id__in=open_runs)
    return [replay_view(r) for r in rows.order_by("created_at", "id")]


def replays_take_over(*, door: str, caller: str | None = None, batch: int = 200) -> list[ReplayView]:
    """Rows of ``door`` left ``settling`` by a worker that stopped beating (or
    by none: a row kept from before leases), taken by this worker to carry
    their answer back again with the value kept: each by one conditional
    UPDATE on the owner and time it was found with, so of several processes
    one takes it. The rows this worker took, oldest first."""
    limit = timezone.now() - timedelta(seconds=lease_seconds())
    rows = Replay.objects.filter(door=door, status=R.SETTLING).filter(
        Q(lease_owner="") | Q(lease_at__isnull=True) | Q(lease_at__lt=limit))
    if caller is not None:
        rows = rows.filter(caller=caller[:200])
    taken = []
    for pk, owner, at in rows.order_by("created_at", "id").values_list("pk", "lease_owner", "lease_at")[:batch]:
        if replay_status_set(pk, R.SETTLING, only_from=(R.SETTLING,), where=Q(lease_owner=owner, lease_at=at),
                             lease_owner=worker_id(), lease_at=timezone.now()):
            taken.append(pk)
    with _held_lock:
        _held.update(taken)
    return [replay_view(r) for r in Replay.objects.filter(pk__in=taken).order_by("created_at", "id")]


def replays_heartbeat() -> int:
    """Renew the leases of the rows this process's requests hold."""
    with _held_lock:
        held = list(_held)
    if not held:
        return 0
    return Replay.objects.filter(pk__in=held, lease_owner=worker_id()).update(lease_at=timezone.now())


def replays_lapsed_release() -> int:
    """The sweep: rows held by a worker that stopped beating are let go (each
    by one conditional UPDATE on the owner and time it was found with)."""
    limit = timezone.now() - timedelta(seconds=lease_seconds())
    released = 0
    for pk, owner, at in (Replay.objects.filter(status=R.OPEN, lease_at__lt=limit).exclude(lease_owner="")
                          .values_list("pk", "lease_owner", "lease_at")[:200]):
        released += Replay.objects.filter(pk=pk, status=R.OPEN, lease_owner=owner, lease_at=at).update(
            lease_owner="", lease_at=None, updated_at=timezone.now())
    return released


class Replayed(Exception):  # noqa: N818 - a control-flow signal, not a failure
    """Raised inside a unit of work when the same call was taken before: the
    unit rolls back and stores nothing; the facade answers with what the
    earlier call became."""

    def __init__(self, row: Replay) -> None:
        super().__init__(f"replayed {row.door} {row.kind}")
        self.row = row


def replay_take_new(key: ReplayKey, *, thread_id: str, run_id: str) -> Replay:
    """``replay_take``, raising ``Replayed`` when the call was taken before."""
    taken = replay_take(key, thread_id=thread_id, run_id=run_id)
    if taken.earlier is not None:
        raise Replayed(taken.earlier)
    assert taken.row is not None
    return taken.row
