"""Team steps (docs/agent-file.md, "Team steps (steps:)"): a team's own Python function instead of the selector.

An agent with ``steps: module:function`` hands each turn to
``function(run, turn) -> str``. ``run.call(tool, **arguments)`` and
``run.call_all([(tool, arguments), ...])`` send calls through the same check
as planned steps: a read runs, a write pauses (``confirm``), a refusal or a
skip gives ``None``. Calls of one ``call_all`` are decided side by side, so a
run can wait on several pauses at once, each answered by its own id.

**Durable execution.** Every call is a journal entry (``JournalEntry``,
numbered in the order the function makes its calls) carried out by a step of
the same number. When a call cannot finish yet (its pause is open), the
function is stopped there (``_Suspend``, a ``BaseException`` so a team's
``except Exception`` cannot swallow it) and the run waits. Each answer runs
the function again **from the start**: calls whose outcome is journaled return
it at once, never sent again; the first call without one is driven on (run
now if approved, or still waiting). The function must therefore make the same
calls, with the same arguments, in the same order on every run (the
determinism rule, docs/agent-file.md); a replay that calls differently is
stopped with ``steps_differ`` and the run ends, its open pauses closed.

**Several workers.** A call is created once (the unique (run, seq) is the
claim), an approved call is sent once (``approved -> running`` by one
conditional UPDATE); a replay that meets a call in flight on another worker
waits for it rather than sending it again.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from catalogue import registry
from catalogue.agentfile import AgentSpec
from catalogue.bindings.python import resolve_callable
from catalogue.check import SENTENCE_WITHDRAWN
from catalogue.plan import Argument
from threads.engine.checks import call_check, confirm_line, confirm_payload
from threads.engine.execute import step_execute, step_refuse
from threads.engine.lease import run_lease_release, run_lease_try
from threads.engine.lifecycle import FINISHED, run_status_set, steps_status_set
from threads.engine.pauses import pause_open, run_pauses_close
from threads.engine.progress import Progress
from threads.engine.replies import reply_write
from threads.engine.unit import unit
from threads.engine.values import jsonable
from threads.models import Interrupt, JournalEntry, Run, Step
from threads.texts import refusal, said, text
from threads.tokens import canonical

log = logging.getLogger("stalwart.engine")

DONE, PENDING = "done", "pending"


@dataclass(frozen=True)
class Turn:
    """What the function is given besides the run handle."""

    text: str
    context: Mapping[str, Any] = field(default_factory=dict)
    language: str = "en"


class StepsDiffer(RuntimeError):
    """A replay made another call than the journal holds at that place."""

    def __init__(self, seq: int, was: str, got: str) -> None:
        super().__init__(f"call {seq}: {got} where the journal has {was}")
        self.seq, self.was, self.got = seq, was, got


class _Suspend(BaseException):  # noqa: N818 - control flow, not an error
    """Stops the function where a call must wait; never seen by the team's code."""


def call_label(tool: str, arguments: Mapping[str, Any]) -> str:
    inner = ", ".join(f"{k}={canonical(v)}" for k, v in sorted(arguments.items()))
    return f"{tool}({inner})"


class RunHandle:
    """The ``run`` a steps function receives."""

    def __init__(self, run: Run, agent: AgentSpec, withdrawn: frozenset[str], scratch: Progress) -> None:
        self.id = run.id
        self.thread = run.thread_id
        self.language = run.language
        self._run = run
        self._agent = agent
        self._withdrawn = withdrawn
        self._scratch = scratch
        self._entries = {e.seq: e for e in JournalEntry.objects.filter(run=run).select_related("step")}
        self._seq = 0
        self.replayed = 0  # calls answered from the journal in this run of the function
        self.waiting: list[Step] = []

    @property
    def journaled(self) -> int:
        return len(self._entries)

    @property
    def calls_made(self) -> int:
        return self._seq

    def call(self, tool: str, /, **arguments: Any) -> Any:
        """One call; its result, or ``None`` when it was skipped, refused or failed."""
        return self.call_all([(tool, arguments)])[0]

    def call_all(self, calls: Iterable[tuple[str, Mapping[str, Any]]]) -> list[Any]:
        """Calls side by side; their results in order once every one has ended."""
        batch = list(calls)
        for item in batch:
            if (not isinstance(item, (tuple, list)) or len(item) != 2 or not isinstance(item[0], str)
                    or not isinstance(item[1], Mapping)):
                raise TypeError("call_all takes a list of (tool, {argument: value}) pairs")
        results, pending = [], False
        for tool, arguments in batch:
            self._seq += 1
            state, value = self._one(self._seq, tool, jsonable(dict(arguments)))
            pending = pending or state == PENDING
            results.append(value)
        if pending:
            raise _Suspend()
        return results

    # -- one call ---------------------------------------------------------------------------------------------
    def _one(self, seq: int, tool: str, arguments: dict[str, Any]) -> tuple[str, Any]:
        entry = self._entries.get(seq)
        if entry is None:
            entry = self._create(seq, tool, arguments)
            if entry is None:
                return PENDING, None  # another worker made this call first: it carries it on
        elif entry.tool != tool or canonical(entry.arguments) != canonical(arguments):
            raise StepsDiffer(seq, call_label(entry.tool, entry.arguments), call_label(tool, arguments))
        if entry.outcome:
            self.replayed += 1
            return DONE, entry.result
        return self._drive(entry, entry.step)

    def _create(self, seq: int, tool: str, arguments: dict[str, Any]) -> JournalEntry | None:
        spec = self._agent.tool(tool)
        try:
            with transaction.atomic():
                step = Step.objects.create(
                    run=self._run, index=seq, tool=tool, kind=spec.kind if spec else Step.Kind.WRITE,
                    arguments=[{"name": k, "value": v, "origin": "computed"} for k, v in sorted(arguments.items())],
                )
                entry = JournalEntry.objects.create(run=self._run, seq=seq, tool=tool, arguments=arguments,
                                                    step=step)
        except IntegrityError:
            return None
        self._entries[seq] = entry
        return entry

    def _drive(self, entry: JournalEntry, step: Step) -> tuple[str, Any]:
        run, agent = self._run, self._agent
        if step.status == Step.Status.PLANNED:
            return self._decide(entry, step)
        if step.status == Step.Status.APPROVED:
            if step.tool in self._withdrawn:
                with unit(run.thread_id, notices=self._scratch.notices) as u:
                    step_refuse(u, self._scratch, step, "withdrawn", refusal(run, SENTENCE_WITHDRAWN, tool=step.tool))
                return self._finish(entry, step)
            step_execute(self._scratch, step, agent)  # claims the step: of two workers, one sends
            if step.status == Step.Status.APPROVED:
                return PENDING, None  # another worker is sending it
            return self._after_execute(entry, step)
        if step.status == Step.Status.WAITING:
            self.waiting.append(step)
            return PENDING, None
        if step.status == Step.Status.RUNNING:
            # In flight, here or on another worker. One whose worker died is the
            # sweep's (threads.engine.reconcile): its lease lapses, one worker
            # claims it, and it becomes outcome_unknown or is reconciled.
            return PENDING, None
        if step.status in FINISHED:
            return self._finish(entry, step)
        raise RuntimeError(f"step {step.index} of run {run.id} is {step.status!r}: not a state a call can be in")

    def _decide(self, entry: JournalEntry, step: Step) -> tuple[str, Any]:
        run, tool = self._run, self._agent.tool(step.tool)
        arguments = [Argument.from_json(a) for a in step.arguments]
        verdict = call_check(run, step, self._agent, arguments, self._withdrawn)
        if verdict.action == "refuse":
            with unit(run.thread_id, notices=self._scratch.notices) as u:
                step_refuse(u, self._scratch, step, verdict.rule, refusal(run, verdict.message, **verdict.params))
            return self._finish(entry, step)
        step.reasons = list(verdict.reasons)
        step.irreversible = verdict.irreversible
        if verdict.action == "confirm":
            assert tool is not None
            with unit(run.thread_id, notices=self._scratch.notices) as u:
                pause_open(u, run=run, step=step, kind=Interrupt.Kind.CONFIRM, tool=step.tool, payload=confirm_payload(run, tool, step, verdict))
            self.waiting.append(step)
            return PENDING, None
        step_execute(self._scratch, step, self._agent)
        return self._after_execute(entry, step)

    def _after_execute(self, entry: JournalEntry, step: Step) -> tuple[str, Any]:
        if step.status == Step.Status.WAITING:  # outcome unknown: a person says whether it happened
            self.waiting.append(step)
            return PENDING, None
        return self._finish(entry, step)

    def _finish(self, entry: JournalEntry, step: Step) -> tuple[str, Any]:
        """Journal the call's outcome: from now on a replay returns it without a send."""
        result = step.result if step.status == Step.Status.SUCCEEDED else None
        JournalEntry.objects.filter(pk=entry.pk, outcome="").update(
            outcome=step.status, result=result, updated_at=timezone.now())
        entry.outcome, entry.result = step.status, result
        return DONE, result


def flow_advance(progress: Progress, *, lease_held: bool = False) -> Progress:
    """Run the team's function for this run (again, from the start) until it
    returns or a call must wait.

    One worker replays a run at a time: it holds the run's lease
    (``lease.run_lease_try``: a conditional UPDATE; renewed by the heartbeat
    while the function runs, taken over by the sweep if this worker dies).
    An answer that arrives while another worker replays sets ``replay_again``
    and leaves; the holder sees the flag when it lets go and replays once
    more, so no answer is left unapplied and no two replays race to the same
    call. ``lease_held``: the caller (the sweep) already took the lease over.
    """
    run_id = progress.run.pk
    base, done_lines, waiting_lines = list(progress.lines), [], []
    while True:
        run = Run.objects.get(pk=run_id)
        if not lease_held and not run_lease_try(run):
            # Another worker replays: it goes round once more for this answer.
            Run.objects.filter(pk=run_id).exclude(replay_owner="").update(replay_again=True)
            if Run.objects.filter(pk=run_id, replay_owner="").exists():
                continue  # it let go in between: take the lease after all
            progress.run = run
            progress.lines = [*base, text(run.language, "steps_busy")]
            with unit(run.thread_id, notices=progress.notices) as u:
                reply_write(u, progress)
            return progress
        lease_held = False
        try:
            progress.run = run
            # A round that finds the run already ended (the last one did it) keeps that round's lines.
            waiting_lines = _replay(progress, done_lines) or waiting_lines
        finally:
            again = not run_lease_release(run, unless_asked_again=True)
            if again:
                run_lease_release(run)  # let go, and take the lease again for one more round
        if not again:
            break
    progress.run.refresh_from_db()
    progress.lines = [*base, *done_lines, *waiting_lines]
    with unit(progress.run.thread_id, notices=progress.notices) as u:
        reply_write(u, progress)
    return progress


def _replay(progress: Progress, done_lines: list[str]) -> list[str]:
    """One run of the function from the start. Appends what ran to ``done_lines``;
    returns the lines that end the reply (what waits, or the function's own)."""
    run = progress.run
    if run.status not in (Run.Status.RUNNING, Run.Status.WAITING):
        return []  # cancelled, superseded or done: nothing more runs
    agent = registry.get_agent(run.agent)
    withdrawn = registry.withdrawn_tools(agent)
    scratch = Progress(run=run, notices=progress.notices)
    handle = RunHandle(run, agent, withdrawn, scratch)
    turn = Turn(text=run.text, context=dict(run.context), language=run.language)
    try:
        function = resolve_callable(str(run.plan["steps"]), base_dir=str(registry.agent_file().folder))
        reply = function(handle, turn)
    except _Suspend:
        if run.status != Run.Status.WAITING:  # a pause opened in this round has set it already
            with unit(run.thread_id, notices=progress.notices):
                run_status_set(run, Run.Status.WAITING, expect=Run.Status.RUNNING)
        done_lines += scratch.lines
        return [_waiting_line(run, step) for step in handle.waiting] or [text(run.language, "steps_busy")]
    except StepsDiffer as exc:
        log.warning("steps of run %s stopped: %s", run.id, exc)
        return [flow_stop(progress, text(run.language, "steps_differ", got=exc.got, was=exc.was))]
    except Exception as exc:  # the team's own code: whatever it raises, the run ends with a sentence
        log.exception("steps function of run %s failed", run.id)
        return [flow_stop(progress, text(run.language, "steps_failed", error=f"{exc.__class__.__name__}: {exc}"))]
    if handle.calls_made < handle.journaled:
        entry = handle._entries[handle.calls_made + 1]
        was = call_label(entry.tool, entry.arguments)
        return [flow_stop(progress, text(run.language, "steps_differ", got="no call: the function returned",
                                         was=was))]
    with unit(run.thread_id, notices=progress.notices):
        run_status_set(run, Run.Status.DONE, expect=[Run.Status.RUNNING, Run.Status.WAITING])
    return [str(reply) if reply not in (None, "") else text(run.language, "nothing")]


def _waiting_line(run: Run, step: Step) -> str:
    pause = step.interrupts.filter(status=Interrupt.Status.OPEN).first()
    if pause is not None and pause.kind == Interrupt.Kind.OUTCOME_UNKNOWN:
        return text(run.language, "waiting_outcome", tool=said(run, step.tool))
    question = pause.payload.get("question") if pause is not None else ""
    return confirm_line(run, pause.payload if pause is not None else {}, question or said(run, step.tool))


def flow_stop(progress: Progress, sentence: str) -> str:
    """End the run: its open pauses closed, what had not ended cancelled."""
    run = progress.run
    with unit(run.thread_id, notices=progress.notices) as u:
        run_pauses_close(u, run, status=Interrupt.Status.CANCELLED)
        steps_status_set(run, Step.Status.CANCELLED)
        run_status_set(run, Run.Status.DONE, expect=[Run.Status.RUNNING, Run.Status.WAITING])
    return sentence
