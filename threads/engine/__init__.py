"""The run engine: every state change of a thread goes through here.

A person's turn is planned and becomes a **run** whose calls are **steps**;
the check decides each (run it, refuse it, pause it for a person); a pause
is a row any worker can answer; the answer is claimed, applied and the run
carried on from its rows alone. Nothing lives in the process between a
question and its answer.

**The doors** (``services``) are all a view, a command, the console, the
Python API or a gateway calls, and this package exports them: submit a turn
(``turn_submit``), propose a call (``call_propose``), answer a pause
(``pause_answer``), edit one (``pause_edit``), roll a thread back
(``thread_rollback``), and read a run's answer (``run_read``) or a thread's
open pauses (``open_pauses``); mirror another system's question as pauses
and hand their answers back (``pause_mirror``, ``handback_edit``,
``handback_close``: a LangGraph graph's interrupts). Each returns SPEC §10's message answer, read
after its last commit. ``approvals`` and ``stalwart_site`` import nothing
else of the engine (an import-linter contract); the serving process's worker
uses the few names below the doors (the sweep, the heartbeat, its identity).

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
``handback`` (mirrored pauses), ``services``.

Transactions: one unit of work per stretch between two calls sent. A turn
that pauses is one (thread, run, steps, the pause, its events and the
reply); an answer's claim commits with its decision and, when a call
follows, with that call claimed ``running`` and its receipt stored, *before*
it is sent; the call's outcome commits with the decisions after it and the
reply. No tool is called inside a transaction.
"""

from threads.engine.deadlines import deadlines_sweep, pauses_escalate_due, pauses_expire_due
from threads.engine.decisions import edited_by
from threads.engine.edits import successor_of
from threads.engine.events import PAUSE_CHANGE, STAFF_GROUP, pause_change, publisher_start, thread_group
from threads.engine.handback import handback_close, handback_edit, pause_mirror
from threads.engine.lease import heartbeat, worker_id
from threads.engine.notify import NOTICE_ESCALATION, NOTICE_EXPIRED, NOTICE_WAITING, Notifier
from threads.engine.pauses import present, token_for
from threads.engine.reads import open_pauses
from threads.engine.reconcile import sweep_once
from threads.engine.saga import thread_rollback
from threads.engine.services import call_propose, pause_answer, pause_edit, run_read, turn_submit

__all__ = [
    "NOTICE_ESCALATION", "NOTICE_EXPIRED", "NOTICE_WAITING", "PAUSE_CHANGE", "STAFF_GROUP", "Notifier",
    "call_propose", "deadlines_sweep", "pause_change", "edited_by", "handback_close", "handback_edit", "heartbeat",
    "pause_mirror", "open_pauses", "pause_answer", "pause_edit", "pauses_escalate_due",
    "pauses_expire_due", "present", "publisher_start", "run_read", "successor_of", "sweep_once", "thread_group", "thread_rollback", "token_for",
    "turn_submit", "worker_id",
]
