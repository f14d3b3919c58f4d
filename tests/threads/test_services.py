"""The engine's doors and state machines over a real database, with runs,
steps and pauses made by builders, not by the selector."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from examples.shop import tools as shop
from tests.threads.builders import SESSION, make_pause, make_run, make_step, make_thread, make_waiting
from threads.engine import (
    ReplayKey,
    call_propose,
    pause_answer,
    pause_edit,
    replay_delivered,
    run_read,
    thread_rollback,
)
from threads.engine.lifecycle import LifecycleError, run_status_set, step_status_set
from threads.engine.pauses import pause_close, present
from threads.engine.unit import unit
from threads.errors import CallRefused, InvalidAnswer, InvalidDecision, Stale
from threads.models import Event, Interrupt, Replay, Run, Step
from threads.selectors import session_hash

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _shop(shop_dir):  # type: ignore[no-untyped-def]
    """Each test has the shop's three orders in its own data folder."""
    return shop_dir


def answer(pause: dict, decision: str, **kwargs) -> dict:  # type: ignore[no-untyped-def, type-arg]
    """The answer as the HTTP door renders it (``Answer.to_json()``)."""
    return pause_answer(thread_id="t-1", pause_id=pause["id"], decision=decision,
                        token=kwargs.pop("token", pause["token"]), **kwargs).to_json()


def test_approve_runs_the_call_once_and_the_answer_is_what_committed():
    pause = make_waiting("charge_card", order_id="4411", amount=40)
    done = answer(pause, "approve", by="ana", via=Interrupt.Via.CONSOLE)
    assert done["status"] == "done" and done["waiting"] == [] and "ch-4411" in done["reply"]["text"]
    assert [(s["tool"], s["status"], s["verdict"]) for s in done["steps"]] == [
        ("charge_card", "succeeded", "verified_applied")]
    assert len(shop.charges("4411")) == 1
    row = Interrupt.objects.get(pk=pause["id"])
    assert (row.status, row.decision, row.answered_by, row.answered_via) == ("answered", "approve", "ana", "console")
    assert {k: v for k, v in run_read(done["run"]).to_json().items() if k != "reply"} == {
        k: v for k, v in done.items() if k != "reply"}


def test_a_second_answer_is_409_with_what_became_of_the_pause_and_nothing_runs_twice():
    pause = make_waiting("charge_card", order_id="4411", amount=40)
    answer(pause, "approve", by="ana")
    with pytest.raises(Stale) as lost:
        answer(pause, "skip")
    body = lost.value.body()
    assert body["error"] == "interrupt_stale" and body["waiting"] == []
    assert (body["interrupt"]["status"], body["interrupt"]["decision"], body["interrupt"]["answered_by"]) == (
        "answered", "approve", "ana")
    assert len(shop.charges("4411")) == 1


@pytest.mark.parametrize("token", ["", "0" * 64])
def test_another_token_is_409_and_the_pause_stays_open(token):
    pause = make_waiting("charge_card", order_id="4411", amount=40)
    with pytest.raises(Stale):
        answer(pause, "approve", token=token)
    assert Interrupt.objects.get(pk=pause["id"]).status == "open" and shop.charges() == []


def test_a_decision_the_kind_does_not_take_is_422_and_changes_nothing():
    pause = make_waiting("charge_card", order_id="4411", amount=40)
    with pytest.raises(InvalidDecision):
        answer(pause, "happened")
    assert Interrupt.objects.get(pk=pause["id"]).status == "open"
    assert Run.objects.get().status == "waiting"


def test_skip_leaves_the_call_out_and_cancel_all_undoes_what_the_run_did():
    skipped = answer(make_waiting("archive_order", order_id="4412"), "skip")
    assert [s["status"] for s in skipped["steps"]] == ["skipped"] and skipped["status"] == "done"

    thread = make_thread("t-2")
    run = make_run(thread)
    charge, archive = make_step(run, "charge_card", order_id="4411", amount=40), make_step(run, "archive_order",
                                                                                        order_id="4412")
    first = pause_answer(thread_id="t-2", pause_id=make_pause(charge).id, decision="approve",
                         token=run_read(run.id).waiting[0].token).to_json()
    assert [s["status"] for s in first["steps"]] == ["succeeded", "waiting"]
    waiting = first["waiting"][0]
    undone = pause_answer(thread_id="t-2", pause_id=waiting["id"], decision="cancel_all",
                          token=waiting["token"]).to_json()
    assert [s["status"] for s in undone["steps"]][:2] == ["undone", "cancelled"]
    assert undone["status"] == "cancelled" and undone["rollback"]["undone"][0]["tool"] == "charge_card"
    assert shop.get_order("4411")["status"] == "refunded" and archive.pk is not None


def test_answering_one_pause_leaves_the_threads_other_pauses_open():
    thread = make_thread()
    one, other = make_waiting("archive_order", thread=thread, order_id="4412"), make_waiting(
        "charge_card", thread=thread, order_id="4411", amount=40)
    done = answer(one, "skip")
    assert [p["id"] for p in done["waiting"]] == [other["id"]]
    assert Interrupt.objects.get(pk=other["id"]).status == "open"


def test_approving_a_later_step_of_a_run_whose_earlier_step_waits_sends_nothing_until_that_one_is_answered():
    run = make_run()
    first, second = make_step(run, "archive_order", order_id="4412"), make_step(run, "charge_card", order_id="4411",
                                                                              amount=40)
    waits_first, waits_second = present(make_pause(first)), present(make_pause(second))
    done = answer(waits_second, "approve")
    assert [p["id"] for p in done["waiting"]] == [waits_first["id"]]
    assert (Step.objects.get(pk=second.pk).status, Step.objects.get(pk=first.pk).status) == ("approved", "waiting")
    assert shop.charges("4411") == []  # approved, not sent: the run's earlier step still waits
    done = answer(waits_first, "approve")
    assert done["status"] == "done" and done["waiting"] == []
    assert [(s["tool"], s["status"]) for s in done["steps"]] == [("archive_order", "succeeded"),
                                                                  ("charge_card", "succeeded")]
    assert len(shop.charges("4411")) == 1


def test_the_lifecycle_refuses_a_move_it_has_not_got():
    run = make_run()
    step = make_step(run, "get_order", order_id="4411")
    with unit(run.thread_id), pytest.raises(LifecycleError, match="cannot go from 'planned' to 'approved'"):
        step_status_set(step, Step.Status.APPROVED)
    with unit(run.thread_id), pytest.raises(LifecycleError):
        run_status_set(run, Run.Status.DONE)
        run_status_set(run, Run.Status.WAITING)  # a run that ended waits on nothing
    with pytest.raises(LifecycleError, match="unit of work"):
        run_status_set(run, Run.Status.DONE)  # outside any transaction


def test_a_pause_closes_once_with_the_one_answered_event_shape():
    pause = make_pause(make_step(make_run(), "archive_order", order_id="4412"))
    with unit("t-1") as u:
        assert pause_close(u, pause, status=Interrupt.Status.CANCELLED, by="operator") is True
        assert pause_close(u, pause, status=Interrupt.Status.ANSWERED, decision="approve") is False
    closed = Event.objects.filter(type="answered").get()
    assert closed.data == {"interrupt": pause.id, "status": "cancelled", "decision": None, "by": "operator"}


def test_a_proposed_call_goes_through_the_same_check_with_its_origin():
    read = call_propose(thread_id="mcp-1", session_hash=session_hash(SESSION), tool="get_order",
                        arguments={"order_id": "4411"})
    assert read.waiting == [] and read.outcome().status == "done" and read.outcome().result["status"] == "unpaid"
    write = call_propose(thread_id="mcp-1", session_hash=session_hash(SESSION), tool="charge_card",
                         arguments={"order_id": "4411", "amount": 40})
    pause = write.outcome().pause
    assert write.outcome().status == "waiting" and pause is not None
    assert pause.reasons == ["write", "argument_origin: amount", "argument_origin: order_id"]
    assert [a["origin"] for a in pause.arguments] == ["agent", "agent"] and shop.charges() == []
    # A tool the catalogue does not list, or arguments its schema does not name, are refused before
    # anything is stored; a proposed call sets nothing aside either (a person's new turn would).
    for tool, arguments, rule in [("no_such_tool", {}, "unknown_tool"),
                                  ("charge_card", {"order_id": "4411", "amount": 40, "approved_by": "ana"},
                                   "arguments"),
                                  ("charge_card", {"order_id": "44\x0011", "amount": 40}, "arguments"),
                                  ("charge_card", {"order_id": "4411", "amount": float("nan")}, "arguments")]:
        with pytest.raises(CallRefused) as refused:
            call_propose(thread_id="mcp-1", session_hash=session_hash(SESSION), tool=tool, arguments=arguments)
        assert refused.value.rule == rule, (tool, arguments)
    assert Run.objects.count() == 2 and Interrupt.objects.get(pk=pause.id).status == "open"


def charge_key(**overrides: object) -> ReplayKey:
    return ReplayKey(**{"door": "mcp", "kind": "call", "caller": "mcp-1", "identity": "charge_card 4411 40",
                        "fingerprint": "charge_card 4411 40", **overrides})  # type: ignore[arg-type]


def test_the_same_proposal_again_is_the_first_ones_run_and_a_delivered_one_is_a_new_call():
    first = call_propose(thread_id="mcp-1", session_hash=session_hash(SESSION), tool="charge_card",
                         arguments={"order_id": "4411", "amount": 40}, replay=charge_key())
    again = call_propose(thread_id="mcp-1", session_hash=session_hash(SESSION), tool="charge_card",
                         arguments={"order_id": "4411", "amount": 40}, replay=charge_key())
    assert first.replayed is None and again.replayed is not None and again.replayed.id == first.replay_id
    assert again.run == first.run and Interrupt.objects.count() == 1 and Run.objects.count() == 1
    assert replay_delivered(first.replay_id)
    third = call_propose(thread_id="mcp-1", session_hash=session_hash(SESSION), tool="charge_card",
                         arguments={"order_id": "4411", "amount": 40}, replay=charge_key())
    assert third.replayed is None and third.run != first.run and Interrupt.objects.count() == 2


def test_a_journal_row_commits_with_its_run_and_its_pause_or_neither_does(monkeypatch):
    from threads.engine import services

    def fails(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the run's first step could not be stored")

    monkeypatch.setattr(services, "advance_segment", fails)
    with pytest.raises(RuntimeError):
        call_propose(thread_id="mcp-1", session_hash=session_hash(SESSION), tool="charge_card",
                     arguments={"order_id": "4412", "amount": 5}, replay=charge_key())
    assert (Run.objects.count(), Interrupt.objects.count(), Replay.objects.count()) == (0, 0, 0)


def test_a_rollback_closes_what_waits_so_a_later_answer_is_stale():
    pause = make_waiting("charge_card", order_id="4411", amount=40)
    done = thread_rollback(thread_id="t-1", by="operator")
    assert done["waiting"] == [] and done["runs"] == [Run.objects.get().id]
    assert Interrupt.objects.get(pk=pause["id"]).status == "cancelled"
    with pytest.raises(Stale):
        answer(pause, "approve")
    assert shop.charges() == [] and Run.objects.get().status == "cancelled"


def test_an_edit_the_check_refuses_leaves_the_pause_open_and_says_why():
    pause = make_waiting("charge_card", order_id="4411", amount=40)
    with pytest.raises(InvalidAnswer) as refused:
        pause_edit(pause_id=pause["id"], token=pause["token"], values={"amount": "forty"}, by="ana")
    assert refused.value.body()["rule"] == "arguments" and "amount" in refused.value.body()["detail"]
    assert Interrupt.objects.get(pk=pause["id"]).status == "open" and Run.objects.get().status == "waiting"
    edited = pause_edit(pause_id=pause["id"], token=pause["token"], values={"amount": "35"}, by="ana").to_json()
    again = edited["waiting"][0]
    assert again["id"] != pause["id"] and {"name": "amount", "value": 35, "origin": "staff"} in again["arguments"]
    assert Interrupt.objects.get(pk=pause["id"]).status == "edited" and shop.charges() == []


def test_an_answer_takes_the_threads_lock_before_any_other_row(settings):
    pause = make_waiting("archive_order", order_id="4412")
    with CaptureQueriesContext(connection) as sent:
        answer(pause, "skip")
    statements = [q["sql"] for q in sent.captured_queries]
    begin = next(i for i, sql in enumerate(statements) if sql.upper().startswith("BEGIN"))
    first = statements[begin + 1]
    if connection.vendor == "postgresql":
        assert first.startswith('SELECT 1 FROM "threads_thread" WHERE "id" = ') and first.endswith("FOR UPDATE"), first
    else:  # SQLite's BEGIN IMMEDIATE is the database's write lock
        assert statements[begin].upper() == "BEGIN IMMEDIATE"
