"""The hot reads written out (``threads.engine.rows``) make the instances the
ORM makes: every column, with the same types (aware datetimes, JSON, booleans),
on SQLite and on PostgreSQL."""

from __future__ import annotations

from typing import Any

import pytest
from django.db.models import Model

from threads.engine import open_pauses
from threads.engine.pauses import thread_pauses
from threads.engine.reads import steps_read
from threads.models import Interrupt, Run, Step


def columns(obj: Model | None) -> dict[str, Any] | None:
    if obj is None:
        return None
    return {f.attname: (type(getattr(obj, f.attname)), getattr(obj, f.attname))
            for f in obj._meta.concrete_fields}


def test_a_threads_pauses_read_out_as_the_orm_reads_them(desk) -> None:  # type: ignore[no-untyped-def]
    desk.say("t-1", "charge 40 to order 4411 and then archive order 4412")
    desk.confirm("t-1", "approve")  # the charge runs: its step has a result; the archive waits
    Interrupt.objects.create(  # and one with no step (a question to the team), older than the archive's
        id="p-stepless", thread_id=desk.key("t-1"), run=Run.objects.get(), step=None, agent="shop", kind="delegate",
        tool="", payload={"question": "Which one?", "arguments": [], "choices": ["answer", "reject"]})
    Interrupt.objects.filter(pk="p-stepless").update(created_at="2026-01-01T00:00:00Z")

    orm = list(Interrupt.objects.select_related("step")
               .filter(thread_id=desk.key("t-1"), status=Interrupt.Status.OPEN).order_by("created_at", "id"))
    written = thread_pauses(desk.key("t-1"))

    assert [p.id for p in written] == [p.id for p in orm] == ["p-stepless", orm[1].id]
    assert orm[1].tool == "archive_order" and orm[1].step.status == "waiting"
    for mine, theirs in zip(written, orm, strict=True):
        assert columns(mine) == columns(theirs)
        assert columns(mine.step) == columns(theirs.step)
        assert mine._state.adding is False and mine._state.db == theirs._state.db
    assert written[0].step is None
    assert written[0].created_at.tzinfo is not None
    assert [p.id for p in open_pauses(desk.key("t-1"))] == ["p-stepless", orm[1].id]


def test_a_runs_steps_read_out_as_the_orm_reads_them(desk) -> None:  # type: ignore[no-untyped-def]
    desk.say("t-1", "charge 40 to order 4411 and then archive order 4412")
    desk.confirm("t-1", "approve")
    run = Run.objects.get()
    Step.objects.filter(run=run, index=2).update(irreversible=True)  # a true boolean to read as well
    orm = list(Step.objects.filter(run=run).order_by("index"))
    assert orm[0].result == {"charge_id": "ch-4411", "order_id": "4411", "amount": 40}  # JSON to read
    assert [s.irreversible for s in orm] == [False, True]

    steps, verdicts = steps_read(run)

    assert [columns(s) for s in steps] == [columns(s) for s in orm]
    assert verdicts == {orm[0].pk: "verified_applied"}
    assert all(s.run is run for s in steps)


def test_the_run_read_with_its_steps_is_made_current(desk) -> None:  # type: ignore[no-untyped-def]
    desk.say("t-1", "charge 40 to order 4411")
    held = Run.objects.get()
    Run.objects.filter(pk=held.pk).update(status=Run.Status.CANCELLED, health="stuck")  # another worker's change

    steps, _ = steps_read(held, run_too=True)

    assert columns(held) == columns(Run.objects.get())
    assert held.status == "cancelled" and held.health == "stuck"
    assert [s.tool for s in steps] == ["charge_card"]


def test_a_run_with_no_steps_is_still_made_current_and_a_missing_one_is_said(desk) -> None:  # type: ignore[no-untyped-def]
    desk.say("t-1", "charge 40 to order 4411")
    held = Run.objects.get()
    Step.objects.all().delete()
    Run.objects.filter(pk=held.pk).update(status=Run.Status.DONE)

    assert steps_read(held, run_too=True) == ([], {})
    assert held.status == "done"

    Run.objects.all().delete()
    with pytest.raises(Run.DoesNotExist):
        steps_read(held, run_too=True)


def test_a_runs_answer_is_read_in_one_statement_as_the_orm_reads_it(desk) -> None:  # type: ignore[no-untyped-def]
    """``reads.answer_read``: the run, its steps with their verdicts and its
    thread's open pauses with their steps, one UNION ALL, column for column
    as the ORM's three reads give them."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from threads.engine.reads import answer_read
    from threads.models import Receipt

    desk.say("t-1", "charge 40 to order 4411 and then archive order 4412")
    desk.confirm("t-1", "approve")  # the charge ran (a verdict); the archive waits
    run = Run.objects.get()
    Interrupt.objects.create(  # a stepless pause of the thread, older than the archive's
        id="p-stepless", thread_id=desk.key("t-1"), run=run, step=None, agent="shop", kind="delegate",
        tool="", payload={"question": "Which one?", "arguments": [], "choices": ["answer", "reject"]})
    Interrupt.objects.filter(pk="p-stepless").update(created_at="2026-01-01T00:00:00Z")
    Run.objects.filter(pk=run.pk).update(health="stuck")  # another worker's change: the read makes it current
    held = Run.objects.get()
    held.health = "ok"

    with CaptureQueriesContext(connection) as read:
        steps, verdicts, pauses = answer_read(held)

    assert len(read.captured_queries) == 1
    assert columns(held) == columns(Run.objects.get()) and held.health == "stuck"
    orm_steps = list(Step.objects.filter(run=run).order_by("index"))
    assert [columns(s) for s in steps] == [columns(s) for s in orm_steps]
    assert all(s.run is held for s in steps)
    assert verdicts == {s.pk: Receipt.objects.filter(step=s).exclude(verdict__in=["", "pending"])
                        .latest("created_at").verdict for s in orm_steps if s.status == "succeeded"}
    orm = list(Interrupt.objects.select_related("step")
               .filter(thread_id=desk.key("t-1"), status=Interrupt.Status.OPEN).order_by("created_at", "id"))
    assert [p.id for p in pauses] == [p.id for p in orm] == ["p-stepless", orm[1].id]
    for mine, theirs in zip(pauses, orm, strict=True):
        assert columns(mine) == columns(theirs) and columns(mine.step) == columns(theirs.step)
    assert pauses[0].step is None
    Run.objects.all().delete()
    with pytest.raises(Run.DoesNotExist):
        answer_read(held)


@pytest.mark.parametrize("by_id", [True, False])
def test_a_pause_is_read_with_its_run_and_the_runs_steps_as_the_orm_reads_them(desk, by_id: bool) -> None:  # type: ignore[no-untyped-def]
    """``reads.pause_steps_read``, the answer's first read: the pause (by id,
    or the thread's oldest open one not past its deadline), its run, the run's
    steps in order and the thread's session hash, as the ORM's reads give them."""
    from datetime import timedelta

    from django.utils import timezone

    from threads.engine.reads import pause_steps_read
    from threads.models import Thread

    desk.say("t-1", "charge 40 to order 4411 and then archive order 4412")
    desk.confirm("t-1", "approve")  # the charge ran; the archive waits
    run = Run.objects.get()
    Interrupt.objects.create(  # older, but past its deadline: not the oldest open one an answer takes
        id="p-overdue", thread_id=desk.key("t-1"), run=run, step=None, agent="shop", kind="delegate", tool="",
        payload={"question": "Which one?", "arguments": [], "choices": ["answer", "reject"]},
        expires_at=timezone.now() - timedelta(seconds=1))
    Interrupt.objects.filter(pk="p-overdue").update(created_at="2026-01-01T00:00:00Z")
    orm = Interrupt.objects.select_related("run").get(thread_id=desk.key("t-1"), tool="archive_order")

    found = pause_steps_read(desk.key("t-1"), orm.id if by_id else None)

    assert found is not None
    pause, steps, owner = found
    assert columns(pause) == columns(orm) and columns(pause.run) == columns(orm.run)
    orm_steps = list(Step.objects.filter(run=run).order_by("index"))
    assert [columns(s) for s in steps] == [columns(s) for s in orm_steps]
    assert pause.step is steps[1] and all(s.run is pause.run for s in steps)
    assert owner == Thread.objects.get(pk=desk.key("t-1")).session_hash
    assert pause_steps_read(desk.key("t-1"), "p-none") is None
    assert pause_steps_read("t-none", None) is None
