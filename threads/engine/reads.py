"""What a door reads: a run's answer (the message answer of docs/http-api.md), a thread's open pauses.

The answer is read after the last commit of the call that made it
(``run_answer``): the run with its steps and their receipts' verdicts, and
the thread's open pauses with their steps, in one statement (``answer_read``:
the two reads joined by ``UNION ALL``). It shows exactly what committed, on
whichever worker; nothing of it is carried in memory from the transactions
before. The reads are written out from the models' metadata because they run
on every pause and resume (``threads.engine.rows``; docs/decisions.md, "The
hot reads are written out").
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from django.db import connection
from django.utils import timezone

from threads.engine.deadlines import expire_overdue
from threads.engine.pauses import THREAD_PAUSES, pause_view, thread_pauses, thread_pauses_with
from threads.engine.replays import replay_view
from threads.engine.rows import Columns, read, statement
from threads.engine.views import Answer, PauseView, Refusal, Reply, StepView
from threads.keys import thread_name
from threads.models import Interrupt, Message, Receipt, Replay, Run, Step, Thread


def open_pauses(thread_id: str) -> list[PauseView]:
    """The thread's open pauses, oldest first; those past their deadline are closed first."""
    pauses = thread_pauses(thread_id)
    if expire_overdue(pauses):
        pauses = thread_pauses(thread_id)
    return [pause_view(p) for p in pauses]


def run_answer(run: Run, *, reply: Message | None = None,
               not_notified: list[dict[str, Any]] | None = None) -> Answer:
    """The run's ``Answer`` as it is now: read, not carried. ``reply``: the
    message the call wrote; ``not_notified``: what its notices could not
    deliver at once."""
    steps, verdicts, pauses = answer_read(run)
    if expire_overdue(pauses):  # those past their deadline are closed first, then read again
        pauses = thread_pauses(run.thread_id)
    indexes = {s.pk: s.index for s in steps}  # an undo names the write it undoes, a step of the same run
    return Answer(
        thread=thread_name(run.thread_id),  # the client's name for it (its key is staff's)
        run=run.id,
        status=run.status,
        reply=Reply(id=reply.id, text=reply.text) if reply else None,
        waiting=[pause_view(p) for p in pauses],
        refusals=[Refusal(tool=s.tool, rule=s.rule, sentence=s.sentence, step=s.index)
                  for s in steps if s.status == Step.Status.REFUSED],
        rollback=run.rollback,
        steps=[step_view(s, verdicts.get(s.pk), indexes) for s in steps],
        health=run.health or "ok",
        not_notified=not_notified or [],
    )


def replayed_answer(row: Replay) -> Answer:
    """What the call a replay row stands for became, read now (``Answer.replayed`` says it is a replay)."""
    run = Run.objects.filter(pk=row.run_id).first() if row.run_id else None
    if run is None:  # a row with no run of its own (a resume's, or one kept from before its run was recorded)
        return Answer(thread=thread_name(row.thread_id), run=row.run_id, status="", reply=None,
                      waiting=open_pauses(row.thread_id) if row.thread_id else [], refusals=[], rollback=None,
                      steps=[], replayed=replay_view(row))
    return replace(run_answer(run), replayed=replay_view(row))


def stale_body(pause: Interrupt | None, thread_id: str) -> dict[str, Any]:
    """What a client that lost the race (or retried after a lost reply) needs
    to learn the outcome without a second effect (the 409 body of docs/http-api.md)."""
    body: dict[str, Any] = {"waiting": [p.to_json() for p in open_pauses(thread_id)]}
    if pause is not None:
        pause.refresh_from_db()
        body["interrupt"] = pause_view(pause).closed_json()
    return body


_STEP, _RUN = Columns(Step, "s"), Columns(Run, "r")


def _verdict_sql() -> str:
    # The step's last receipt verdict that has one, as a correlated subquery (two parameters).
    r = Columns(Receipt, "rc")
    return (f"(SELECT {r.col('verdict')} FROM {r.table} WHERE {r.col('step')} = {_STEP.col('id')}"
            f" AND {r.col('verdict')} NOT IN (%s, %s) ORDER BY {r.col('created_at')} DESC LIMIT 1)")


def _run_steps_from() -> str:
    return (f"FROM {_RUN.table} LEFT JOIN {_STEP.table} ON {_STEP.col('run')} = {_RUN.col('id')}"
            f" WHERE {_RUN.col('id')} = %s")


def _steps_sql(run_too: bool) -> str:
    verdict = _verdict_sql()
    if not run_too:
        return (f"SELECT {_STEP.select()}, {verdict} FROM {_STEP.table}"
                f" WHERE {_STEP.col('run')} = %s ORDER BY {_STEP.col('index')}")
    return f"SELECT {_STEP.select()}, {_RUN.select()}, {verdict} {_run_steps_from()} ORDER BY {_STEP.col('index')}"


_STEPS_SQL = {False: statement(lambda: _steps_sql(False)), True: statement(lambda: _steps_sql(True))}


def steps_read(run: Run, *, run_too: bool = False) -> tuple[list[Step], dict[int, str]]:
    """The run's steps in order, each with the verdict of its last receipt
    that has one (by step id), in one read (``threads.engine.rows``).
    ``run_too``: the run's own row is read in the same statement and ``run``
    made current from it, as ``refresh_from_db`` would."""
    params = ["", Receipt.Verdict.PENDING, run.pk]
    if not run_too:
        found = read(_STEPS_SQL[False](), params, [_STEP])
    else:
        found = read(_STEPS_SQL[True](), params, [_STEP, _RUN])
        if not found:
            raise Run.DoesNotExist(f"run {run.pk} does not exist")
        fresh = found[0][1]
        for f in Run._meta.concrete_fields:
            setattr(run, f.attname, getattr(fresh, f.attname))
        found = [[row[0], row[2]] for row in found if row[0] is not None]
    steps = []
    verdicts = {}
    for step, verdict in found:
        step.run = run
        steps.append(step)
        if verdict:
            verdicts[step.pk] = verdict
    return steps, verdicts


_PAUSE, _PAUSE_STEP = Columns(Interrupt, "i"), Columns(Step, "ps")


def _answer_sql() -> str:
    # The run with its steps (part 0, by index), then the thread's open pauses
    # with their steps (part 1, oldest first): one row shape, the other
    # part's columns NULL.
    def nulls(part: Columns) -> str:
        return ", ".join(["NULL"] * len(part))

    return (f"{thread_pauses_with()} SELECT {_STEP.select()}, {_RUN.select()}, {nulls(_PAUSE)}, {nulls(_PAUSE_STEP)},"
            f" {_verdict_sql()} AS verdict_, 0 AS part_, {_STEP.col('index')} AS at_, NULL AS made_, NULL AS pause_"
            f" {_run_steps_from()}"
            f" UNION ALL SELECT {nulls(_STEP)}, {nulls(_RUN)}, {_PAUSE.select()}, {_PAUSE_STEP.select()}, NULL,"
            f" 1, NULL, {_PAUSE.col('created_at')}, {_PAUSE.col('id')} FROM {THREAD_PAUSES} {_PAUSE.alias}"
            f" LEFT JOIN {_PAUSE_STEP.table} ON {_PAUSE_STEP.col('id')} = {_PAUSE.col('step')}"
            f" WHERE {_PAUSE.col('status')} = %s"
            f" ORDER BY part_, at_, made_, pause_")


_ANSWER_SQL = statement(_answer_sql)


def answer_read(run: Run) -> tuple[list[Step], dict[int, str], list[Interrupt]]:
    """What a run's answer shows, in one read: the run made current (as
    ``steps_read(run, run_too=True)``), its steps with their verdicts, and its
    thread's open pauses with their steps, oldest first (as
    ``pauses.thread_pauses``)."""
    found = read(_ANSWER_SQL(), [run.thread_id, "", Receipt.Verdict.PENDING, run.pk, Interrupt.Status.OPEN],
                 [_STEP, _RUN, _PAUSE, _PAUSE_STEP])
    fresh = next((row[1] for row in found if row[1] is not None), None)
    if fresh is None:
        raise Run.DoesNotExist(f"run {run.pk} does not exist")
    for f in Run._meta.concrete_fields:
        setattr(run, f.attname, getattr(fresh, f.attname))
    steps, verdicts, pauses = [], {}, []
    for step, _, pause, pause_step, verdict, *_ in found:
        if step is not None:
            step.run = run
            steps.append(step)
            if verdict:
                verdicts[step.pk] = verdict
        elif pause is not None:
            pause.step = pause_step
            pauses.append(pause)
    return steps, verdicts, pauses


_OLDEST, _THREAD = Columns(Interrupt, "o"), Columns(Thread, "t")
_PAUSE_STEPS_SQL = {
    by_id: statement(lambda by_id=by_id: (
        ("" if by_id else f"{thread_pauses_with()} ")
        + f"SELECT {_PAUSE.select()}, {_RUN.select()}, {_STEP.select()}, {_THREAD.col('session_hash')}"
        f" FROM {_PAUSE.table} JOIN {_THREAD.table} ON {_THREAD.col('id')} = {_PAUSE.col('thread')}"
        f" JOIN {_RUN.table} ON {_RUN.col('id')} = {_PAUSE.col('run')}"
        f" LEFT JOIN {_STEP.table} ON {_STEP.col('run')} = {_RUN.col('id')}"
        + (f" WHERE {_PAUSE.col('id')} = %s" if by_id else
           f" WHERE {_PAUSE.col('id')} = (SELECT {_OLDEST.col('id')} FROM {THREAD_PAUSES} {_OLDEST.alias}"
           f" WHERE {_OLDEST.col('status')} = %s"
           f" AND ({_OLDEST.col('expires_at')} IS NULL OR {_OLDEST.col('expires_at')} > %s)"
           f" ORDER BY {_OLDEST.col('created_at')}, {_OLDEST.col('id')} LIMIT 1)")
        + f" AND {_PAUSE.col('thread')} = %s ORDER BY {_STEP.col('index')}"))
    for by_id in (True, False)
}


def pause_steps_read(thread_id: str, pause_id: str | None) -> tuple[Interrupt, list[Step], str] | None:
    """A pause of the thread (``None``: its oldest open one not past its
    deadline) with its run and the run's steps in order, and the thread's
    session hash, in one read (as ``select_related("run")`` and the run's
    ``steps``); the pause's step is the one of those steps. None when the
    thread has no such pause."""
    if pause_id is not None:
        params: list[Any] = [pause_id, thread_id]
    else:
        params = [thread_id, Interrupt.Status.OPEN, connection.ops.adapt_datetimefield_value(timezone.now()), thread_id]
    found = read(_PAUSE_STEPS_SQL[pause_id is not None](), params, [_PAUSE, _RUN, _STEP])
    if not found:
        return None
    pause, run, owner = found[0][0], found[0][1], found[0][3]
    pause.run = run
    steps = []
    for _, _, step, _ in found:
        if step is not None:
            step.run = run
            steps.append(step)
    if pause.step_id is not None:  # one of the run's steps; read on its own were it another run's
        pause.step = next((s for s in steps if s.pk == pause.step_id), None) or Step.objects.get(pk=pause.step_id)
    else:
        pause.step = None
    return pause, steps, owner


def step_view(step: Step, verdict: str | None = None, indexes: dict[int, int] | None = None) -> StepView:
    return StepView(
        step=step.index, tool=step.tool, kind=step.kind, status=step.status, arguments=step.arguments,
        reasons=step.reasons, undo_of=(indexes or {}).get(step.undo_of_id) if step.undo_of_id is not None else None,
        is_undo=step.undo_of_id is not None, verdict=verdict or "", result=step.result, error=step.error,
        rule=step.rule, sentence=step.sentence, generation=step.generation)
