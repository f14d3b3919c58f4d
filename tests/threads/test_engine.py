"""Service tier: the run engine over a real database, through the Desk API."""

from __future__ import annotations

import json

import pytest

from catalogue.check import SENTENCE_WITHDRAWN
from examples.shop import tools as shop
from threads.errors import InvalidDecision, NotFound, Stale
from threads.models import Event, Interrupt, Receipt, Run, Step
from threads.texts import TEXTS

pytestmark = pytest.mark.django_db(transaction=True)


def test_show_order_replies_with_card_and_total_and_waits_on_nothing(desk):
    reply = desk.say("t-show", "show order 4411")
    assert reply.waiting == []
    assert "visa-0019" in reply.text and "40.00" in reply.text and "unpaid" in reply.text
    assert reply.steps[0]["tool"] == "get_order" and reply.steps[0]["status"] == "succeeded"


def test_charge_pauses_exactly_as_spec_shows(desk):
    reply = desk.say("t-charge", "charge 40 to order 4411")
    assert len(reply.waiting) == 1
    pause = reply.waiting[0]
    assert set(pause) >= {"id", "kind", "tool", "question", "arguments", "reasons", "irreversible", "choices",
                          "token", "step"}
    assert pause["kind"] == "confirm"
    assert pause["tool"] == "charge_card"
    assert pause["question"] == "Charge the card?"  # the shop's own confirm: words
    assert pause["labels"] == {"amount": "Amount", "order_id": "Order"}  # undeclared: the names read as words
    assert pause["arguments"] == [
        {"name": "amount", "value": 40, "origin": "typed"},
        {"name": "order_id", "value": "4411", "origin": "typed"},
    ]
    assert pause["reasons"] == ["write"]
    assert pause["irreversible"] is False
    assert pause["choices"] == ["approve", "skip", "cancel_all"]
    assert pause["step"] == 1 and len(pause["token"]) == 64
    assert shop.charges() == []  # nothing ran


def test_approve_runs_the_charge_once_and_a_second_answer_is_stale(desk):
    pause = desk.say("t-approve", "charge 40 to order 4411").waiting[0]
    reply = desk.resume("t-approve", pause["id"], "approve", pause["token"])
    assert "ch-4411" in reply.text
    assert reply.waiting == []
    assert shop.get_order("4411")["status"] == "paid"
    with pytest.raises(Stale) as err:
        desk.resume("t-approve", pause["id"], "approve", pause["token"])
    body = err.value.body()
    assert body["error"] == "interrupt_stale"
    assert body["interrupt"]["status"] == "answered" and body["interrupt"]["decision"] == "approve"
    assert body["waiting"] == []
    assert len(shop.charges("4411")) == 1
    assert "paid" in desk.say("t-approve", "show order 4411").text


def test_the_write_receipt_is_stored_with_its_key_and_no_secret(desk):
    pause = desk.say("t-receipt", "charge 40 to order 4411").waiting[0]
    desk.resume("t-receipt", pause["id"], "approve", pause["token"])
    receipt = Receipt.objects.get()
    assert receipt.tool == "charge_card" and receipt.transport == "ok" and receipt.verdict == "verified_applied"
    assert receipt.attempts == 1 and len(receipt.request_hash) == 64
    assert shop.charges("4411")[0]["idempotency_key"] == receipt.idempotency_key


@pytest.mark.parametrize("token", ["", "0" * 64, "not-a-token"])
def test_a_wrong_token_is_stale_and_changes_nothing(desk, token):
    pause = desk.say("t-token", "charge 40 to order 4411").waiting[0]
    with pytest.raises(Stale):
        desk.resume("t-token", pause["id"], "approve", token)
    assert shop.charges() == []
    assert Interrupt.objects.get(pk=pause["id"]).status == "open"


def test_a_decision_the_kind_does_not_take_is_422_and_changes_nothing(desk):
    pause = desk.say("t-decision", "charge 40 to order 4411").waiting[0]
    with pytest.raises(InvalidDecision):
        desk.resume("t-decision", pause["id"], "happened", pause["token"])
    assert Interrupt.objects.get(pk=pause["id"]).status == "open"
    assert shop.charges() == []


def test_a_new_turn_supersedes_what_waits(desk):
    pause = desk.say("t-super", "charge 40 to order 4411").waiting[0]
    reply = desk.say("t-super", "show order 5001")
    assert reply.text.startswith(TEXTS["en"]["superseded"]) and "mc-4420" in reply.text
    assert Interrupt.objects.get(pk=pause["id"]).status == "superseded"
    with pytest.raises(Stale):
        desk.resume("t-super", pause["id"], "approve", pause["token"])
    assert shop.charges() == []
    assert shop.get_order("4411")["status"] == "unpaid"


def test_skip_leaves_the_call_out_and_goes_on(desk):
    pause = desk.say("t-skip", "charge 40 to order 4411").waiting[0]
    reply = desk.resume("t-skip", pause["id"], "skip", pause["token"])
    assert reply.steps[0]["status"] == "skipped"
    assert Run.objects.get().status == "done"
    assert shop.charges() == []


def test_cancel_all_leaves_out_this_and_every_later_call(desk):
    reply = desk.say("t-cancel", "charge 40 to order 4411 and then archive order 4412")
    pause = reply.waiting[0]
    reply = desk.resume("t-cancel", pause["id"], "cancel_all", pause["token"])
    assert [s["status"] for s in reply.steps] == ["cancelled", "cancelled"]
    assert reply.waiting == []
    assert shop.get_order("4412")["status"] == "paid"


def test_pause_ids_are_derived_not_random(desk):
    first = desk.say("t-derived", "charge 40 to order 4411").waiting[0]
    from threads.engine.pauses import pause_open
    from threads.engine.unit import unit

    run = Run.objects.get()
    with unit(run.thread_id) as u:
        again = pause_open(u, run=run, step=Step.objects.get(), kind="confirm", tool="charge_card",
                           payload=Interrupt.objects.get().payload)
    assert again.id == first["id"]
    assert Interrupt.objects.count() == 1


def test_events_are_numbered_per_thread_and_are_json(desk):
    pause = desk.say("t-events", "charge 40 to order 4411").waiting[0]
    desk.resume("t-events", pause["id"], "approve", pause["token"])
    events = list(Event.objects.filter(thread_id=desk.key("t-events")).order_by("seq"))
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    types = [e.type for e in events]
    assert types[0] == "turn" and "waiting" in types and "answered" in types and types[-1] == "reply"
    for e in events:
        assert json.loads(json.dumps(e.data)) == e.data
    # A token is never stored: the waiting event keeps the pause without it.
    waiting = next(e for e in events if e.type == "waiting")
    assert waiting.data["id"] == pause["id"] and "token" not in waiting.data


def test_a_lost_reply_pauses_as_outcome_unknown_and_is_never_resent(desk, monkeypatch):
    monkeypatch.setenv("STALWART_SHOP_FAULTS", "archive_order=lose_reply")
    pause = desk.say("t-lost", "archive order 4412").waiting[0]
    reply = desk.resume("t-lost", pause["id"], "approve", pause["token"])
    assert [p["kind"] for p in reply.waiting] == ["outcome_unknown"]
    assert reply.waiting[0]["choices"] == ["happened", "did_not_happen"]
    assert Receipt.objects.get().verdict == "indeterminate"
    monkeypatch.delenv("STALWART_SHOP_FAULTS")
    unknown = reply.waiting[0]
    reply = desk.resume("t-lost", unknown["id"], "did_not_happen", unknown["token"])
    # A retry is a person's decision: a new confirm, under a new id.
    assert [p["kind"] for p in reply.waiting] == ["confirm"]
    assert reply.waiting[0]["id"] != pause["id"]


def test_an_idempotent_write_is_retried_with_the_same_key(desk, monkeypatch):
    monkeypatch.setenv("STALWART_SHOP_FAULTS", "charge_card=lose_reply")
    pause = desk.say("t-retry", "charge 40 to order 4411").waiting[0]
    reply = desk.resume("t-retry", pause["id"], "approve", pause["token"])
    # The first reply was lost after the effect; the retry, with the same key,
    # is answered by the shop's replay of that charge: no second charge.
    assert len(shop.charges("4411")) == 1
    assert reply.waiting == [] and "ch-4411" in reply.text
    receipt = Receipt.objects.get()
    assert (receipt.attempts, receipt.verdict) == (2, "verified_applied")


def test_withdrawn_tools_are_never_planned(desk):
    from catalogue.models import Withdrawal

    Withdrawal.objects.create(agent="Shop", tool="archive_order", reason="test")
    reply = desk.say("t-withdrawn", "archive order 4412")
    assert reply.steps == []
    assert [p["kind"] for p in reply.waiting] == ["delegate"]  # unread: only a person may hand it on
    assert shop.get_order("4412")["status"] == "paid"


def test_a_tool_withdrawn_after_planning_is_refused_with_rule_withdrawn(desk):
    from catalogue.models import Withdrawal

    pause = desk.say("t-withdrawn-late", "archive order 4412").waiting[0]
    assert pause["tool"] == "archive_order"
    Withdrawal.objects.create(agent="Shop", tool="archive_order", reason="test")
    reply = desk.resume("t-withdrawn-late", pause["id"], "approve", pause["token"])
    assert reply.waiting == []
    assert reply.refusals == [{"tool": "archive_order", "rule": "withdrawn", "step": 1,
                               "sentence": SENTENCE_WITHDRAWN.format(tool="Archive order")}]
    assert shop.get_order("4412")["status"] == "paid"


def test_another_session_cannot_read_or_answer_the_thread(desk):
    from stalwart_site.desk import Desk
    from tests.conftest import SHOP

    pause = desk.say("t-private", "charge 40 to order 4411").waiting[0]
    other = Desk(SHOP)
    with pytest.raises(NotFound):
        other.waiting("t-private")
    with pytest.raises(NotFound):
        other.resume("t-private", pause["id"], "approve", pause["token"])
    # The same id from another session is that session's own thread, which sees none of the first.
    assert other.say("t-private", "show order 4411").waiting == [] and other.waiting("t-private") == []
    with pytest.raises(NotFound):  # no pause of that id in the other's own thread
        other.resume("t-private", pause["id"], "approve", pause["token"])
    assert [p["id"] for p in desk.waiting("t-private")] == [pause["id"]] and shop.charges() == []


def test_an_unread_turn_under_refuse_replies_that_it_could_not_read(desk, tmp_path):
    from stalwart_site.desk import Desk
    from tests.conftest import SHOP

    path = tmp_path / "agent.yaml"
    path.write_text(SHOP.read_text().replace("on_unread: ask", "on_unread: refuse"))
    (tmp_path / "vocabulary.yaml").write_text((SHOP.parent / "vocabulary.yaml").read_text())
    reply = Desk(path).say("t-unread", "order a pizza")
    assert reply.text == TEXTS["en"]["unread"]
    assert reply.waiting == []


def test_an_unread_turn_under_ask_pauses_with_delegate(desk):
    reply = desk.say("t-delegate", "order a pizza")
    assert [p["kind"] for p in reply.waiting] == ["delegate"]
    assert reply.waiting[0]["choices"] == ["approve", "decline"]
    reply = desk.confirm("t-delegate", "decline")
    assert reply.text == TEXTS["en"]["declined"]


def test_a_missing_argument_asks_and_the_answer_carries_the_run_on(desk):
    reply = desk.say("t-ask", "show order")
    pause = reply.waiting[0]
    assert (pause["kind"], pause["argument"], pause["choices"]) == ("ask", "order_id", ["answer"])
    assert pause["ask"]["kind"] == "open" and pause["ask"]["prompt"]
    reply = desk.answer("t-ask", text="4411")
    assert "visa-0019" in reply.text and reply.waiting == []
    assert reply.steps[0]["arguments"] == [{"name": "order_id", "value": "4411", "origin": "reply"}]


def test_an_answer_of_the_wrong_kind_is_invalid_and_the_question_stays_open(desk):
    from threads.errors import InvalidAnswer

    desk.say("t-ask-bad", "show order")
    for bad in ({"kind": "choice", "index": 0}, {"kind": "open", "text": ""}, "4411"):
        with pytest.raises(InvalidAnswer):
            desk.confirm("t-ask-bad", "answer", answer=bad)
    assert [p["kind"] for p in desk.waiting("t-ask-bad")] == ["ask"]


def test_a_question_past_its_timeout_closes_and_a_late_answer_is_stale(desk, settings):
    from datetime import timedelta

    from django.utils import timezone

    pause = desk.say("t-ask-late", "show order").waiting[0]
    Interrupt.objects.filter(pk=pause["id"]).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert desk.waiting("t-ask-late") == []
    assert Interrupt.objects.get(pk=pause["id"]).status == "timed_out"
    with pytest.raises(Stale):
        desk.resume("t-ask-late", pause["id"], "answer", pause["token"], {"kind": "open", "text": "4411"})


@pytest.mark.parametrize(
    ("turn", "tool"),
    [("mostre o pedido 4411", "get_order"), ("cobre 40 no pedido 4411", "charge_card"),
     ("estorne 40 do pedido 4411", "refund_card"), ("busque os pedidos do cliente c-208", "search_orders")],
)
def test_portuguese_turns_read_when_the_request_says_pt_br(desk, turn, tool):
    reply = desk.say("t-pt", turn, language="pt-BR")
    assert tool in [s["tool"] for s in reply.steps]


def test_a_portuguese_turn_under_english_is_unread(desk):
    reply = desk.say("t-pt-en", "mostre o pedido 4411")
    assert reply.steps == [] and [p["kind"] for p in reply.waiting] == ["delegate"]


def test_show_then_charge_its_total_uses_the_first_result(desk):
    reply = desk.say("t-result", "show order 5001 and charge its total")
    pause = reply.waiting[0]
    assert pause["tool"] == "charge_card"
    amount = next(a for a in pause["arguments"] if a["name"] == "amount")
    assert amount == {"name": "amount", "value": 99.9, "origin": "result:1"}
    reply = desk.confirm("t-result", "approve")
    assert "ch-5001" in reply.text
    assert shop.charges("5001")[0]["amount"] == "99.90"


def test_the_admins_language_setting_is_what_the_selector_reads(desk):
    from catalogue.models import AgentSetting

    AgentSetting.objects.create(agent="Shop", language="pt-BR")
    assert "visa-0019" in desk.say("t-lang", "mostre o pedido 4411").text
    assert [p["kind"] for p in desk.say("t-lang", "show order 4411").waiting] == ["delegate"]
    # The request's own language still comes first.
    assert "visa-0019" in desk.say("t-lang", "show order 4411", language="en").text


def test_a_bare_verb_asks_which_tool_then_what_it_lacks(desk):
    reply = desk.say("t-which", "show")
    pause = reply.waiting[0]
    assert pause["kind"] == "ask" and pause["argument"] is None
    assert pause["ask"]["choices"] == ["get_order", "read_inbox", "search_orders"]
    reply = desk.answer("t-which", index=0)
    assert (reply.waiting[0]["kind"], reply.waiting[0]["argument"]) == ("ask", "order_id")
    reply = desk.answer("t-which", text="5001")
    assert "mc-4420" in reply.text and reply.waiting == []
    assert reply.steps[0]["tool"] == "get_order" and reply.steps[0]["kind"] == "read"


def test_two_questions_on_one_step_are_two_pauses(desk):
    first = desk.say("t-two-asks", "refund").waiting[0]
    assert first["argument"] == "order_id"
    second = desk.answer("t-two-asks", text="4412").waiting[0]
    assert second["argument"] == "amount" and second["id"] != first["id"]
    reply = desk.answer("t-two-asks", text="15.50")
    assert [p["tool"] for p in reply.waiting] == ["refund_card"]
    assert {a["name"]: a["origin"] for a in reply.waiting[0]["arguments"]} == {"amount": "reply", "order_id": "reply"}


@pytest.mark.parametrize(("language", "typed", "value"), [("pt-BR", "R$ 15,50", 15.5), ("en", "$15.50", 15.5),
                                                           ("en", "15", 15)])
def test_a_typed_answer_takes_the_schemas_type(desk, language, typed, value):
    desk.say("t-typed", "refund" if language == "en" else "estorne", language=language)
    desk.answer("t-typed", text="4412")
    reply = desk.answer("t-typed", text=typed)
    amount = next(a for a in reply.waiting[0]["arguments"] if a["name"] == "amount")
    assert amount == {"name": "amount", "value": value, "origin": "reply"}


def test_a_portuguese_charge_pauses_in_portuguese_words(desk):
    reply = desk.say("t-pt-words", "cobre 40 no pedido 4411", language="pt-BR")
    pause = reply.waiting[0]
    assert pause["question"] == "Cobrar no cartão?"  # the shop's own pt-BR confirm
    assert pause["labels"] == {"amount": "Valor", "order_id": "Pedido"}  # read back through the vocabulary
    assert reply.text == TEXTS["pt-BR"]["waiting_confirm"].format(question="Cobrar no cartão?")
    assert "charge_card" not in reply.text
    done = desk.confirm("t-pt-words", "approve")
    assert done.text.startswith("Feito: cobrar cartão.") and "charge_id" not in done.text
    assert shop.charges("4411")


def test_a_refusal_in_a_portuguese_thread_is_portuguese(desk):
    from catalogue.models import Withdrawal

    pause = desk.say("t-pt-refused", "cobre 40 no pedido 4411", language="pt-BR").waiting[0]
    Withdrawal.objects.create(agent="Shop", tool="charge_card", reason="test")
    reply = desk.resume("t-pt-refused", pause["id"], "approve", pause["token"])
    assert reply.refusals[0]["sentence"] == "Cobrar cartão foi retirada por um operador, então não vou usá-la."
    assert reply.refusals[0]["rule"] == "withdrawn"


def test_a_failed_tool_says_what_failed_without_its_exception_class(desk, monkeypatch):
    monkeypatch.setenv("STALWART_SHOP_FAULTS", "charge_card=fail")
    desk.say("t-failed-words", "charge 40 to order 4411")
    reply = desk.confirm("t-failed-words", "approve")
    assert reply.steps[0]["status"] == "failed"
    assert reply.text.startswith("Charge card failed: charge_card failed (fault switch)")
    assert "RuntimeError" not in reply.text
