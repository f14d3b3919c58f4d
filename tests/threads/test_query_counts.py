"""What a pause and a resume cost the database, pinned (issue: pause and
resume at the price of their durable writes).

Counted on a real transaction (``transaction=True``): every statement Django
sends, BEGIN and COMMIT included, and the commits (each COMMIT, and each
statement run outside a transaction, which commits on its own). Run on
SQLite and on PostgreSQL (``DATABASE_URL``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.conftest import SHOP

# The budgets: a pause in one transaction; a resume in three (the claim with
# its decision and the call's receipt; the call's outcome, the events and the
# reply; and the read that found the pause). BEGIN and COMMIT are counted.
# PostgreSQL numbers a transaction's events and stores them in one statement,
# SQLite in two (an UPDATE, then the INSERT).
BUDGETS = {  # vendor: (pause, resume, a turn that sets a pause aside)
    "postgresql": (9, 17, 13),
    "sqlite": (10, 19, 14),
}
PAUSE_COMMITS, RESUME_COMMITS = 1, 3


def budget(which: int) -> int:
    return BUDGETS[connection.vendor][which]


TRANSACTION_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")


@dataclass
class Cost:
    statements: list[str] = field(default_factory=list)
    autocommits: int = 0

    @property
    def queries(self) -> int:
        return len(self.statements)

    @property
    def commits(self) -> int:
        return self.autocommits + sum(1 for s in self.statements if s.upper().startswith("COMMIT"))

    def __str__(self) -> str:
        return "\n".join(s[:140] for s in self.statements)


@contextmanager
def cost() -> Iterator[Cost]:
    """Count what the block sends; a statement outside any transaction commits on its own."""
    counted = Cost()

    def watch(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        if not connection.in_atomic_block and not sql.upper().startswith(TRANSACTION_CONTROL):
            counted.autocommits += 1
        return execute(sql, params, many, context)

    with connection.execute_wrapper(watch), CaptureQueriesContext(connection) as captured:
        yield counted
    counted.statements = [q["sql"] for q in captured.captured_queries]


@pytest.fixture
def shop_desk(transactional_db: None, shop_dir: Path):  # type: ignore[no-untyped-def]
    from stalwart_site.desk import Desk

    desk = Desk(SHOP)
    desk.say("warm-up", "show order 5001")  # the agent's configuration read once, as in a serving process
    return desk


def test_a_pause_is_one_transaction(shop_desk) -> None:  # type: ignore[no-untyped-def]
    with cost() as pause:
        reply = shop_desk.say("t-1", "charge 40 to order 4411")
    assert [p["tool"] for p in reply.waiting] == ["charge_card"]
    assert reply.data["status"] == "waiting"
    assert pause.queries <= budget(0), f"{pause.queries} queries:\n{pause}"
    assert pause.commits == PAUSE_COMMITS, f"{pause.commits} commits:\n{pause}"


def test_a_resume_takes_three_commits(shop_desk) -> None:  # type: ignore[no-untyped-def]
    shop_desk.say("t-1", "charge 40 to order 4411")
    with cost() as resume:
        reply = shop_desk.confirm("t-1", "approve")
    assert "ch-4411" in reply.text
    assert reply.data["status"] == "done" and reply.waiting == []
    assert [s["verdict"] for s in reply.steps] == ["verified_applied"]
    assert resume.queries <= budget(1), f"{resume.queries} queries:\n{resume}"
    assert resume.commits <= RESUME_COMMITS, f"{resume.commits} commits:\n{resume}"


def test_a_turn_that_sets_a_pause_aside_costs_little_more(shop_desk) -> None:  # type: ignore[no-untyped-def]
    first = shop_desk.say("t-1", "charge 40 to order 4411").waiting[0]["id"]
    with cost() as turn:
        reply = shop_desk.say("t-1", "charge 99.90 to order 5001")
    assert [p["tool"] for p in reply.waiting] == ["charge_card"] and reply.waiting[0]["id"] != first
    assert turn.queries <= budget(2), f"{turn.queries} queries:\n{turn}"
    assert turn.commits == 1


def test_a_transaction_publishes_its_events_once_in_order(shop_desk, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from threads.engine import events

    sent: list[dict[str, Any]] = []

    class Layer:
        async def group_send(self, group: str, message: dict[str, Any]) -> None:
            sent.append(message)

    monkeypatch.setattr(events, "get_channel_layer", lambda: Layer())
    shop_desk.say("t-1", "charge 40 to order 4411")
    assert [[e["event"] for e in m["events"]] for m in sent] == [["turn", "waiting", "reply"]]
    assert [e["seq"] for e in sent[0]["events"]] == [1, 2, 3]
    sent.clear()
    shop_desk.confirm("t-1", "approve")
    # The claim with the call's start; then the call's outcome with the reply.
    assert [[e["event"] for e in m["events"]] for m in sent] == [["answered", "step"], ["step", "reply"]]
    assert [e["seq"] for m in sent for e in m["events"]] == [4, 5, 6, 7]


def test_an_answer_built_from_what_was_written_is_the_one_read_back(shop_desk) -> None:  # type: ignore[no-untyped-def]
    """After a sent call the answer comes from the run's steps read once and
    kept current in memory; it must say what the database says."""
    from threads.engine.lifecycle import Advance
    from threads.engine.views import answer_data
    from threads.models import Run

    shop_desk.say("t-1", "charge 40 to order 4411 and then archive order 4412")
    with cost() as resume:
        reply = shop_desk.confirm("t-1", "approve")  # the charge runs; the archive waits
    assert [(s["tool"], s["status"], s.get("verdict")) for s in reply.steps] == [
        ("charge_card", "succeeded", "verified_applied"), ("archive_order", "waiting", None)]
    assert [p["tool"] for p in reply.waiting] == ["archive_order"]
    assert sum(s.startswith("SELECT") for s in resume.statements) == 3, str(resume)  # pause, steps, waiting
    run = Run.objects.get(pk=reply.data["run"])
    read_back = answer_data(Advance(run=run, reply=None, sent=True))
    held = {k: v for k, v in reply.data.items() if k not in ("reply", "not_notified")}  # the outbox's, not the run's
    assert held == {k: v for k, v in read_back.items() if k != "reply"}
    assert held["status"] == "waiting"


@pytest.mark.parametrize(("text", "kind"), [("charge 40 to order 4411", "confirm"), ("show order", "ask")])
def test_a_pausing_turn_stores_what_its_answer_shows(shop_desk, text: str, kind: str) -> None:  # type: ignore[no-untyped-def]
    """A new run's first step is checked before its rows are stored, and they
    are stored waiting: the database must say what the answer said."""
    from threads.engine.lifecycle import Advance
    from threads.engine.views import answer_data
    from threads.models import Run, Step

    reply = shop_desk.say("t-1", text)
    assert [p["kind"] for p in reply.waiting] == [kind]
    run = Run.objects.get(pk=reply.data["run"])
    assert run.status == "waiting"
    assert list(Step.objects.filter(run=run).values_list("status", flat=True)) == ["waiting"]
    read_back = answer_data(Advance(run=run, reply=None, sent=True))
    held = {k: v for k, v in reply.data.items() if k not in ("reply", "not_notified")}
    assert held == {k: v for k, v in read_back.items() if k != "reply"}
