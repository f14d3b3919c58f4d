"""Effect receipts (docs/http-api.md, "Receipts and verdicts"): each of the six
verdicts, from evidence a test arranges, and a worker's death reconciled by the sweep
(its lease lapsed) without anyone touching the thread."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from examples.shop import tools as shop
from tests.fakes.ledger import tools as ledger
from threads.engine import sweep_once
from threads.models import Event, Interrupt, Receipt, Run, Step
from threads.tokens import request_hash

pytestmark = pytest.mark.django_db(transaction=True)

LEDGER = Path(__file__).resolve().parents[1] / "fakes" / "ledger" / "agent.yaml"


@pytest.fixture
def books(db, shop_dir):  # type: ignore[no-untyped-def]
    from stalwart_site.desk import Desk

    ledger.ENTRIES.clear()
    ledger.MODE["post_entry"] = "ok"
    yield Desk(LEDGER)
    ledger.MODE["post_entry"] = "ok"


def post(books, thread: str, mode: str):  # type: ignore[no-untyped-def]
    pause = books.say(thread, "post entry ref r1").waiting[0]
    ledger.MODE["post_entry"] = mode
    return books.resume(thread, pause["id"], "approve", pause["token"])


def test_verified_applied_a_reply_and_a_probe_that_finds_it(desk):
    pause = desk.say("v-applied", "charge 40 to order 4411").waiting[0]
    desk.resume("v-applied", pause["id"], "approve", pause["token"])
    receipt = Receipt.objects.get()
    assert (receipt.transport, receipt.verdict, receipt.evidence) == ("ok", "verified_applied",
                                                                       "get_order found 1 matching")


def test_verified_applied_a_lost_reply_the_probe_finds_no_person_asked(books):
    reply = post(books, "v-lost", "lose")
    assert reply.waiting == [] and len(ledger.ENTRIES) == 1
    receipt = Receipt.objects.get()
    assert (receipt.transport, receipt.verdict) == ("timeout", "verified_applied")
    assert Step.objects.get().status == "succeeded"


def test_verified_not_applied_a_lost_reply_the_probe_shows_absent_goes_back_to_a_person(books):
    reply = post(books, "v-not", "lose_before")
    assert ledger.ENTRIES == []
    assert Receipt.objects.get().verdict == "verified_not_applied"
    # a retry is a person's decision: a new confirm, never a resend
    assert [p["kind"] for p in reply.waiting] == ["confirm"]


def test_indeterminate_no_reply_and_no_probe_pauses_outcome_unknown(desk, monkeypatch):
    monkeypatch.setenv("STALWART_SHOP_FAULTS", "archive_order=lose_reply")
    pause = desk.say("v-unknown", "archive order 4412").waiting[0]
    reply = desk.resume("v-unknown", pause["id"], "approve", pause["token"])
    assert [p["kind"] for p in reply.waiting] == ["outcome_unknown"]
    assert (Receipt.objects.get().transport, Receipt.objects.get().verdict) == ("timeout", "indeterminate")


def test_duplicate_effect_more_than_one_match_stops_for_a_person(books):
    reply = post(books, "v-dup", "double")
    receipt = Receipt.objects.get()
    assert receipt.verdict == "duplicate_effect" and receipt.evidence == "list_entries found 2 matching"
    run = Run.objects.get()
    assert run.health == "duplicate_effect" and run.status == "done" and reply.waiting == []
    assert "more than once" in reply.text


def test_false_success_ok_without_the_effect_reports_the_run_unhealthy(books):
    reply = post(books, "v-false", "phantom")
    assert Receipt.objects.get().verdict == "false_success"
    assert Run.objects.get().health == "false_success" and Step.objects.get().status == "failed"
    assert "unhealthy" in reply.text


def test_unsafe_retry_the_same_operation_with_another_request_stops_and_sends_nothing(desk):
    pause = desk.say("v-unsafe", "charge 40 to order 4411").waiting[0]
    run = Run.objects.get()
    step = Step.objects.get()
    Receipt.objects.create(operation_id=f"op-{run.id}-{step.index}-{step.generation}", step=step,
                           tool="charge_card", request_hash="0" * 64, idempotency_key="other")
    reply = desk.resume("v-unsafe", pause["id"], "approve", pause["token"])
    assert Receipt.objects.get().verdict == "unsafe_retry"
    assert shop.charges() == [] and Step.objects.get().status == "failed"
    assert Run.objects.get().health == "unsafe_retry" and reply.waiting == []


def test_a_secret_argument_is_left_out_of_the_hash_the_receipt_and_the_events(books):
    pause = books.say("v-secret", "post entry ref r1").waiting[0]
    step = Step.objects.get()
    step.arguments = [*step.arguments, {"name": "token", "value": "s3cret-value", "origin": "typed"}]
    step.save()
    books.resume("v-secret", pause["id"], "approve", pause["token"])
    receipt = Receipt.objects.get()
    assert receipt.request_hash == request_hash("post_entry", {"ref": "r1"})
    stored = " ".join(str(v) for v in Receipt.objects.values().get().values())
    assert "s3cret" not in stored
    assert all("s3cret" not in str(e.data) for e in Event.objects.all())


def _die_mid_call(thread: str, desk, text: str) -> Step:  # type: ignore[no-untyped-def]
    """Arrange what a SIGKILL leaves: the step running under a dead worker's lapsed lease."""
    pause = desk.say(thread, text).waiting[0]
    Interrupt.objects.filter(pk=pause["id"]).update(status="answered", decision="approve")
    step = Step.objects.get(run__thread_id=desk.key(thread), index=1)
    Run.objects.filter(pk=step.run_id).update(status="running")
    Step.objects.filter(pk=step.pk).update(status="running", lease_owner="dead-host:1:x",
                                           lease_at=timezone.now() - timedelta(minutes=5))
    return step


def test_the_sweep_turns_a_dead_workers_unprobed_write_into_outcome_unknown(desk):
    _die_mid_call("d-archive", desk, "archive order 4412")
    assert sweep_once() == 1
    pause = Interrupt.objects.get(status="open")
    assert pause.kind == "outcome_unknown" and pause.tool == "archive_order"
    assert Run.objects.get().status == "waiting"
    assert sweep_once() == 0  # taken once


def test_the_sweep_reconciles_a_probed_write_by_its_probe_and_sends_nothing(desk):
    step = _die_mid_call("d-charge", desk, "charge 40 to order 4411")
    shop.charge_card("4411", 40, idempotency_key="elsewhere")  # the dead worker's call did take effect
    assert sweep_once() == 1
    step.refresh_from_db()
    assert step.status == "succeeded" and Run.objects.get().status == "done"
    assert len(shop.charges("4411")) == 1
    assert Receipt.objects.get().verdict == "verified_applied"


def test_a_live_lease_is_left_alone(desk):
    step = _die_mid_call("d-live", desk, "archive order 4412")
    Step.objects.filter(pk=step.pk).update(lease_at=timezone.now())
    assert sweep_once() == 0
    assert Interrupt.objects.filter(status="open").count() == 0


def test_a_run_left_running_after_its_claim_is_carried_on_once_by_the_sweep(desk):
    pause = desk.say("d-stranded", "charge 40 to order 4411").waiting[0]
    # What a worker killed right after the claim's commit leaves: approved, nothing running.
    Interrupt.objects.filter(pk=pause["id"]).update(status="answered", decision="approve")
    Step.objects.update(status="approved")
    Run.objects.update(status="running", updated_at=timezone.now() - timedelta(minutes=5))
    assert sweep_once() == 1
    assert Run.objects.get().status == "done" and Step.objects.get().status == "succeeded"
    assert len(shop.charges("4411")) == 1
    assert sweep_once() == 0


def test_a_step_is_started_once_even_by_two_workers_carrying_the_same_run(desk):
    from catalogue import registry
    from threads.engine.execute import step_execute
    from threads.engine.progress import Progress

    pause = desk.say("d-twice", "archive order 4412").waiting[0]
    Interrupt.objects.filter(pk=pause["id"]).update(status="answered", decision="approve")
    Step.objects.update(status="approved")
    run = Run.objects.get()
    agent = registry.get_agent(run.agent)
    first, second = Step.objects.get(), Step.objects.get()  # both read "approved"
    assert step_execute(Progress(run=run), first, agent) is True
    assert step_execute(Progress(run=run), second, agent) is False
    assert Event.objects.filter(type="step", data__status="running").count() == 1


def test_a_heartbeat_renews_only_this_workers_leases_and_a_lost_lease_records_nothing(desk):
    from threads.engine.lease import heartbeat, lease_release, worker_id

    step = _die_mid_call("d-beat", desk, "archive order 4412")
    assert heartbeat() == 0  # the dead worker's step is not ours
    old = timezone.now() - timedelta(minutes=5)
    Step.objects.filter(pk=step.pk).update(lease_owner=worker_id(), lease_at=old)
    assert heartbeat() == 1 and Step.objects.get(pk=step.pk).lease_at > old
    Step.objects.filter(pk=step.pk).update(lease_owner="a-sweeper-elsewhere")
    assert lease_release(step) is False  # taken over: this worker records no outcome
    assert Step.objects.get(pk=step.pk).status == "running"


def test_a_call_whose_step_a_sweep_took_over_meanwhile_records_nothing_on_the_step(desk, monkeypatch):
    from threads.engine import execute

    sent = execute.send

    def taken_over_meanwhile(*args, **kwargs):  # type: ignore[no-untyped-def]
        outcome = sent(*args, **kwargs)
        Step.objects.filter(status="running").update(lease_owner="a-sweeper-elsewhere")  # our heartbeat lapsed
        return outcome

    monkeypatch.setattr(execute, "send", taken_over_meanwhile)
    desk.say("d-over", "charge 40 to order 4411")
    reply = desk.confirm("d-over", "approve")
    step = Step.objects.get()
    # The step's outcome is the sweep's to record: this worker's save gave nothing, not even its lease, away.
    assert (step.status, step.lease_owner, step.result) == ("running", "a-sweeper-elsewhere", None)
    assert "ch-4411" not in reply.text and reply.data["status"] == "running"
    assert not Event.objects.filter(type="step", data__status="succeeded").exists()
    assert len(shop.charges("4411")) == 1  # sent once


def test_a_long_sweep_does_not_stop_this_workers_heartbeat(db, settings, monkeypatch):  # type: ignore[no-untyped-def]
    import threading

    from stalwart_site import worker
    from threads import engine

    settings.STALWART_LEASE_SECONDS = 0.6  # a tick every 0.2 s
    held = threading.Event()
    beats: list[int] = []
    monkeypatch.setattr(engine, "sweep_once", lambda: held.wait(10) and 0)  # a sweep busy carrying a run on
    monkeypatch.setattr(engine, "heartbeats", lambda: beats.append(1) or 0)
    monkeypatch.setattr(worker, "sweep_deadlines", lambda: None)
    monkeypatch.setattr(worker, "_drain", lambda: None)
    running = worker.Worker().start()
    try:
        for _ in range(100):
            if len(beats) >= 3:
                break
            threading.Event().wait(0.05)
        assert len(beats) >= 3  # beating on while the sweep is held
    finally:
        held.set()
        running.stop()


def test_a_reconciliation_that_fails_gives_the_step_back_to_the_next_sweep(desk, monkeypatch):
    from threads.engine import reconcile
    from threads.engine.lease import lapsed

    step = _die_mid_call("d-fails", desk, "archive order 4412")
    monkeypatch.setattr(reconcile, "step_reconcile", lambda s: 1 / 0)
    assert reconcile.sweep_once() >= 1
    step.refresh_from_db()
    assert (step.status, step.lease_owner) == ("running", "")  # not held (and renewed) by this worker
    assert [s.pk for s in lapsed()] == [step.pk]  # the next sweep, on any worker, tries again
    monkeypatch.undo()
    assert reconcile.sweep_once() >= 1
    assert Interrupt.objects.filter(kind="outcome_unknown", status="open").count() == 1
