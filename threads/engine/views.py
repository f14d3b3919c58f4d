"""The answer a person sees for one call into the engine (SPEC §10), read in
the transaction of the last change it shows when the engine can."""

from __future__ import annotations

from typing import Any

from django.db import connection
from django.db.models.expressions import RawSQL

from threads.engine.lifecycle import Advance
from threads.engine.pauses import open_pauses, present
from threads.engine.replies import reply_write
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


def steps_read(run: Run, *, run_too: bool = False) -> tuple[list[Step], dict[int, str]]:
    """The run's steps in order, each with the verdict of its last receipt
    that has one (by step id), in one read. ``run_too``: the run's own row is
    read in the same statement and ``run`` made current from it, as
    ``refresh_from_db`` would."""
    query = Step.objects.filter(run_id=run.pk).annotate(last_verdict=_last_verdict())
    steps = list((query.select_related("run") if run_too else query).order_by("index"))
    if run_too:
        if not steps:
            run.refresh_from_db()
        else:
            fresh = steps[0].run
            for f in Run._meta.concrete_fields:
                setattr(run, f.attname, getattr(fresh, f.attname))
            for s in steps:
                s.run = run
    return steps, {s.pk: s.last_verdict for s in steps if s.last_verdict}


def _last_verdict() -> RawSQL:
    """A step's last receipt verdict that has one, as a correlated subquery.
    Written out (table and column names from the models): Django's own
    ``Subquery`` takes longer to compile than the whole read takes to run."""
    qn, receipt, step = connection.ops.quote_name, Receipt._meta, Step._meta

    def column(meta: Any, name: str) -> str:
        return qn(meta.get_field(name).column)

    return RawSQL(
        f"SELECT r.{column(receipt, 'verdict')} FROM {qn(receipt.db_table)} r"
        f" WHERE r.{column(receipt, 'step')} = {qn(step.db_table)}.{qn(step.pk.column)}"
        f" AND r.{column(receipt, 'verdict')} NOT IN (%s, %s) ORDER BY r.{column(receipt, 'created_at')} DESC LIMIT 1",
        ("", Receipt.Verdict.PENDING),
    )


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
