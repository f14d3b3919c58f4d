"""Sagas and rollback (docs/http-api.md, "The rollback report"), through the Desk over a real database."""

from __future__ import annotations

import pytest

from examples.shop import tools as shop
from threads.engine import thread_rollback
from threads.errors import InvalidAnswer, InvalidDecision, NotFound, Stale
from threads.models import Event, Interrupt, Receipt, Run, Step

pytestmark = pytest.mark.django_db(transaction=True)

TWO = "charge 40 to order 4411 and then charge 99.90 to order 5001"


def approve_first_then_cancel(desk, thread):
    first = desk.say(thread, TWO).waiting[0]
    second = desk.resume(thread, first["id"], "approve", first["token"]).waiting[0]
    assert second["tool"] == "charge_card" and second["step"] == 2
    return desk.resume(thread, second["id"], "cancel_all", second["token"])


def test_cancel_all_undoes_what_the_run_did_newest_first_each_undo_a_step_with_its_receipt(desk):
    reply = approve_first_then_cancel(desk, "s-cancel")
    assert reply.rollback == {"undone": [{"step": 1, "tool": "charge_card", "undo": "refund_card", "undo_step": 3}],
                              "not_undoable": [], "stuck": []}
    assert shop.get_order("4411")["status"] == "refunded"
    assert shop.get_order("5001")["status"] == "unpaid"
    assert [c["kind"] for c in shop.charges("5001")] == []
    assert [c["kind"] for c in shop.charges("4411")] == ["charge", "refund"]
    run = Run.objects.get()
    assert run.status == "cancelled" and run.rollback == reply.rollback
    shown = {s["step"]: s for s in reply.steps}
    assert (shown[1]["status"], shown[1]["verdict"]) == ("undone", "verified_applied")
    assert (shown[3]["tool"], shown[3]["undo_of"], shown[3]["verdict"]) == ("refund_card", 1, "verified_applied")
    assert reply.data["health"] == "ok"
    undo = Step.objects.get(index=3)
    assert (undo.tool, undo.status, undo.undo_of.index) == ("refund_card", "succeeded", 1)
    assert Step.objects.get(index=1).status == "undone"
    receipt = Receipt.objects.get(step=undo)
    assert (receipt.verdict, receipt.transport) == ("verified_applied", "ok")
    assert receipt.idempotency_key and shop.charges("4411")[1]["idempotency_key"] == receipt.idempotency_key
    event = Event.objects.filter(thread_id=desk.key("s-cancel"), type="rollback").get()
    assert event.data["undone"] == reply.rollback["undone"] and event.data["finished"] is True


def test_irreversible_or_uncompensated_writes_are_reported_not_undoable(desk):
    first = desk.say("s-irrev", "archive order 4412 and then charge 40 to order 4411").waiting[0]
    second = desk.resume("s-irrev", first["id"], "approve", first["token"]).waiting[0]
    reply = desk.resume("s-irrev", second["id"], "cancel_all", second["token"])
    assert reply.rollback == {"undone": [], "not_undoable": [{"step": 1, "tool": "archive_order"}], "stuck": []}
    assert shop.get_order("4412")["status"] == "archived"


def test_a_failing_undo_is_retried_then_pauses_saga_stuck_which_takes_its_three_answers(desk, monkeypatch):
    monkeypatch.setenv("STALWART_SHOP_FAULTS", "refund_card=fail")
    reply = approve_first_then_cancel(desk, "s-stuck")
    assert [p["kind"] for p in reply.waiting] == ["saga_stuck"]
    stuck = reply.waiting[0]
    assert stuck["choices"] == ["retry", "done_by_hand", "abandon"] and stuck["tool"] == "refund_card"
    assert reply.rollback["stuck"][0]["step"] == 1 and reply.rollback["undone"] == []
    assert stuck["undo_of"] == 1 and stuck["left"] == [{"step": 1, "tool": "charge_card"}]
    assert "failed (fault switch)" in stuck["error"]
    assert stuck["arguments"] == [{"name": "amount", "value": 40, "origin": "undo"},
                                  {"name": "order_id", "value": "4411", "origin": "undo"}]
    receipt = Receipt.objects.get(tool="refund_card")
    assert receipt.attempts == 3 and receipt.verdict == "verified_not_applied"
    event = Event.objects.filter(thread_id=desk.key("s-stuck"), type="rollback").get()
    assert event.data["stuck"] == reply.rollback["stuck"] and event.data["finished"] is False
    with pytest.raises(InvalidDecision):
        desk.resume("s-stuck", stuck["id"], "approve", stuck["token"])
    # retry, still failing: stuck again, under a new id
    again = desk.resume("s-stuck", stuck["id"], "retry", stuck["token"]).waiting
    assert [p["kind"] for p in again] == ["saga_stuck"] and again[0]["id"] != stuck["id"]
    done = desk.resume("s-stuck", again[0]["id"], "done_by_hand", again[0]["token"])
    assert done.rollback["undone"][0] | {"by": "hand"} == done.rollback["undone"][0]
    assert done.rollback["stuck"] == [] and done.waiting == []
    assert Run.objects.get().status == "cancelled" and Step.objects.get(index=1).status == "undone"
    with pytest.raises(Stale):
        desk.resume("s-stuck", again[0]["id"], "done_by_hand", again[0]["token"])
    assert [c["kind"] for c in shop.charges("4411")] == ["charge"]  # the person undid it, not us


def test_retry_after_the_fault_clears_undoes_and_abandon_reports_it_stuck(desk, monkeypatch):
    monkeypatch.setenv("STALWART_SHOP_FAULTS", "refund_card=fail")
    stuck = approve_first_then_cancel(desk, "s-retry").waiting[0]
    monkeypatch.delenv("STALWART_SHOP_FAULTS")
    reply = desk.resume("s-retry", stuck["id"], "retry", stuck["token"])
    assert [e["tool"] for e in reply.rollback["undone"]] == ["charge_card"] and reply.waiting == []
    assert shop.get_order("4411")["status"] == "refunded"

    monkeypatch.setenv("STALWART_SHOP_FAULTS", "refund_card=fail")
    first = desk.say("s-abandon", "charge 99.90 to order 5001 and then archive order 4412").waiting[0]
    second = desk.resume("s-abandon", first["id"], "approve", first["token"]).waiting[0]
    stuck = desk.resume("s-abandon", second["id"], "cancel_all", second["token"]).waiting[0]
    reply = desk.resume("s-abandon", stuck["id"], "abandon", stuck["token"])
    assert [e["tool"] for e in reply.rollback["stuck"]] == ["charge_card"] and reply.waiting == []
    assert Run.objects.get(thread_id=desk.key("s-abandon")).status == "cancelled"


def test_operator_rollback_undoes_once_however_often_it_is_asked(desk):
    pause = desk.say("s-op", "charge 40 to order 4411").waiting[0]
    desk.resume("s-op", pause["id"], "approve", pause["token"])
    first = thread_rollback(thread_id=desk.key("s-op"), by="operator")
    assert [(e["tool"], e["undo"]) for e in first["rollback"]["undone"]] == [("charge_card", "refund_card")]
    second = thread_rollback(thread_id=desk.key("s-op"), by="operator")
    assert second["rollback"] == {"undone": [], "not_undoable": [], "stuck": []}
    assert [c["kind"] for c in shop.charges("4411")] == ["charge", "refund"]
    assert Run.objects.get().status == "done" and Run.objects.get().rollback["undone"]
    with pytest.raises(NotFound):
        thread_rollback(thread_id="s-nothing", by="operator")


def test_operator_rollback_of_a_waiting_run_closes_its_pause(desk):
    first = desk.say("s-wait", TWO).waiting[0]
    desk.resume("s-wait", first["id"], "approve", first["token"])
    done = thread_rollback(thread_id=desk.key("s-wait"), by="operator")
    assert [e["step"] for e in done["rollback"]["undone"]] == [1] and done["waiting"] == []
    assert Interrupt.objects.filter(status="cancelled").count() == 1
    assert shop.get_order("5001")["status"] == "unpaid" and shop.get_order("4411")["status"] == "refunded"


def test_happened_registers_the_undo_and_a_rollback_uses_it(desk, monkeypatch):
    monkeypatch.setenv("STALWART_SHOP_FAULTS", "archive_order=lose_reply")
    pause = desk.say("s-happened", "archive order 4412").waiting[0]
    unknown = desk.resume("s-happened", pause["id"], "approve", pause["token"]).waiting[0]
    reply = desk.resume("s-happened", unknown["id"], "happened", unknown["token"])
    assert reply.waiting == [] and Run.objects.get().status == "done"
    step = Step.objects.get()
    assert step.status == "succeeded" and step.result == {"recorded_by_person": True}
    receipt = Receipt.objects.get()
    assert (receipt.verdict, receipt.evidence) == ("verified_applied", "a person said it happened")


def test_happened_on_a_compensated_write_registers_its_undo(desk):
    from threads.engine.reconcile import happened_record

    pause = desk.say("s-reg", "charge 40 to order 4411").waiting[0]
    step = Step.objects.get()
    happened_record(step)
    assert step.compensation == {"tool": "refund_card", "arguments": {"order_id": "4411", "amount": 40}}
    assert pause["kind"] == "confirm"


@pytest.mark.parametrize("bad", ["\ud800", "a\x00b", {"x": "\udfff"}])
def test_an_unencodable_answer_is_422_before_the_claim(desk, bad):
    reply = desk.say("s-ask", "refund on order 4411")
    ask = next(p for p in reply.waiting if p["kind"] == "ask")
    answer = {"kind": "open", "text": bad} if isinstance(bad, str) else bad
    with pytest.raises(InvalidAnswer):
        desk.resume("s-ask", ask["id"], "answer", ask["token"], answer=answer)
    assert Interrupt.objects.get(pk=ask["id"]).status == "open"
    assert Run.objects.get().status == "waiting"
    fine = desk.resume("s-ask", ask["id"], "answer", ask["token"], answer={"kind": "open", "text": "40"})
    assert fine.waiting and fine.waiting[0]["kind"] == "confirm"
