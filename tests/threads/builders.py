"""Builders for the engine's service tests: threads, runs, steps and pauses
made as rows, never through the selector, so a selector change cannot break
an engine test (small ``make_*`` builders with keyword overrides)."""

from __future__ import annotations

from typing import Any

from catalogue import registry
from threads.engine.pauses import pause_open, present
from threads.engine.progress import new_id
from threads.engine.unit import unit
from threads.engine.values import shown
from threads.models import Interrupt, Run, Step, Thread
from threads.selectors import session_hash

SESSION = "builder-session-0123456789"


def make_thread(id: str = "t-1", *, session: str = SESSION, agent: str = "Shop") -> Thread:
    return Thread.objects.create(id=id, session_hash=session_hash(session), agent=agent)


def make_run(thread: Thread | None = None, *, text: str = "a turn", language: str = "en",
             privileges: list[str] | None = None, **fields: Any) -> Run:
    thread = thread or make_thread()
    return Run.objects.create(id=new_id("r"), thread=thread, agent=thread.agent, language=language, text=text,
                              plan={"language": language, "read": True, "calls": [], "asks": []},
                              privileges=sorted(privileges or []), **fields)


def make_step(run: Run, tool: str, *, index: int | None = None, origin: str = "typed", **arguments: Any) -> Step:
    """A planned step of ``run``: ``tool`` with ``arguments``, each of ``origin``."""
    spec = registry.get_agent(run.agent).tool(tool)
    index = index if index is not None else run.steps.count() + 1
    return Step.objects.create(run=run, index=index, tool=tool, kind=spec.kind if spec else Step.Kind.WRITE,
                               arguments=[{"name": k, "value": v, "origin": origin}
                                          for k, v in sorted(arguments.items())])


def make_pause(step: Step, *, kind: str = Interrupt.Kind.CONFIRM, reasons: tuple[str, ...] = ("write",)) -> Interrupt:
    """``step``'s pause, opened by the engine (its step and run set waiting, its events written)."""
    run = step.run
    tool = registry.get_agent(run.agent).tool(step.tool)
    assert tool is not None
    with unit(run.thread_id) as u:
        return pause_open(u, run=run, step=step, kind=kind, tool=step.tool, payload={
            "question": f"Run {step.tool}?", "arguments": shown(step.arguments, tool), "reasons": list(reasons),
            "irreversible": bool(tool.irreversible),
        })


def make_waiting(tool: str = "charge_card", *, thread: Thread | None = None, **arguments: Any) -> dict[str, Any]:
    """A run that waits at ``tool`` with ``arguments``: the pause as docs/http-api.md shows it."""
    run = make_run(thread)
    return present(make_pause(make_step(run, tool, **arguments)))
