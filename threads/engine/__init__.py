"""The run engine: every state change of a thread goes through here.

A person's turn is planned and becomes a **run** whose calls are **steps**;
the check decides each (run it, refuse it, pause it for a person); a pause
is a row any worker can answer; the answer is claimed, applied and the run
carried on from its rows alone. Nothing lives in the process between a
question and its answer.

**The facade** is this package's namespace: all a door (the HTTP API, MCP,
AG-UI, LangGraph, the LangChain middleware), the console, the Python API or
a command may call, and the typed values it answers with. Submit a turn
(``turn_submit``), propose a call (``call_propose``), answer a pause
(``pause_answer``) or several at once, all or nothing (``pauses_answer``),
edit one (``pause_edit``), roll a thread back (``thread_rollback``); read a
run (``run_read``), a thread's open pauses (``open_pauses``), its latest run
(``thread_latest``), its history (``thread_history``), one pause
(``pause_read``), whether a thread is a session's (``thread_check``); mirror
another system's question as pauses and hand their answers back
(``pause_mirror``, ``handback_edit``, ``handback_close``: a LangGraph
graph's interrupts). Under an approval policy (docs/policies.md) a pause
shows its ``approvals``; ``approvals_shown``, ``groups_of``, ``in_groups``,
``proposed_by`` and ``approver_key`` say who may answer it and who has;
``approvals_check`` refuses answers given together when one would be. A run is answered as an ``Answer`` (with its
``StepView`` and ``PauseView`` values and, for one call, an ``Outcome``), in one
vocabulary of statuses (``STEP_FINISHED``, ``STEP_ENDED``, ``OUTCOMES``),
read after the last commit. A door that may see the same call twice names it
with a ``ReplayKey`` (the replay journal, ``replays``) and keeps its answer
there (``replay_keep``, ``replay_delivered``, ...); one that carries an
answer back claims its rows (``replays_settle``), and a row a dead worker
left half settled is taken over (``replays_take_over``). Every pause that closes
is told after commit to the listeners settings name
(``STALWART_PAUSE_LISTENERS``, a ``PauseClosed`` notice). The doors import
nothing else of the engine, nor the run store's models (import-linter
contracts); the serving process's worker uses the few names below them (the
sweep, the heartbeats, its identity).

Inside, one job per module, lowest first: ``lease`` (who runs a step or
carries a run, and whether they live), ``events`` (the numbered trace),
``notify`` (who is told of a pause), ``unit`` (a unit of work: the
transaction, its thread's lock taken first, its events and notices),
``lifecycle`` (the one place a run's or a step's status changes),
``progress`` (what one call into the engine has done), ``pauses`` (the one
place a pause opens or closes), ``replies``, ``values``, ``steps``,
``deadlines``, ``reads`` (the answer read after commit), ``execute`` (a
call, its receipt and verdict), ``teamsteps``, ``advance``, ``saga``,
``delegate`` (the model hand-off), ``reconcile`` (the sweep), ``decisions``
(a person's answer checked, claimed, applied), ``edits``, ``turns``,
``handback`` (mirrored pauses), ``replays`` (the replay journal), ``views``
(the typed answers), ``services``, ``resumes`` (several answers at once),
``history`` (a thread's reads).

Transactions: one unit of work per stretch between two calls sent. A turn
that pauses is one (thread, run, steps, the pause, its events and the
reply); an answer's claim commits with its decision and, when a call
follows, with that call claimed ``running`` and its receipt stored, *before*
it is sent; the call's outcome commits with the decisions after it and the
reply. No tool is called inside a transaction.
"""

from threads.engine.approvals import (
    approvals_check,
    approvals_shown,
    approver_key,
    groups_of,
    in_groups,
    proposed_by,
)
from threads.engine.deadlines import deadlines_sweep, pauses_escalate_due, pauses_expire_due
from threads.engine.decisions import edited_by
from threads.engine.edits import successor_of
from threads.engine.events import PAUSE_CHANGE, STAFF_GROUP, pause_change, publisher_start, thread_group
from threads.engine.handback import handback_close, handback_edit, handback_said, pause_mirror
from threads.engine.history import RunHistory, pause_read, thread_check, thread_history, thread_latest
from threads.engine.lease import worker_id
from threads.engine.notify import (
    NOTICE_ESCALATION,
    NOTICE_EXPIRED,
    NOTICE_REMINDER,
    NOTICE_WAITING,
    Notifier,
    PauseClosed,
)
from threads.engine.pauses import present, token_for
from threads.engine.proposers import Proposer
from threads.engine.reads import open_pauses
from threads.engine.reconcile import heartbeats, sweep_once
from threads.engine.replays import (
    ReplayKey,
    ReplayView,
    digest,
    replay_delivered,
    replay_expire,
    replay_keep,
    replay_release,
    replays_find,
    replays_settle,
    replays_settled,
    replays_take_over,
)
from threads.engine.resumes import Answers, PauseAnswer, pauses_answer
from threads.engine.saga import thread_rollback
from threads.engine.services import call_propose, pause_answer, pause_edit, run_read, turn_submit
from threads.engine.views import (
    OUTCOMES,
    PAUSE_DECISIONS,
    STEP_ENDED,
    STEP_FINISHED,
    Answer,
    Outcome,
    PauseKind,
    PauseStatus,
    PauseView,
    Refusal,
    Reply,
    RunStatus,
    StepStatus,
    StepView,
    Via,
)

__all__ = [
    "NOTICE_ESCALATION", "NOTICE_EXPIRED", "NOTICE_REMINDER", "NOTICE_WAITING", "OUTCOMES", "PAUSE_CHANGE", "PAUSE_DECISIONS", "STAFF_GROUP",
    "STEP_ENDED", "STEP_FINISHED", "Answer", "Answers", "Notifier", "Outcome", "PauseAnswer", "PauseClosed",
    "PauseKind", "PauseStatus", "PauseView", "Proposer", "Refusal", "ReplayKey", "ReplayView", "Reply", "RunHistory", "RunStatus",
    "StepStatus", "StepView", "Via",
    "approvals_check", "approvals_shown", "approver_key", "call_propose", "deadlines_sweep", "digest", "edited_by", "handback_close", "handback_edit", "handback_said", "heartbeats",
    "open_pauses", "pause_answer", "pause_change", "pause_edit", "pause_mirror", "pause_read", "pauses_answer",
    "pauses_escalate_due", "pauses_expire_due", "present", "publisher_start", "replay_delivered", "replay_expire",
    "replay_keep", "replay_release", "replays_find", "replays_settle", "replays_settled", "replays_take_over",
    "groups_of", "in_groups", "proposed_by", "run_read",
    "successor_of", "sweep_once", "thread_check", "thread_group", "thread_history", "thread_latest",
    "thread_rollback", "token_for", "turn_submit", "worker_id",
]
