"""A plan's (or the model's) calls as a run's steps."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from catalogue.plan import Call
from catalogue.tools import Tool
from threads.models import Run, Step


def steps_create(run: Run, calls: list[Call], tools: dict[str, Tool], offset: int | None = None) -> list[Step]:
    """The calls as steps, numbered after any the run has (``offset``, counted
    when not given), in one INSERT inside the caller's transaction."""
    steps = steps_build(run, calls, tools, offset)
    return Step.objects.bulk_create(steps) if steps else []


def steps_build(run: Run, calls: list[Call], tools: dict[str, Tool], offset: int | None = None) -> list[Step]:
    """The calls as steps in memory, not yet stored."""
    if offset is None:
        offset = run.steps.count()
    steps = []
    for call in calls:
        tool = tools.get(call.tool)
        steps.append(Step(
            run=run, index=offset + call.step, tool=call.tool, kind=tool.kind if tool else "write",
            arguments=[_renumbered(a.to_json(), offset) for a in call.arguments],
        ))
    return steps


def _renumbered(arg: dict[str, Any], offset: int) -> dict[str, Any]:
    """``result:<step>`` of a call numbered from 1 becomes the run's own step number."""
    origin = str(arg.get("origin", ""))
    if offset and origin.startswith("result:") and origin[7:].isdigit():
        arg["origin"] = f"result:{int(origin[7:]) + offset}"
    return arg


def run_taint_carry(run: Run) -> None:
    """Inside the run's unit: the run is tainted by what tainted the thread's
    earlier runs (a ``reads_outside`` tool that ran in them)."""
    # Only the runs that were tainted: in SQL, so a long session's untainted runs are not read back each call.
    earlier = (Run.objects.filter(thread_id=run.thread_id).exclude(pk=run.pk).exclude(tainted_by=[])
               .values_list("tainted_by", flat=True))
    tainted = sorted({tool for tools in earlier for tool in (tools or [])} | set(run.tainted_by))
    if tainted != list(run.tainted_by):
        run.tainted_by = tainted
        Run.objects.filter(pk=run.pk).update(tainted_by=tainted, updated_at=timezone.now())
