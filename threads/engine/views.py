"""The answer a person sees for one call into the engine (SPEC §10), read in
the transaction of the last change it shows when the engine can."""

from __future__ import annotations

from typing import Any

from threads.engine.lifecycle import Advance
from threads.engine.pauses import open_pauses, present
from threads.engine.replies import reply_write
from threads.engine.rows import Columns, read, statement
from threads.models import Receipt, Run, Step


def reply_and_view(advance: Advance) -> Advance:
    """The reply written and, for a call a person waits on
    (``advance.view_wanted``), the answer read in the same transaction."""
    reply_write(advance)
    if advance.view_wanted:
        advance.view = answer_data(advance, run_current=True)
    return advance


def answer_data(advance: Advance, *, run_current: bool = False) -> dict[str, Any]:
    """SPEC §10's message answer (without ``not_notified``): from what the
    engine holds when it holds it whole, else read back. ``run_current``: the
    engine's own run object, kept current in this transaction."""
    run = advance.run
    if advance.steps is not None and not advance.sent:
        steps = sorted(advance.steps, key=lambda s: s.index)  # a run made now, nothing sent: no receipts yet
        verdicts: dict[int, str] = {}
    elif advance.held is not None:
        steps, verdicts = sorted(advance.held.steps, key=lambda s: s.index), advance.held.verdicts
    else:
        if not run_current:
            run.refresh_from_db()
        steps, verdicts = steps_read(run)
    indexes = {s.pk: s.index for s in steps}  # an undo names the write it undoes, a step of the same run
    reply = advance.reply
    waiting = [present(p) for p in advance.waiting] if advance.waiting is not None else open_pauses(run.thread_id)
    return {
        "thread": run.thread_id,
        "run": run.id,
        "status": run.status,
        "reply": {"id": reply.id, "text": reply.text} if reply else None,
        "waiting": waiting,
        "refusals": refusals_of(steps),
        "rollback": run.rollback,
        "steps": [step_view(s, verdicts.get(s.pk), indexes) for s in steps],
        "health": run.health or "ok",
    }


_STEP, _RUN = Columns(Step, "s"), Columns(Run, "r")


def _steps_sql(run_too: bool) -> str:
    # The step's last receipt verdict that has one, as a correlated subquery.
    r = Columns(Receipt, "rc")
    verdict = (f"(SELECT {r.col('verdict')} FROM {r.table} WHERE {r.col('step')} = {_STEP.col('id')}"
               f" AND {r.col('verdict')} NOT IN (%s, %s) ORDER BY {r.col('created_at')} DESC LIMIT 1)")
    if not run_too:
        return (f"SELECT {_STEP.select()}, {verdict} FROM {_STEP.table}"
                f" WHERE {_STEP.col('run')} = %s ORDER BY {_STEP.col('index')}")
    return (f"SELECT {_STEP.select()}, {_RUN.select()}, {verdict} FROM {_RUN.table}"
            f" LEFT JOIN {_STEP.table} ON {_STEP.col('run')} = {_RUN.col('id')}"
            f" WHERE {_RUN.col('id')} = %s ORDER BY {_STEP.col('index')}")


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


def step_view(step: Step, verdict: str | None = None, indexes: dict[int, int] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "step": step.index, "tool": step.tool, "kind": step.kind, "status": step.status,
        "arguments": step.arguments, "reasons": step.reasons,
    }
    if step.undo_of_id is not None:
        out["undo_of"] = (indexes or {}).get(step.undo_of_id)
    if verdict:
        out["verdict"] = verdict  # the effect verdict of its last receipt (SPEC §9)
    if step.result is not None:
        out["result"] = step.result
    if step.error:
        out["error"] = step.error
    if step.rule:
        out["rule"] = step.rule
    return out


def refusals_of(steps: list[Step]) -> list[dict[str, Any]]:
    return [
        {"tool": s.tool, "rule": s.rule, "sentence": s.sentence, "step": s.index}
        for s in steps if s.status == Step.Status.REFUSED
    ]
