"""The notification outbox, in process: rows with the pause, retries with a
stable webhook-id, Retry-After, 410, callables, giving up."""

from __future__ import annotations

import json
import time
from datetime import timedelta
from typing import Any

import pytest
import standardwebhooks
from django.test import Client
from django.utils import timezone

from approvals import outbox
from approvals.models import Delivery, WebhookEndpoint
from approvals.notify import set_listeners
from approvals.webhooks import HEADER, Webhook, verify
from tests.support.receiver import Receiver
from tests.support.server import session_key

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def receiver(shop_dir: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    # A turn waits this long for first attempts before listing them under
    # not_notified; a loaded CI machine can take more than the served 0.3 s to
    # reach a local receiver. Attempts that end sooner end the wait sooner.
    monkeypatch.setattr(outbox, "FIRST_WAIT", 10.0)
    r = Receiver()
    yield r
    set_listeners([])
    r.close()


def pause_in(thread: str) -> dict[str, Any]:
    response = Client().post(f"/threads/{thread}/messages", data=json.dumps({"text": "charge 40 to order 4411"}),
                             content_type="application/json")
    assert response.status_code == 200
    return {**response.json(), "key": session_key(thread, response.headers["Stalwart-Session"])}


def due_now() -> None:
    Delivery.objects.update(next_attempt_at=timezone.now())


def drain() -> None:
    """One round of the serve process's drain loop, waited for."""
    outbox.outbox_drain()
    for _ in range(100):
        if not Delivery.objects.filter(status=Delivery.Status.DELIVERING).exists():
            return
        time.sleep(0.05)


@pytest.mark.parametrize("secret", ["s3cret-long-enough-for-a-signing-key",
                                    "whsec_c3RhbHdhcnQtdGVzdC13ZWJob29rLWtleS0zMmJ5dGU="])
def test_a_delivery_carries_both_signatures_and_the_standard_library_verifies_it(receiver, secret):
    set_listeners([Webhook(receiver.url, secret)])
    body = pause_in("ob-1")
    headers, posted = receiver.wait(1)[0]
    assert body["not_notified"] == []
    assert verify(headers[HEADER.lower()], posted, secret)
    assert verify(headers, posted, secret)  # the whole headers: either signature
    assert verify({k: v for k, v in headers.items() if k != HEADER.lower()}, posted, secret)  # standard only
    key = secret if secret.startswith("whsec_") else secret.encode()
    sent = standardwebhooks.Webhook(key).verify(posted, headers)
    assert sent["type"] == "waiting" and sent["thread"] == body["key"]
    assert sent["interrupt"]["id"] == body["waiting"][0]["id"] and sent["interrupt"]["token"]
    with pytest.raises(standardwebhooks.webhooks.WebhookVerificationError):
        standardwebhooks.Webhook(b"another").verify(posted, headers)
    assert Delivery.objects.get().status == Delivery.Status.DELIVERED


def test_a_failed_delivery_is_retried_later_with_the_same_webhook_id(receiver):
    receiver.answers = [(500, {}, 0.0)]
    set_listeners([Webhook(receiver.url, "s3cret-long-enough-for-a-signing-key")])
    body = pause_in("ob-2")
    assert body["not_notified"] == [{"interrupt": body["waiting"][0]["id"], "to": receiver.url, "type": "waiting",
                                     "error": "HTTP 500", "retrying": True}]
    row = Delivery.objects.get()
    assert row.status == Delivery.Status.PENDING and row.attempts == 1
    assert row.next_attempt_at > timezone.now()  # backoff: not due at once
    assert outbox.outbox_drain() == 0
    due_now()
    drain()
    first, second = receiver.wait(2)
    assert first[0]["webhook-id"] == second[0]["webhook-id"] == row.message_id
    assert Delivery.objects.get().status == Delivery.Status.DELIVERED


def test_retry_after_on_429_is_honoured(receiver):
    receiver.answers = [(429, {"Retry-After": "120"}, 0.0)]
    set_listeners([Webhook(receiver.url, "s3cret-long-enough-for-a-signing-key")])
    pause_in("ob-3")
    row = Delivery.objects.get()
    wait = (row.next_attempt_at - timezone.now()).total_seconds()
    assert 110 < wait <= 120
    assert outbox.retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # a date in the past: now
    assert outbox.retry_after_seconds("soon") is None


def test_a_410_disables_the_endpoint_until_an_operator_re_enables_it(receiver):
    receiver.answers = [(410, {}, 0.0)]
    webhook = Webhook(receiver.url, "s3cret-long-enough-for-a-signing-key")
    set_listeners([webhook])
    pause_in("ob-4")
    endpoint = WebhookEndpoint.objects.get(target=webhook.key)
    assert endpoint.disabled_at is not None
    pause_in("ob-5")  # a new pause while disabled: stored, not sent
    due_now()
    assert outbox.outbox_drain() == 0
    assert len(receiver.posts) == 1
    assert outbox.endpoint_enable(target=webhook.key) == 2
    drain()
    receiver.wait(3)
    assert set(Delivery.objects.values_list("status", flat=True)) == {Delivery.Status.DELIVERED}


def test_a_callable_goes_through_the_outbox_and_is_retried_until_it_returns(receiver):
    told: list[tuple[str, str]] = []

    def flaky(thread: str, interrupt: dict[str, Any]) -> None:
        told.append((thread, interrupt["id"]))
        if len(told) == 1:
            raise ConnectionError("chat service down")

    set_listeners([flaky])
    body = pause_in("ob-6")
    assert [(n["to"], n["retrying"]) for n in body["not_notified"]] == [(outbox.shown_target(
        Delivery.objects.get().target), True)]
    assert "chat service down" in body["not_notified"][0]["error"]
    due_now()
    drain()
    assert told == [(body["key"], body["waiting"][0]["id"])] * 2  # a listener is told the thread's key
    assert Delivery.objects.get().status == Delivery.Status.DELIVERED


def test_a_waiting_notice_for_a_pause_answered_meanwhile_is_skipped_and_retries_are_bounded(receiver):
    receiver.answers = [(500, {}, 0.0)] * 3
    set_listeners([Webhook(receiver.url, "s3cret-long-enough-for-a-signing-key")])
    body = pause_in("ob-7")
    Delivery.objects.update(attempts=outbox.MAX_ATTEMPTS - 1)
    due_now()
    drain()
    assert Delivery.objects.get().status == Delivery.Status.FAILED
    pause = body["waiting"][0]
    Delivery.objects.update(status=Delivery.Status.PENDING, attempts=0, next_attempt_at=timezone.now() - timedelta(1))
    from threads.models import Interrupt

    Interrupt.objects.filter(pk=pause["id"]).update(status=Interrupt.Status.ANSWERED)
    drain()
    assert Delivery.objects.get().status == Delivery.Status.SKIPPED


def test_an_operator_re_enables_a_gone_endpoint_from_the_admin(receiver, admin_client):
    receiver.answers = [(410, {}, 0.0)]
    webhook = Webhook(receiver.url, "s3cret-long-enough-for-a-signing-key")
    set_listeners([webhook])
    pause_in("ob-8")
    endpoint = WebhookEndpoint.objects.get(target=webhook.key)
    listed = admin_client.get("/admin/approvals/webhookendpoint/")
    assert listed.status_code == 200 and receiver.url in listed.content.decode()
    done = admin_client.post("/admin/approvals/webhookendpoint/",
                             {"action": "re_enable", "_selected_action": [endpoint.pk]}, follow=True)
    assert done.status_code == 200 and "1 delivery is due now" in done.content.decode()
    assert WebhookEndpoint.objects.get().disabled_at is None
    drain()
    receiver.wait(2)
    assert Delivery.objects.get().status == Delivery.Status.DELIVERED
    assert admin_client.get("/admin/approvals/delivery/").status_code == 200
