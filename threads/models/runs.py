"""Threads, turns, runs, steps, pauses, receipts and events.

A **thread** belongs to one browser session. Each person's turn is a
**message** that starts a **run**: the plan's calls become **steps**, taken in
order. A step's life::

    planned --check--> refused | (run) running --> succeeded | failed
                                                \\-> outcome_unknown (pause)
            \\--> waiting (a pause is open) --approve--> approved --> running ...
                                           --skip--> skipped
                                           --cancel_all--> cancelled

Sagas (docs/http-api.md, "The rollback report") undo a succeeded write by a
step of its own (``undo_of`` names the write); the write becomes ``undone``. A
running write's step holds a **lease** (``lease_owner``, ``lease_at``: its
worker's heartbeat) so a sweep can tell a dead worker's step from a slow one. A
**pause** (``Interrupt``) is a row: any worker can take its answer, claimed by
one conditional UPDATE of its status. An **event** is the thread's trace,
numbered per thread, written in the same transaction as the state it describes.
A **receipt** is stored before a write is sent (docs/http-api.md, "Receipts and
verdicts").
"""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class Thread(models.Model):
    id = models.CharField(_("key"), primary_key=True, max_length=160)  # its name and session (threads.keys)
    name = models.CharField(_("id"), max_length=128, db_index=True, default="")  # as its client names it
    session_hash = models.CharField(max_length=64, db_index=True)
    agent = models.CharField(_("agent"), max_length=200)
    event_seq = models.PositiveBigIntegerField(default=0)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("thread")
        verbose_name_plural = _("threads")
        ordering = ["-updated_at"]

    def __str__(self) -> str:
        return self.id


class Message(models.Model):
    class Role(models.TextChoices):
        PERSON = "person", _("person")
        ASSISTANT = "assistant", _("assistant")

    id = models.CharField(primary_key=True, max_length=40)
    thread = models.ForeignKey(Thread, on_delete=models.CASCADE, related_name="messages")
    run = models.ForeignKey("Run", null=True, blank=True, on_delete=models.SET_NULL, related_name="messages")
    role = models.CharField(max_length=16, choices=Role.choices)
    text = models.TextField()
    language = models.CharField(max_length=8, default="en")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("turn")
        verbose_name_plural = _("turns")
        ordering = ["created_at"]

    def __str__(self) -> str:
        return f"{self.role}: {self.text[:60]}"


class Run(models.Model):
    class Status(models.TextChoices):
        RUNNING = "running", _("running")
        WAITING = "waiting", _("waiting")
        DONE = "done", _("done")
        CANCELLED = "cancelled", _("cancelled")
        SUPERSEDED = "superseded", _("superseded")

    id = models.CharField(primary_key=True, max_length=40)
    thread = models.ForeignKey(Thread, on_delete=models.CASCADE, related_name="runs")
    agent = models.CharField(max_length=200)
    language = models.CharField(max_length=8, default="en")
    text = models.TextField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.RUNNING)
    plan = models.JSONField(default=dict)
    context = models.JSONField(default=dict, blank=True)
    tainted_by = models.JSONField(default=list, blank=True)
    # The privileges the run was started with (a signed token's ``priv``, the
    # Python API's ``privileges=``), kept so a resume on any worker has them.
    privileges = models.JSONField(default=list, blank=True)
    # A team's steps (docs/agent-file.md, "Team steps (steps:)") are replayed,
    # and a model hand-off is asked, by one worker at a time: the lease holder,
    # until when, and (for a replay) whether an answer came in meanwhile.
    replay_owner = models.CharField(max_length=40, blank=True, default="")
    replay_until = models.DateTimeField(null=True, blank=True)
    replay_again = models.BooleanField(default=False)
    rollback = models.JSONField(null=True, blank=True)  # the last rollback report (docs/http-api.md)
    saga = models.CharField(max_length=16, blank=True)  # while undoing: the status the run ends in
    health = models.CharField(max_length=24, blank=True)  # "" or the verdict that made it unhealthy (docs/http-api.md)
    # Who proposed it (threads.engine.proposers): the door, and the caller's name where it has one.
    proposed_via = models.CharField(max_length=16, blank=True, default="")
    proposed_by = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("run")
        verbose_name_plural = _("runs")
        ordering = ["created_at"]

    def __str__(self) -> str:
        return self.id


class Step(models.Model):
    class Status(models.TextChoices):
        PLANNED = "planned", _("planned")
        WAITING = "waiting", _("waiting")
        APPROVED = "approved", _("approved")
        RUNNING = "running", _("running")
        SUCCEEDED = "succeeded", _("succeeded")
        FAILED = "failed", _("failed")
        REFUSED = "refused", _("refused")
        SKIPPED = "skipped", _("skipped")
        CANCELLED = "cancelled", _("cancelled")
        SUPERSEDED = "superseded", _("superseded")
        OUTCOME_UNKNOWN = "outcome_unknown", _("outcome unknown")
        UNDONE = "undone", _("undone")
        # A mirrored pause's answer handed back to the system that asked (a LangGraph graph):
        # Stalwart decided, the graph runs the call (threads.engine.handback).
        HANDED_BACK = "handed_back", _("handed back")

    class Kind(models.TextChoices):
        READ = "read", _("read")
        WRITE = "write", _("write")

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="steps")
    index = models.PositiveIntegerField()
    tool = models.CharField(max_length=200, blank=True)
    kind = models.CharField(max_length=8, choices=Kind.choices, default=Kind.WRITE)
    arguments = models.JSONField(default=list)  # [{"name", "value", "origin", "field"?}]
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.PLANNED)
    generation = models.PositiveIntegerField(default=0)  # bumped when the call must be decided again
    reasons = models.JSONField(default=list, blank=True)
    irreversible = models.BooleanField(default=False)
    rule = models.CharField(max_length=100, blank=True)
    sentence = models.TextField(blank=True)
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    compensation = models.JSONField(null=True, blank=True)  # the registered undo, resolved
    undo_of = models.OneToOneField("self", null=True, blank=True, on_delete=models.CASCADE, related_name="undo")
    lease_owner = models.CharField(max_length=80, blank=True)  # the worker running it
    lease_at = models.DateTimeField(null=True, blank=True)  # its last heartbeat
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("step")
        verbose_name_plural = _("steps")
        ordering = ["run", "index"]
        constraints = [models.UniqueConstraint(fields=["run", "index"], name="step_unique_index")]
        indexes = [models.Index(fields=["status", "lease_at"], name="step_lease")]

    def __str__(self) -> str:
        return f"{self.run_id}#{self.index} {self.tool}"


class Interrupt(models.Model):
    """A pause: a row any worker can answer, claimed by a conditional UPDATE."""

    class Kind(models.TextChoices):
        CONFIRM = "confirm", _("confirm")
        OUTCOME_UNKNOWN = "outcome_unknown", _("outcome unknown")
        SAGA_STUCK = "saga_stuck", _("saga stuck")
        ASK = "ask", _("ask")
        DELEGATE = "delegate", _("delegate")

    class Status(models.TextChoices):
        OPEN = "open", _("open")
        ANSWERED = "answered", _("answered")
        SUPERSEDED = "superseded", _("superseded")
        TIMED_OUT = "timed_out", _("timed out")
        CANCELLED = "cancelled", _("cancelled")
        EDITED = "edited", _("edited")  # staff changed the call: it pauses again as a new proposal

    class Via(models.TextChoices):
        """Where an answer came from (the console's decisions page says so)."""

        CONSOLE = "console", _("console")
        WIDGET = "widget", _("widget")
        HTTP = "http", _("HTTP")
        SIGNED_CHANNEL = "signed_channel", _("webhook channel")
        PYTHON = "python", _("Python API")
        MCP = "mcp", _("MCP client")
        LANGGRAPH = "langgraph", _("LangGraph")
        AGUI = "agui", _("AG-UI client")

    id = models.CharField(primary_key=True, max_length=40)
    # No index of its own: interrupt_thread_open (below) begins with the thread.
    thread = models.ForeignKey(Thread, on_delete=models.CASCADE, related_name="interrupts", db_index=False)
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="interrupts")
    step = models.ForeignKey(Step, null=True, blank=True, on_delete=models.CASCADE, related_name="interrupts")
    agent = models.CharField(_("agent"), max_length=200, blank=True)
    kind = models.CharField(_("kind"), max_length=20, choices=Kind.choices)
    status = models.CharField(_("status"), max_length=16, choices=Status.choices, default=Status.OPEN)
    tool = models.CharField(_("tool"), max_length=200, blank=True)
    payload = models.JSONField(default=dict)  # question, arguments, reasons, irreversible, choices
    decision = models.CharField(max_length=32, blank=True)
    answer = models.JSONField(null=True, blank=True)
    answered_by = models.CharField(_("answered by"), max_length=200, blank=True)
    answered_at = models.DateTimeField(_("answered at"), null=True, blank=True)
    answered_via = models.CharField(_("answered from"), max_length=16, choices=Via.choices, blank=True)
    expires_at = models.DateTimeField(_("deadline"), null=True, blank=True)
    # Deadlines (docs/agent-file.md, "Deadlines and escalation"): when listeners are told again, and when they were.
    escalate_at = models.DateTimeField(_("escalate at"), null=True, blank=True)
    escalated_at = models.DateTimeField(_("escalated at"), null=True, blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("pause")
        verbose_name_plural = _("pauses")
        ordering = ["created_at"]
        indexes = [
            # A thread's open pauses, oldest first (threads.engine.pauses and .decisions), and
            # the console's search by thread: the order's columns end it, so no other index
            # (walking every open pause in created_at order) looks cheaper to SQLite's planner.
            models.Index(fields=["thread", "status", "created_at", "id"], name="interrupt_thread_open"),
            # The console's queue (approvals/admin/pauses.py), oldest first, by status, agent, kind or
            # tool (its search); "all" statuses by created_at alone. The order's columns end each
            # index in the queue's own ORDER BY, so a page reads its rows off the index, never a sort.
            models.Index(fields=["status", "created_at", "id"], name="interrupt_queue"),
            models.Index(fields=["agent", "status", "created_at", "id"], name="interrupt_queue_agent"),
            models.Index(fields=["kind", "status", "created_at", "id"], name="interrupt_queue_kind"),
            models.Index(fields=["tool", "status", "created_at", "id"], name="interrupt_queue_tool"),
            models.Index(fields=["created_at", "id"], name="interrupt_queue_all"),
            models.Index(fields=["status", "expires_at"], name="interrupt_due"),
            models.Index(fields=["status", "escalate_at"], name="interrupt_escalate"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.tool} ({self.status})"


# The answers each kind of pause takes (docs/http-api.md, "The pause"), in the order they are offered.
PAUSE_ANSWERS: dict[str, tuple[str, ...]] = {
    Interrupt.Kind.CONFIRM: ("approve", "skip", "cancel_all"),
    Interrupt.Kind.OUTCOME_UNKNOWN: ("happened", "did_not_happen"),
    Interrupt.Kind.SAGA_STUCK: ("retry", "done_by_hand", "abandon"),
    Interrupt.Kind.ASK: ("answer",),
    Interrupt.Kind.DELEGATE: ("approve", "decline"),
}


class Receipt(models.Model):
    """What was sent for a write, before it was sent (docs/http-api.md, "Receipts and verdicts")."""

    class Verdict(models.TextChoices):
        PENDING = "pending", _("pending")
        VERIFIED_APPLIED = "verified_applied", _("verified applied")
        VERIFIED_NOT_APPLIED = "verified_not_applied", _("verified not applied")
        INDETERMINATE = "indeterminate", _("indeterminate")
        DUPLICATE_EFFECT = "duplicate_effect", _("duplicate effect")
        FALSE_SUCCESS = "false_success", _("false success")
        UNSAFE_RETRY = "unsafe_retry", _("unsafe retry")

    operation_id = models.CharField(primary_key=True, max_length=80)
    step = models.ForeignKey(Step, on_delete=models.CASCADE, related_name="receipts")
    tool = models.CharField(max_length=200)
    request_hash = models.CharField(max_length=64)
    idempotency_key = models.CharField(max_length=120, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    transport = models.CharField(max_length=16, blank=True)
    verdict = models.CharField(max_length=24, choices=Verdict.choices, default=Verdict.PENDING)
    evidence = models.CharField(max_length=200, blank=True)  # what the verdict rests on, never arguments
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("receipt")
        verbose_name_plural = _("receipts")

    def __str__(self) -> str:
        return f"{self.operation_id} ({self.verdict})"


class Event(models.Model):
    """One entry of a thread's trace, as the stream sends it (docs/http-api.md, "GET /threads/{id}/stream")."""

    class Type(models.TextChoices):
        TURN = "turn", _("turn")
        STEP = "step", _("step")
        WAITING = "waiting", _("waiting")
        ANSWERED = "answered", _("answered")
        REFUSED = "refused", _("refused")
        REPLY = "reply", _("reply")
        ROLLBACK = "rollback", _("rollback")
        EXPIRED = "expired", _("expired")
        APPROVAL = "approval", _("approval")  # one approval of a quorum (docs/policies.md)

    thread = models.ForeignKey(Thread, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveBigIntegerField()
    type = models.CharField(max_length=20, choices=Type.choices)
    data = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("event")
        verbose_name_plural = _("events")
        ordering = ["thread", "seq"]
        constraints = [models.UniqueConstraint(fields=["thread", "seq"], name="event_unique_seq")]

    def __str__(self) -> str:
        return f"{self.thread_id}#{self.seq} {self.type}"


class JournalEntry(models.Model):
    """One call of a team's steps function (docs/agent-file.md, "Team steps (steps:)"), in the order it was made.

    ``seq`` is the call's place in the function's run (1, 2, ...) and the
    index of the step that carries it out; ``tool`` and ``arguments`` are the
    call as the function made it, compared on replay. ``outcome`` is empty
    until the call ends; then it holds the step's last status and ``result``
    what the function gets back, so a replay returns it without a second send.
    The unique (run, seq) is the claim on a call: two workers replaying at once
    create it once.
    """

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="journal")
    seq = models.PositiveIntegerField()
    tool = models.CharField(max_length=200)
    arguments = models.JSONField(default=dict)
    step = models.OneToOneField(Step, on_delete=models.CASCADE, related_name="journal_entry")
    outcome = models.CharField(max_length=20, blank=True)
    result = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["run", "seq"]
        constraints = [models.UniqueConstraint(fields=["run", "seq"], name="journal_unique_seq")]

    def __str__(self) -> str:
        return f"{self.run_id}@{self.seq} {self.tool} ({self.outcome or 'open'})"
