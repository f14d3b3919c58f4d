"""Service tier: a team's own steps (docs/agent-file.md, "Team steps (steps:)") through the Python API.

The functions and their counting tools are in ``tests/threads/team_flows.py``;
``sends()`` lists every send a tool really made.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from examples.shop import tools as shop
from tests.threads import team_flows
from tests.threads.team_flows import agent_yaml, sends
from threads.errors import Stale
from threads.models import Event, Interrupt, JournalEntry, Run
from threads.texts import text

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def team(db: None, shop_dir: Path, tmp_path: Path):  # type: ignore[no-untyped-def]
    from stalwart_site.desk import Desk

    def make(steps: str) -> Desk:
        path = tmp_path / f"{steps}.yaml"
        path.write_text(agent_yaml(steps), encoding="utf-8")
        return Desk(path)

    return make


def by_tool_order(waiting):  # type: ignore[no-untyped-def]
    return {next(a["value"] for a in p["arguments"] if a["name"] == "order_id"): p for p in waiting}


def test_call_all_with_two_charges_waits_on_two_pauses_each_answered_by_its_own_id(team):
    desk = team("two_charges")
    reply = desk.say("t-two", "charge both")
    assert sends() == [] and shop.charges() == []
    assert len(reply.waiting) == 2 and {p["kind"] for p in reply.waiting} == {"confirm"}
    pauses = by_tool_order(reply.waiting)
    first, second = pauses["4411"], pauses["5001"]
    assert first["id"] != second["id"] and first["step"] == 1 and second["step"] == 2
    assert reply.text == "\n".join([text("en", "waiting_confirm", question="Charge card?")] * 2)

    # Answer the second: only the second is charged; the first waits on, the same id and token.
    after_second = desk.resume("t-two", second["id"], "approve", second["token"])
    assert sends() == ["charge_card:5001"]
    assert [c["order_id"] for c in shop.charges()] == ["5001"]
    assert [(p["id"], p["token"]) for p in after_second.waiting] == [(first["id"], first["token"])]
    assert after_second.data["status"] == "waiting"

    # Answer the first: the step ends with both results, each order charged once.
    done = desk.resume("t-two", first["id"], "approve", first["token"])
    assert done.text == "charged ch-4411 and ch-5001"
    assert done.waiting == [] and done.data["status"] == "done"
    assert sorted(sends()) == ["charge_card:4411", "charge_card:5001"]
    assert sorted(c["order_id"] for c in shop.charges()) == ["4411", "5001"]
    entries = list(JournalEntry.objects.order_by("seq").values_list("seq", "tool", "outcome"))
    assert entries == [(1, "charge_card", "succeeded"), (2, "charge_card", "succeeded")]
    for event in Event.objects.all():
        assert json.loads(json.dumps(event.data)) == event.data
    with pytest.raises(Stale):
        desk.resume("t-two", first["id"], "approve", first["token"])
    assert len(sends()) == 2


def test_answering_in_the_other_order_charges_each_once_too(team):
    desk = team("two_charges")
    pauses = by_tool_order(desk.say("t-order", "charge both").waiting)
    desk.resume("t-order", pauses["4411"]["id"], "approve", pauses["4411"]["token"])
    assert sends() == ["charge_card:4411"]
    done = desk.resume("t-order", pauses["5001"]["id"], "approve", pauses["5001"]["token"])
    assert done.text == "charged ch-4411 and ch-5001"
    assert sends() == ["charge_card:4411", "charge_card:5001"]


def test_a_skipped_call_gives_none_and_the_rest_go_on(team):
    desk = team("two_charges")
    pauses = by_tool_order(desk.say("t-skip", "charge both").waiting)
    desk.resume("t-skip", pauses["4411"]["id"], "skip", pauses["4411"]["token"])
    done = desk.resume("t-skip", pauses["5001"]["id"], "approve", pauses["5001"]["token"])
    assert done.text == "charged skipped and ch-5001"
    assert sends() == ["charge_card:5001"]


def test_cancel_all_ends_the_run_and_closes_the_other_pause(team):
    desk = team("two_charges")
    pauses = by_tool_order(desk.say("t-cancel", "charge both").waiting)
    reply = desk.resume("t-cancel", pauses["5001"]["id"], "cancel_all", pauses["5001"]["token"])
    assert reply.waiting == [] and reply.data["status"] == "cancelled"
    assert Interrupt.objects.get(pk=pauses["4411"]["id"]).status == "cancelled"
    with pytest.raises(Stale):
        desk.resume("t-cancel", pauses["4411"]["id"], "approve", pauses["4411"]["token"])
    assert sends() == [] and shop.charges() == []


def test_a_read_runs_at_once_and_is_not_sent_again_on_resume(team):
    desk = team("read_then_charge")
    reply = desk.say("t-read", "charge it", context={"order": "4411"}, language="en")
    assert sends() == ["get_order:4411"]
    pause = reply.waiting[0]
    assert pause["arguments"] == [{"name": "amount", "value": 40.0, "origin": "computed"},
                                  {"name": "order_id", "value": "4411", "origin": "computed"}]
    done = desk.resume("t-read", pause["id"], "approve", pause["token"])
    assert done.text == "en: 4411 ch-4411"
    assert sends() == ["get_order:4411", "charge_card:4411"]  # the read came from the journal


def test_a_function_that_calls_differently_on_replay_is_stopped_with_a_clear_error(team):
    team_flows.CHANGING["runs"] = 0
    desk = team("changes_its_mind")
    pause = desk.say("t-differ", "charge").waiting[0]
    reply = desk.resume("t-differ", pause["id"], "approve", pause["token"])
    assert "same calls in the same order" in reply.text
    assert 'charge_card(amount=40, order_id="5001")' in reply.text
    assert 'charge_card(amount=40, order_id="4411")' in reply.text
    assert reply.data["status"] == "done" and reply.waiting == []
    assert sends() == []  # neither the journaled call nor the new one was sent


def test_a_blanket_except_in_the_function_cannot_swallow_the_wait(team):
    desk = team("swallows_everything")
    reply = desk.say("t-swallow", "charge")
    assert len(reply.waiting) == 1 and "swallowed" not in reply.text
    done = desk.confirm("t-swallow", "approve")
    assert done.text == "ch-4411"


def test_a_function_that_raises_ends_the_run_with_its_error(team):
    desk = team("breaks")
    reply = desk.say("t-breaks", "go")
    assert reply.text == text("en", "steps_failed", error="ValueError: no such thing")
    assert Run.objects.get(pk=reply.data["run"]).status == "done"


def test_privileges_reach_the_team_steps_check(team):
    desk = team("refund_one")
    refused = desk.say("t-priv1", "refund")
    assert refused.text == "not refunded" and refused.refusals[0]["rule"] == "privilege:refunds"
    allowed = desk.say("t-priv2", "refund", privileges=["refunds"])
    assert allowed.waiting[0]["tool"] == "refund_card"


def test_two_answers_at_once_charge_each_order_once_and_the_run_ends(team):
    import threading

    from django.db import connection

    desk = team("two_slow_charges")
    waiting = desk.say("t-race", "charge both").waiting
    assert len(waiting) == 2
    barrier = threading.Barrier(2)
    replies, errors = [], []

    def answer(pause):  # type: ignore[no-untyped-def]
        try:
            barrier.wait()
            replies.append(desk.resume("t-race", pause["id"], "approve", pause["token"]))
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connection.close()

    workers = [threading.Thread(target=answer, args=(p,)) for p in waiting]
    for w in workers:
        w.start()
    for w in workers:
        w.join(30)
    assert errors == []
    assert sorted(sends()) == ["charge_card:4411", "charge_card:5001"]
    run = Run.objects.get(pk=replies[0].data["run"])
    assert run.status == "done" and run.replay_owner == ""
    assert Interrupt.objects.filter(thread_id="t-race", status="open").count() == 0
    said = [m.text for m in run.messages.filter(role="assistant")]
    assert sum(t.endswith("charged ch-4411 and ch-5001") for t in said) == 1, said


def test_an_unknown_outcome_waits_for_a_person_and_is_never_resent(team, monkeypatch):
    desk = team("charge_then_read")
    pause = desk.say("t-unknown", "charge").waiting[0]
    monkeypatch.setenv("STALWART_SHOP_FAULTS", "charge_card=lose_reply")
    unknown = desk.resume("t-unknown", pause["id"], "approve", pause["token"])
    assert [p["kind"] for p in unknown.waiting] == ["outcome_unknown"]
    assert sends() == ["charge_card:4411"]
    monkeypatch.delenv("STALWART_SHOP_FAULTS")
    done = desk.resume("t-unknown", unknown.waiting[0]["id"], "happened", unknown.waiting[0]["token"])
    assert done.text.splitlines() == [text("en", "happened", tool="plain charge"), "charged; paid"]
    assert done.data["status"] == "done"
    assert sends() == ["charge_card:4411", "get_order:4411"]


def test_did_not_happen_asks_again_under_a_new_id(team, monkeypatch):
    desk = team("charge_then_read")
    pause = desk.say("t-again", "charge").waiting[0]
    monkeypatch.setenv("STALWART_SHOP_FAULTS", "charge_card=fail")
    failed = desk.resume("t-again", pause["id"], "approve", pause["token"])
    # A clean failure is an outcome: journaled as failed, the function gets None and goes on.
    assert failed.text == "not charged; unpaid" and failed.data["status"] == "done"
    monkeypatch.setenv("STALWART_SHOP_FAULTS", "charge_card=lose_reply")
    desk2 = team("charge_then_read")
    first = desk2.say("t-again2", "charge").waiting[0]
    unknown = desk2.resume("t-again2", first["id"], "approve", first["token"]).waiting[0]
    monkeypatch.delenv("STALWART_SHOP_FAULTS")
    retry = desk2.resume("t-again2", unknown["id"], "did_not_happen", unknown["token"]).waiting
    assert [p["kind"] for p in retry] == ["confirm"] and retry[0]["id"] not in (first["id"], unknown["id"])
    run_id = Interrupt.objects.get(pk=first["id"]).run_id
    assert list(JournalEntry.objects.filter(run_id=run_id).values_list("seq", "outcome")) == [(1, "")]
    # The person said it did not happen, but the reply had only been lost: the shop
    # refuses the second charge, the call fails cleanly, and nothing is charged twice.
    done = desk2.resume("t-again2", retry[0]["id"], "approve", retry[0]["token"])
    assert done.text == "not charged; paid"
    assert len([c for c in shop.charges("4411") if c["kind"] == "charge"]) == 1
    assert sends()[2:] == ["charge_card:4411", "charge_card:4411", "get_order:4411"]  # after the first run's two
