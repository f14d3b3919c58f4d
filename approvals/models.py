"""Approvals' own tables: one-time ``--dev-pair`` codes (``approvals.pairing``;
the wrong tries against them are ``threads.WrongGuess`` rows), the notification
outbox (``Delivery``, ``WebhookEndpoint``; see ``approvals.outbox``), and the
one-time passwords ``createstaff`` hands out.

A ``OneTimePassword`` row remembers the password hash the account was given;
while the account's hash is still that one, the console sends every page to
the password change form (``stalwart_site.middleware.PasswordChangeFirstMiddleware``).
Changing the password changes the hash, so nothing has to clear the flag.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from threads.models import Interrupt


class PairingCode(models.Model):
    code_hash = models.CharField(max_length=64, unique=True)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("pairing code")
        verbose_name_plural = _("pairing codes")

    def __str__(self) -> str:
        return f"pairing code (expires {self.expires_at:%Y-%m-%d %H:%M})"


class Delivery(models.Model):
    """One notification to one listener, kept until delivered or given up.

    pending --claim--> delivering --2xx/returned--> delivered
                                  --failure--> pending (later) | failed (given up)
    pending --(a "waiting" pause no longer open)--> skipped
    """

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        DELIVERING = "delivering", _("delivering")
        DELIVERED = "delivered", _("delivered")
        FAILED = "failed", _("failed")
        SKIPPED = "skipped", _("skipped")

    message_id = models.CharField(_("webhook id"), max_length=40, unique=True)
    target = models.CharField(_("listener"), max_length=500, db_index=True)
    type = models.CharField(_("type"), max_length=32, default="waiting")
    thread_id = models.CharField(max_length=160)
    interrupt_id = models.CharField(max_length=40)
    status = models.CharField(_("status"), max_length=16, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField()
    claimed_until = models.DateTimeField(null=True, blank=True)
    claimed_by = models.CharField(max_length=100, blank=True)
    last_error = models.TextField(blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["created_at"]
        indexes = [models.Index(fields=["status", "next_attempt_at"])]
        verbose_name = _("delivery")
        verbose_name_plural = _("deliveries")

    def __str__(self) -> str:
        return f"{self.type} {self.interrupt_id} -> {self.target} ({self.status})"


class WebhookEndpoint(models.Model):
    """A receiver that answered 410 Gone is disabled until an operator re-enables it."""

    target = models.CharField(_("listener"), max_length=500, unique=True)
    disabled_at = models.DateTimeField(_("disabled at"), null=True, blank=True)
    disabled_reason = models.CharField(_("why"), max_length=200, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("webhook endpoint")
        verbose_name_plural = _("webhook endpoints")

    def __str__(self) -> str:
        return self.target


class OneTimePassword(models.Model):
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="one_time_password")
    password_hash = models.CharField(max_length=256)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("one-time password")
        verbose_name_plural = _("one-time passwords")

    def __str__(self) -> str:
        return str(self.user)


class McpClient(models.Model):
    """An MCP client allowed to call an agent's tools through the gateway
    (SPEC §15): made by an operator in the console, its key shown once and
    kept only as a SHA-256 hash (a key is 256 random bits: no slow hash
    needed), with the privileges and context values its calls carry."""

    name = models.SlugField(_("name"), max_length=40, unique=True,
                            help_text=_("Letters, digits, '-' and '_': it names the client's threads."))
    key_prefix = models.CharField(_("key starts with"), max_length=12, db_index=True, editable=False)
    key_hash = models.CharField(max_length=64, editable=False)
    privileges = models.JSONField(_("privileges"), default=list, blank=True)
    context = models.JSONField(_("context values"), default=dict, blank=True)
    created_by = models.CharField(_("created by"), max_length=150, blank=True, editable=False)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    revoked_at = models.DateTimeField(_("revoked at"), null=True, blank=True, editable=False)
    last_used_at = models.DateTimeField(_("last used"), null=True, blank=True, editable=False)

    class Meta:
        verbose_name = _("MCP client")
        verbose_name_plural = _("MCP clients")
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class McpCall(models.Model):
    """One ``tools/call`` a client sent through the gateway and the run it
    became, so that the same call repeated in the same session finds it:
    the pause it still waits on, or the result it got while the client was
    away (``delivered_at`` empty), never a second effect."""

    client = models.CharField(max_length=40)  # the McpClient's name ("local" without keys)
    thread_id = models.CharField(max_length=160)
    run_id = models.CharField(max_length=40)
    tool = models.CharField(max_length=200)
    arguments_hash = models.CharField(max_length=64)  # SHA-256 of the tool and its canonical arguments
    created_at = models.DateTimeField(auto_now_add=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["thread_id", "arguments_hash", "created_at"], name="mcp_call_same")]

    def __str__(self) -> str:
        return f"{self.client}: {self.tool} -> {self.run_id}"


class AguiRun(models.Model):
    """One AG-UI request that did something (``stalwart_site.agui``): a turn,
    keyed by its user message's id, or a resume, keyed by the pauses it
    answered; the Stalwart run it became and the events it was answered
    with, so the same request again replays them and starts nothing. A
    turn's row also names the client's message id for the run's person
    message, so a messages snapshot gives back the ids the client sent."""

    class Kind(models.TextChoices):
        TURN = "turn", "turn"
        RESUME = "resume", "resume"

    thread_id = models.CharField(max_length=160)
    kind = models.CharField(max_length=8, choices=Kind.choices)
    key = models.CharField(max_length=255)  # the user message's id, or the SHA-256 of the resumed pause ids
    fingerprint = models.CharField(max_length=64)  # SHA-256 of what the request asked (the message, the answers)
    run_id = models.CharField(max_length=40, blank=True)
    events = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    answered_at = models.DateTimeField(null=True, blank=True)  # empty while the request is being answered

    class Meta:
        constraints = [models.UniqueConstraint(fields=["thread_id", "kind", "key"], name="agui_run_once")]

    def __str__(self) -> str:
        return f"AG-UI {self.kind} {self.key} -> {self.run_id or '…'}"


class LangGraphCall(models.Model):
    """Which LangGraph interrupt a mirrored run stands for (SPEC §16), and how
    far its answer got back to the graph.

    The bridge (``stalwart_site.langgraph``) mirrors each pending interrupt of
    a graph's thread as a run of its own (``threads.engine.pause_mirror``),
    one pause per thing asked. Once every pause of a thread's pending
    interrupts is answered, one worker claims their rows (``pending`` ->
    ``resuming``: one conditional UPDATE, as a pause's claim), stores the
    ``Command``'s resume value and resumes the graph; then ``resumed``. A row
    left ``resuming`` (a worker that died between its claim and the graph's
    resume) is reconciled at start: the interrupt still pending gets the same
    value again, one no longer pending is marked resumed. ``stale``: the
    interrupt went away before its answer (the graph went on elsewhere)."""

    class Status(models.TextChoices):
        PENDING = "pending", _("waiting for answers")
        RESUMING = "resuming", _("resuming")
        RESUMED = "resumed", _("resumed")
        STALE = "stale", _("no longer pending")

    class Source(models.TextChoices):
        BRIDGE = "bridge", _("interrupt mirrored")
        MIDDLEWARE = "middleware", _("tool call checked")

    run_id = models.CharField(_("run"), primary_key=True, max_length=40)
    graph = models.CharField(_("graph"), max_length=200)
    graph_thread = models.CharField(_("graph thread"), max_length=200)
    thread_id = models.CharField(max_length=160)  # the Stalwart thread the pauses are in
    interrupt_id = models.CharField(_("interrupt"), max_length=200, blank=True)
    digest = models.CharField(max_length=64, blank=True)  # SHA-256 of the interrupt's value, canonical JSON
    generation = models.PositiveIntegerField(default=0)  # earlier interrupts of the same id in this thread
    source = models.CharField(_("source"), max_length=16, choices=Source.choices, default=Source.BRIDGE)
    tool_call_id = models.CharField(max_length=200, blank=True)  # the middleware's: the model's tool call
    status = models.CharField(_("status"), max_length=16, choices=Status.choices, default=Status.PENDING)
    resume = models.JSONField(null=True, blank=True)  # the value handed back, stored with the claim
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    resumed_at = models.DateTimeField(_("resumed at"), null=True, blank=True)

    class Meta:
        verbose_name = _("LangGraph interrupt")
        verbose_name_plural = _("LangGraph interrupts")
        ordering = ["created_at"]
        indexes = [
            models.Index(fields=["graph", "graph_thread", "status"], name="langgraph_thread"),
            models.Index(fields=["graph_thread", "tool_call_id"], name="langgraph_tool_call"),
            models.Index(fields=["status"], name="langgraph_status"),
        ]

    def __str__(self) -> str:
        return f"{self.graph} {self.graph_thread} {self.interrupt_id} ({self.status})"


class Decision(Interrupt):
    """A pause as the decisions page reads it: who answered what, when and from where
    (a proxy of ``threads.Interrupt``, whose row records the answer; no table of its own)."""

    class Meta:
        proxy = True
        verbose_name = _("decision")
        verbose_name_plural = _("decisions")
