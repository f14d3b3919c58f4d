"""The durable outbox of pause notifications (docs/operating.md, "Webhooks").

A ``Delivery`` row per listener is written in the transaction that opens the
pause (``deliveries_enqueue``, by the engine's notifier: ``approvals.notify``), so a notice exists
exactly when its pause does. After commit the first attempt goes to a small
thread pool (``deliveries_kick``): the request never waits on a receiver.
Every ``serve`` process also drains the table once a second
(``outbox_drain``, called by the process's worker: ``stalwart_site.worker``),
taking what is due. A row's life::

    pending --claim--> delivering --answered 2xx--> delivered
                                  --failed--> pending, later (backoff) | failed (given up)
    pending --a "waiting" pause no longer open--> skipped

A claim is one conditional UPDATE (``status='pending' AND next_attempt_at <=
now``, or a ``delivering`` row whose lease ran out because its worker died),
so one worker delivers each attempt. A worker only takes rows whose listener
it has itself (``approvals.listeners``). Backoff doubles from 1 s up to
``BACKOFF_CAP``; a ``Retry-After`` on 429/503 is honoured (up to
``RETRY_AFTER_CAP``); after ``MAX_ATTEMPTS`` or ``GIVE_UP_AFTER`` the row is
``failed``. A receiver that answers 410 Gone is disabled
(``WebhookEndpoint``): its rows wait until an operator re-enables it
(``endpoint_enable``). The ``webhook-id`` is the row's ``message_id``, the
same on every retry; the token is never stored: the pause is shown afresh at
each attempt.
"""

from __future__ import annotations

import concurrent.futures
import logging
import threading
from dataclasses import dataclass
from datetime import timedelta
from email.utils import parsedate_to_datetime
from typing import Any

from django.db import connections, transaction
from django.db.models import F, Q
from django.utils import timezone

from approvals.listeners import listeners
from approvals.models import Delivery, WebhookEndpoint
from approvals.webhooks import Webhook, delivery_body, new_message_id
from threads.engine import NOTICE_ESCALATION, NOTICE_REMINDER, NOTICE_WAITING, present, worker_id
from threads.models import Interrupt

log = logging.getLogger("stalwart.outbox")

FIRST_WAIT = 0.3  # seconds an answer waits for first attempts before listing them under not_notified
LEASE = timedelta(seconds=60)
MAX_ATTEMPTS = 16
GIVE_UP_AFTER = timedelta(hours=24)
BACKOFF_CAP = 600
RETRY_AFTER_CAP = 3600
DRAIN_EVERY = 1.0
BATCH = 50
POOL_SIZE = 8
ERROR_PENDING = "no answer yet; retrying"
ERROR_GONE = "410 Gone: the endpoint is disabled until an operator re-enables it"

_in_flight: dict[int, concurrent.futures.Future[None]] = {}  # first attempts not finished yet, by delivery id
_in_flight_lock = threading.Lock()
_pool: concurrent.futures.ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def pool() -> concurrent.futures.ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = concurrent.futures.ThreadPoolExecutor(max_workers=POOL_SIZE, thread_name_prefix="stalwart-outbox")
        return _pool


# --- writing and kicking -----------------------------------------------------------------------


def deliveries_enqueue(*, pause: Interrupt, type_: str, targets: list[str]) -> list[int]:
    """One row per listener, in the caller's transaction; the first attempt after commit."""
    now = timezone.now()
    ids = [
        Delivery.objects.create(message_id=new_message_id(), target=target[:500], type=type_[:32],
                                thread_id=pause.thread_id, interrupt_id=pause.id, next_attempt_at=now).pk
        for target in targets
    ]
    transaction.on_commit(lambda: deliveries_kick(ids))
    return ids


def deliveries_kick(ids: list[int]) -> None:
    """First attempts on the pool, kept by id while they run (``deliveries_undelivered`` waits on them)."""
    for pk in ids:
        future = pool().submit(_claim_and_attempt, pk)
        with _in_flight_lock:
            _in_flight[pk] = future
        future.add_done_callback(lambda _done, pk=pk: _forget(pk))


def _forget(pk: int) -> None:
    with _in_flight_lock:
        _in_flight.pop(pk, None)


def deliveries_undelivered(ids: list[int], wait: float | None = None) -> list[dict[str, Any]]:
    """Of the deliveries ``ids``, those not delivered after their first attempts
    had at most ``wait`` seconds (``FIRST_WAIT`` unless given) to finish."""
    if not ids:
        return []
    with _in_flight_lock:
        running = [_in_flight[pk] for pk in ids if pk in _in_flight]
    if running:
        concurrent.futures.wait(running, timeout=FIRST_WAIT if wait is None else wait)
    out = []
    for d in Delivery.objects.filter(pk__in=ids).order_by("pk"):
        if d.status in (Delivery.Status.DELIVERED, Delivery.Status.SKIPPED):
            continue
        out.append({"interrupt": d.interrupt_id, "to": shown_target(d.target), "type": d.type,
                    "error": d.last_error or ERROR_PENDING, "retrying": d.status != Delivery.Status.FAILED})
    return out


def shown_target(target: str) -> str:
    return target.removeprefix("webhook:")


# --- claiming and attempting -------------------------------------------------------------------


def _due(now: Any) -> Q:
    return Q(status=Delivery.Status.PENDING, next_attempt_at__lte=now) | Q(
        status=Delivery.Status.DELIVERING, claimed_until__lt=now)


def _disabled() -> Any:
    return WebhookEndpoint.objects.filter(disabled_at__isnull=False).values("target")


def delivery_claim(pk: int) -> bool:
    """One conditional UPDATE: True for the one worker that takes this attempt."""
    now = timezone.now()
    return Delivery.objects.filter(_due(now), pk=pk).exclude(target__in=_disabled()).update(
        status=Delivery.Status.DELIVERING, claimed_until=now + LEASE, claimed_by=worker_id()[:100]) == 1


def _claim_and_attempt(pk: int) -> None:
    try:
        if delivery_claim(pk):
            delivery_attempt(pk)
    except Exception:  # a pool thread: log, the row's lease lets another attempt take it
        log.exception("outbox delivery %s", pk)
    finally:
        connections.close_all()


def _attempt_claimed(pk: int) -> None:
    try:
        delivery_attempt(pk)
    except Exception:
        log.exception("outbox delivery %s", pk)
    finally:
        connections.close_all()


@dataclass
class Outcome:
    ok: bool = False
    error: str = ""
    retry_after: float | None = None
    gone: bool = False


def delivery_attempt(pk: int) -> None:
    """Send a claimed row once and record what happened."""
    d = Delivery.objects.get(pk=pk)
    listener = listeners().get(d.target)
    if listener is None:  # not ours after all (listeners changed): back for a worker that has it
        _finish(d, status=Delivery.Status.PENDING, count=False)
        return
    pause = Interrupt.objects.select_related("step").filter(pk=d.interrupt_id).first()
    if pause is None or (d.type == NOTICE_WAITING and pause.status != Interrupt.Status.OPEN):
        _finish(d, status=Delivery.Status.SKIPPED, count=False, error="the pause is no longer open")
        return
    if timezone.now() - d.created_at > GIVE_UP_AFTER:
        _finish(d, status=Delivery.Status.FAILED, count=False, error=d.last_error or "given up")
        return
    outcome = _send(listener, d, notice_shown(pause, d.type))
    if outcome.ok:
        _finish(d, status=Delivery.Status.DELIVERED)
        return
    if outcome.gone:
        endpoint_disable(target=d.target, reason="410 Gone")
        _finish(d, status=Delivery.Status.PENDING, error=ERROR_GONE)
        return
    attempts = d.attempts + 1
    log.warning("delivery %s of pause %s to %s failed (attempt %s): %s", d.message_id, d.interrupt_id,
                shown_target(d.target), attempts, outcome.error)
    if attempts >= MAX_ATTEMPTS:
        _finish(d, status=Delivery.Status.FAILED, error=outcome.error)
        return
    delay = outcome.retry_after if outcome.retry_after is not None else min(2 ** (attempts - 1), BACKOFF_CAP)
    _finish(d, status=Delivery.Status.PENDING, error=outcome.error, delay=delay)


def _send(listener: Any, d: Delivery, shown: dict[str, Any]) -> Outcome:
    if isinstance(listener, Webhook):
        import httpx

        body = delivery_body(d.type, d.thread_id, shown)
        try:
            response = listener.send(body, msg_id=d.message_id)
        except httpx.HTTPError as exc:
            return Outcome(error=f"{type(exc).__name__}: {exc}"[:500] or type(exc).__name__)
        if 200 <= response.status_code < 300:
            return Outcome(ok=True)
        if response.status_code == 410:
            return Outcome(gone=True, error=ERROR_GONE)
        retry_after = None
        if response.status_code in (429, 503):
            retry_after = retry_after_seconds(response.headers.get("Retry-After"))
        return Outcome(error=f"HTTP {response.status_code}", retry_after=retry_after)
    try:
        listener(d.thread_id, shown)
    except Exception as exc:  # a team's own callable: whatever it raises, it is retried later
        return Outcome(error=f"{type(exc).__name__}: {exc}"[:500])
    return Outcome(ok=True)


def notice_shown(pause: Interrupt, type_: str) -> dict[str, Any]:
    """The pause as a listener is told of it: as it opened for ``waiting``; for
    a notice about a pause that already waited (docs/agent-file.md, "Deadlines
    and escalation") also its ``type``
    (``expired`` | ``escalation`` | ``reminder``: a policy's, before its
    deadline), ``escalation`` (true for both of those) and ``status``, and no
    token once it can no longer be answered."""
    shown = present(pause)
    if type_ == NOTICE_WAITING:
        return shown
    shown = {**shown, "type": type_, "escalation": type_ in (NOTICE_ESCALATION, NOTICE_REMINDER), "status": pause.status}
    if pause.status != Interrupt.Status.OPEN:
        shown.pop("token", None)
    return shown


def retry_after_seconds(value: str | None) -> float | None:
    """``Retry-After`` as seconds from now (a number or an HTTP date), capped; None when unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        seconds = float(value)
    else:
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            return None
        seconds = (when - timezone.now()).total_seconds()
    return max(0.0, min(seconds, RETRY_AFTER_CAP))


def _finish(d: Delivery, *, status: str, count: bool = True, error: str = "", delay: float = 0.0) -> None:
    now = timezone.now()
    fields: dict[str, Any] = {"status": status, "claimed_until": None, "claimed_by": "", "updated_at": now,
                              "next_attempt_at": now + timedelta(seconds=delay)}
    if count:
        fields["attempts"] = F("attempts") + 1
    if status == Delivery.Status.DELIVERED:
        fields.update(delivered_at=now, last_error="")
    elif error:
        fields["last_error"] = error
    # Only the claim's holder records: a worker whose lease ran out records nothing.
    Delivery.objects.filter(pk=d.pk, status=Delivery.Status.DELIVERING, claimed_by=worker_id()[:100]).update(**fields)


# --- draining ----------------------------------------------------------------------------------


def outbox_drain() -> int:
    """Claim what is due for this process's listeners and send it on the pool; the number taken."""
    mine = list(listeners())
    if not mine:
        return 0
    now = timezone.now()
    due = list(Delivery.objects.filter(_due(now), target__in=mine).exclude(target__in=_disabled())
               .order_by("next_attempt_at").values_list("pk", flat=True)[:BATCH])
    taken = 0
    for pk in due:
        if delivery_claim(pk):
            pool().submit(_attempt_claimed, pk)
            taken += 1
    return taken


# --- endpoints ---------------------------------------------------------------------------------


@transaction.atomic
def endpoint_disable(*, target: str, reason: str) -> None:
    endpoint, _ = WebhookEndpoint.objects.get_or_create(target=target)
    if endpoint.disabled_at is None:
        endpoint.disabled_at = timezone.now()
        endpoint.disabled_reason = reason[:200]
        endpoint.save(update_fields=["disabled_at", "disabled_reason", "updated_at"])
        log.warning("webhook %s disabled: %s", shown_target(target), reason)


@transaction.atomic
def endpoint_enable(*, target: str) -> int:
    """An operator's re-enable: what waited for the endpoint is due now. The number of rows due."""
    WebhookEndpoint.objects.filter(target=target).update(disabled_at=None, disabled_reason="",
                                                         updated_at=timezone.now())
    return Delivery.objects.filter(target=target, status=Delivery.Status.PENDING).update(
        next_attempt_at=timezone.now())
