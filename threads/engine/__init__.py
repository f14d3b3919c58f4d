"""The run engine: every state change of a thread goes through here.

A person's turn is planned and becomes a **run** whose calls are **steps**
(``turns``). ``run_advance`` takes the steps in order, each to its end, until
one waits for a person or all are done (``advance``); a step's call runs in
``execute``, which stores a write's receipt before sending it. A pause is
opened in one place (``pauses.pause_open``); the answering side
(``approvals.answers``) claims an answer and calls ``run_advance`` again.
Nothing lives in the process between a question and its answer: a run is
carried on from its rows alone, by whichever worker receives the answer.

Modules, lowest first: ``lifecycle`` (the one place a run's or a step's
status changes), ``events`` (the thread's numbered trace), ``hooks`` (who is
told of a new pause), ``values`` (arguments as the tool takes them),
``replies``, ``pauses``, ``views`` (the answer a person sees), ``deadlines`` (pauses closed past their deadline,
escalations), ``lease`` (who runs a step, and whether they live),
``execute`` (a call, its receipt and verdict), ``saga`` (undoing a run's
writes; operator rollback), ``teamsteps`` (a team's own steps function,
replayed from its journal), ``advance``, ``reconcile`` (the sweep: steps whose
worker died), ``delegate`` (the model hand-off), ``turns``.

Transactions: one per stretch of work between two calls sent. A turn that
pauses is one transaction (thread, run, steps, the pause, its events and the
reply); an answer's claim commits with its decision and, when a call follows,
with that call claimed ``running`` and its receipt stored, *before* it is
sent; the call's outcome commits with the decisions after it and the reply.
No tool is called inside a transaction. A transaction's events are written
and published together (``events.events_batched``), and the answer a person
sees is read in the last transaction (``views``), not after it.
"""

from threads.engine.advance import run_advance
from threads.engine.deadlines import deadlines_sweep, pauses_escalate_due, pauses_expire_due
from threads.engine.delegate import delegate_run
from threads.engine.events import EventType, event_append
from threads.engine.hooks import take_failures
from threads.engine.lifecycle import (
    Advance,
    LifecycleError,
    run_pauses_close,
    run_status_set,
    step_status_set,
    steps_cancel,
)
from threads.engine.pauses import expire_questions, open_pauses, pause_open, present, thread_pauses, token_for
from threads.engine.reconcile import happened_record, not_happened_record, sweep_once
from threads.engine.replies import reply_write
from threads.engine.saga import run_rollback, saga_run, saga_start
from threads.engine.steps import steps_create
from threads.engine.turns import thread_open, turn_submit

__all__ = [
    "Advance", "EventType", "LifecycleError", "deadlines_sweep", "delegate_run", "event_append", "expire_questions",
    "happened_record", "not_happened_record", "open_pauses", "pause_open", "pauses_escalate_due", "pauses_expire_due",
    "present", "reply_write", "run_advance", "run_pauses_close", "run_rollback", "run_status_set", "saga_run",
    "saga_start", "step_status_set", "steps_cancel", "steps_create", "sweep_once", "take_failures", "thread_open", "thread_pauses",
    "token_for", "turn_submit",
]
