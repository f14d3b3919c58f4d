"""What a pause and a resume cost the database, pinned.

Counted on a real transaction (``transaction=True``): every statement Django
sends, BEGIN and COMMIT included, and the transactions that write (each
COMMIT, and each write sent outside a transaction, which commits on its
own). The reads that find a pause and the answer read after the last commit
(``threads.engine.reads.run_answer``) are autocommit SELECTs: counted as
statements, not as commits. Run on SQLite and on PostgreSQL (``DATABASE_URL``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.conftest import SHOP

# The budgets: a pause in one transaction that writes; a resume in two (the
# claim with its decision and the call's receipt, before the call is sent;
# the call's outcome, the events and the reply, after), beside the reads
# that find the pause and the answer read after the last commit. BEGIN and
# COMMIT are counted. Each transaction that writes a thread's rows takes the
# thread's lock first (one statement on PostgreSQL; SQLite's BEGIN IMMEDIATE
# holds the database's), and PostgreSQL numbers a transaction's events and
# stores them in one statement, SQLite in two (an UPDATE, then the INSERT).
BUDGETS = {  # vendor: (pause, resume, a turn that sets a pause aside)
    "postgresql": (10, 19, 14),
    "sqlite": (11, 19, 15),
}
PAUSE_COMMITS, RESUME_COMMITS = 1, 2


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
        """Transactions that wrote: each COMMIT, and each write sent on its own."""
        return self.autocommits + sum(1 for s in self.statements if s.upper().startswith("COMMIT"))

    def __str__(self) -> str:
        return "\n".join(s[:140] for s in self.statements)


def reads(sql: str) -> bool:
    """A SELECT, or a WITH whose parts write nothing (a thread's pauses found first: ``pauses.thread_pauses_with``)."""
    upper = sql.upper()
    return upper.startswith("SELECT") or (upper.startswith("WITH") and not re.search(r"\b(INSERT|UPDATE|DELETE)\b", upper))


@contextmanager
def cost() -> Iterator[Cost]:
    """Count what the block sends; a statement outside any transaction commits on its own."""
    counted = Cost()

    def watch(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        if not connection.in_atomic_block and not sql.upper().startswith(TRANSACTION_CONTROL) and not reads(sql):
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


def test_an_approval_is_written_with_its_claim(shop_desk) -> None:  # type: ignore[no-untyped-def]
    """The resume's first unit reads the pause with its run and the run's
    steps once, and writes the approved step once: approved and claimed
    ``running`` in one UPDATE (``lifecycle.STEP_SOURCES``: running from waiting)."""
    shop_desk.say("t-1", "charge 40 to order 4411")
    with cost() as resume:
        shop_desk.confirm("t-1", "approve")
    begin = next(i for i, sql in enumerate(resume.statements) if sql.startswith("BEGIN"))
    first = resume.statements[begin:next(i for i, sql in enumerate(resume.statements) if sql.startswith("COMMIT"))]
    step_writes = [sql for sql in first if sql.startswith('UPDATE "threads_step"')]
    assert len(step_writes) == 1 and "'running'" in step_writes[0], str(resume)
    assert sum('"threads_step"' in sql for sql in first if reads(sql)) == 1, str(resume)


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
    staff: list[dict[str, Any]] = []

    class Layer:
        async def group_send(self, group: str, message: dict[str, Any]) -> None:
            # The thread's group; the console's staff group hears of pauses opened and closed.
            (staff if group == events.STAFF_GROUP else sent).append(message)

    monkeypatch.setattr(events, "get_channel_layer", lambda: Layer())
    shop_desk.say("t-1", "charge 40 to order 4411")
    assert [[e["event"] for e in m["events"]] for m in sent] == [["turn", "waiting", "reply"]]
    assert [[c["change"] for c in m["changes"]] for m in staff] == [["opened"]]
    assert [e["seq"] for e in sent[0]["events"]] == [1, 2, 3]
    sent.clear()
    shop_desk.confirm("t-1", "approve")
    # The claim with the call's start; then the call's outcome with the reply.
    assert [[e["event"] for e in m["events"]] for m in sent] == [["answered", "step"], ["step", "reply"]]
    assert [e["seq"] for m in sent for e in m["events"]] == [4, 5, 6, 7]


def test_the_answer_is_read_after_the_last_commit(shop_desk) -> None:  # type: ignore[no-untyped-def]
    """The message answer is read, not carried: after the resume's last commit,
    the run with its steps and the thread's open pauses, in one read, and nothing else."""
    from threads.engine import run_read

    shop_desk.say("t-1", "charge 40 to order 4411 and then archive order 4412")
    with cost() as resume:
        reply = shop_desk.confirm("t-1", "approve")  # the charge runs; the archive waits
    assert [(s["tool"], s["status"], s.get("verdict")) for s in reply.steps] == [
        ("charge_card", "succeeded", "verified_applied"), ("archive_order", "waiting", None)]
    assert [p["tool"] for p in reply.waiting] == ["archive_order"]
    last_commit = max(i for i, sql in enumerate(resume.statements) if sql.upper().startswith("COMMIT"))
    after = resume.statements[last_commit + 1:]
    assert len(after) == 1 and reads(after[0]), str(resume)
    assert '"threads_step"' in after[0] and '"threads_interrupt"' in after[0] and "UNION ALL" in after[0]
    read_later = run_read(reply.data["run"]).to_json()
    assert {k: v for k, v in reply.data.items() if k != "reply"} == {k: v for k, v in read_later.items()
                                                                      if k != "reply"}
    assert reply.data["status"] == "waiting"


@pytest.mark.parametrize(("text", "kind"), [("charge 40 to order 4411", "confirm"), ("show order", "ask")])
def test_a_pausing_turn_stores_what_its_answer_shows(shop_desk, text: str, kind: str) -> None:  # type: ignore[no-untyped-def]
    from threads.engine import run_read
    from threads.models import Run, Step

    reply = shop_desk.say("t-1", text)
    assert [p["kind"] for p in reply.waiting] == [kind]
    run = Run.objects.get(pk=reply.data["run"])
    assert run.status == "waiting"
    assert list(Step.objects.filter(run=run).values_list("status", flat=True)) == ["waiting"]
    assert {k: v for k, v in reply.data.items() if k != "reply"} == {k: v for k, v in run_read(run.id).to_json().items()
                                                                      if k != "reply"}
