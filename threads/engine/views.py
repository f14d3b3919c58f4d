"""What the engine answers a door: typed views, read after the last commit.

``Answer`` is a run as it stands (the HTTP message answer of
docs/http-api.md, ``Answer.to_json()``), with its steps (``StepView``) and
the thread's open pauses (``PauseView``); ``Outcome`` is what became of one
call of it, in the engine's one vocabulary (``OUTCOMES``), for a door that
proposes one call per run (MCP, the LangChain middleware). A door maps these
to its protocol and reads nothing else: every status word it needs is here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from threads.engine.replays import ReplayView
from threads.models import PAUSE_ANSWERS, Interrupt, Run, Step

# The engine's one vocabulary, for the doors: where an answer came from, a pause's kind and status, a step's and a run's.
Via = Interrupt.Via
PauseKind = Interrupt.Kind
PauseStatus = Interrupt.Status
StepStatus = Step.Status
RunStatus = Run.Status
# The answers each kind of pause takes, in the order they are offered.
PAUSE_DECISIONS: dict[str, tuple[str, ...]] = PAUSE_ANSWERS

S = Step.Status
# A step that needs nothing more: the engine never takes it again (threads.engine.lifecycle).
STEP_FINISHED: frozenset[str] = frozenset({
    S.SUCCEEDED, S.FAILED, S.REFUSED, S.SKIPPED, S.CANCELLED, S.SUPERSEDED, S.OUTCOME_UNKNOWN, S.UNDONE,
    S.HANDED_BACK,
})
# A step whose call ended, with a result or a reason to report (a step waiting on an unknown outcome has not).
STEP_ENDED: frozenset[str] = STEP_FINISHED - {S.OUTCOME_UNKNOWN}
# What became of one call, as ``Answer.outcome`` says it.
OUTCOMES = ("done", "refused", "failed", "skipped", "cancelled", "superseded", "undone", "handed_back",
            "waiting", "running", "outcome_unknown", "saga_stuck")
_OUTCOME_OF_STEP = {S.SUCCEEDED: "done", S.REFUSED: "refused", S.FAILED: "failed", S.SKIPPED: "skipped",
                    S.CANCELLED: "cancelled", S.SUPERSEDED: "superseded", S.UNDONE: "undone",
                    S.HANDED_BACK: "handed_back"}
# A pause a call reports as its outcome, rather than one a person is asked to approve.
_OUTCOME_OF_PAUSE = {Interrupt.Kind.OUTCOME_UNKNOWN: "outcome_unknown", Interrupt.Kind.SAGA_STUCK: "saga_stuck"}


@dataclass(frozen=True)
class PauseView:
    """A pause as shown: ``to_json()`` is the PAUSE of docs/http-api.md; the
    rest (its status, deadline, who answered) is for the doors and the console."""

    id: str
    kind: str
    tool: str
    question: str
    arguments: list[dict[str, Any]]
    reasons: list[str]
    irreversible: bool
    choices: list[str]
    token: str
    step: int | None
    run: str
    thread: str = ""
    agent: str = ""
    status: str = Interrupt.Status.OPEN
    expires_at: datetime | None = None
    mirrored: bool = False  # another system's question (a LangGraph interrupt), handed back when answered
    decision: str = ""
    answered_by: str = ""
    answered_via: str = ""
    answered_at: datetime | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # what its kind adds (a question, what is left to undo)

    @property
    def values(self) -> dict[str, Any]:
        """The call's arguments by name."""
        return {a["name"]: a.get("value") for a in self.arguments}

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "tool": self.tool, "question": self.question,
                "arguments": self.arguments, "reasons": self.reasons, "irreversible": self.irreversible,
                "choices": self.choices, "token": self.token, "step": self.step, "run": self.run, **self.extra}

    def closed_json(self) -> dict[str, Any]:
        """What became of it, as a 409 ``interrupt_stale`` says (docs/http-api.md)."""
        return {"id": self.id, "status": self.status, "decision": self.decision or None,
                "answered_at": self.answered_at.isoformat() if self.answered_at else None,
                "answered_by": self.answered_by or None}


@dataclass(frozen=True)
class StepView:
    step: int
    tool: str
    kind: str
    status: str
    arguments: list[dict[str, Any]]
    reasons: list[str]
    undo_of: int | None = None
    verdict: str = ""
    result: Any = None
    error: str = ""
    rule: str = ""
    sentence: str = ""
    generation: int = 0
    is_undo: bool = False

    @property
    def values(self) -> dict[str, Any]:
        return {a["name"]: a.get("value") for a in self.arguments}

    @property
    def ended(self) -> bool:
        return self.status in STEP_ENDED

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"step": self.step, "tool": self.tool, "kind": self.kind, "status": self.status,
                               "arguments": self.arguments, "reasons": self.reasons}
        if self.is_undo:
            out["undo_of"] = self.undo_of
        if self.verdict:
            out["verdict"] = self.verdict  # the effect verdict of its last receipt
        if self.result is not None:
            out["result"] = self.result
        if self.error:
            out["error"] = self.error
        if self.rule:
            out["rule"] = self.rule
        return out


@dataclass(frozen=True)
class Refusal:
    tool: str
    rule: str
    sentence: str
    step: int

    def to_json(self) -> dict[str, Any]:
        return {"tool": self.tool, "rule": self.rule, "sentence": self.sentence, "step": self.step}


@dataclass(frozen=True)
class Reply:
    id: str
    text: str


@dataclass(frozen=True)
class Outcome:
    """What became of one call (``status`` one of ``OUTCOMES``)."""

    status: str
    run: str
    step: int | None = None
    result: Any = None
    rule: str = ""
    sentence: str = ""
    error: str = ""
    pause: PauseView | None = None  # the pause it waits on (waiting, outcome_unknown, saga_stuck)
    reply: str = ""

    @property
    def waits(self) -> bool:
        """Not settled yet: a person must answer, or its call is on its way."""
        return self.status in ("waiting", "running")


@dataclass(frozen=True)
class Answer:
    """A run as it stands, read after the last commit of the call that made it."""

    thread: str
    run: str
    status: str
    reply: Reply | None
    waiting: list[PauseView]
    refusals: list[Refusal]
    rollback: Any
    steps: list[StepView]
    health: str = "ok"
    not_notified: list[dict[str, Any]] = field(default_factory=list)
    replayed: ReplayView | None = None  # the same call was taken before: this is what it became
    replay_id: int | None = None  # this call's row in the replay journal, for the door to keep its answer on

    def step(self, index: int) -> StepView | None:
        return next((s for s in self.steps if s.step == index), None)

    def own_pauses(self) -> list[PauseView]:
        """The open pauses of this run (``waiting`` lists the thread's)."""
        return [p for p in self.waiting if p.run == self.run]

    def outcome(self, index: int = 1) -> Outcome:
        """What became of the run's step ``index``."""
        reply = self.reply.text if self.reply else ""
        pause = next(iter(self.own_pauses()), None)
        if pause is not None:
            return Outcome(status=_OUTCOME_OF_PAUSE.get(pause.kind, "waiting"), run=self.run, step=index,
                           pause=pause, reply=reply)
        step = self.step(index)
        if step is None or step.status not in _OUTCOME_OF_STEP:
            return Outcome(status="running", run=self.run, step=index, reply=reply)  # on its way
        status = _OUTCOME_OF_STEP[step.status]
        if status == "refused":
            refusal = next((r for r in self.refusals if r.step == index), None)
            return Outcome(status=status, run=self.run, step=index, rule=refusal.rule if refusal else step.rule,
                           sentence=refusal.sentence if refusal else step.sentence, reply=reply)
        return Outcome(status=status, run=self.run, step=index, result=step.result, error=step.error, reply=reply)

    def to_json(self) -> dict[str, Any]:
        """The message answer of docs/http-api.md."""
        return {
            "thread": self.thread, "run": self.run, "status": self.status,
            "reply": {"id": self.reply.id, "text": self.reply.text} if self.reply else None,
            "waiting": [p.to_json() for p in self.waiting],
            "refusals": [r.to_json() for r in self.refusals],
            "rollback": self.rollback,
            "steps": [s.to_json() for s in self.steps],
            "health": self.health,
            "not_notified": self.not_notified,
        }
