"""The replay journal: one row for each call a door took, and what became of it.

Every door (the HTTP API's ``Idempotency-Key``, an MCP ``tools/call``, an
AG-UI turn or resume, a LangGraph interrupt mirrored, a LangChain tool call)
keeps here the calls a caller may send again, so the same call again finds
what the first one became instead of doing it twice. A row names the door,
the **caller** (whose calls they are: a session, an MCP session's thread, a
graph), the call's **identity** (a digest of what makes two calls the same
call: a key, a message id, a tool and its arguments) and its
**fingerprint** (a digest of what it asked: the same identity asking
something else is refused), the run it became, and the door's answer once
kept.

The unique constraint on (door, caller, identity) among live rows is the
claim: of two identical calls at once, on one worker or two, one inserts
its row (with its run, in the run's own transaction) and the other finds
it. A row's life (``threads.engine.replays`` is its one writer)::

    nothing --> open (taken, with its run; held by the request answering it)
    open --> kept (the door's answer kept) | settling (its answer is being
             carried back: a graph resumed) | delivered | expired
    settling --> kept | settling (tried again)
    kept --> delivered (the caller's transport took it: the same call is a
             new call from now on) | expired (past its door's window)

``open``, ``settling`` and ``kept`` are live; ``delivered`` and
``expired`` free the identity. A row held by a request carries that
worker's lease (``lease_owner``, ``lease_at``, renewed by its heartbeat): a
row whose worker died is taken over by the sweep, never "in progress" for
ever.
"""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

LIVE = ("open", "settling", "kept")


class Replay(models.Model):
    class Door(models.TextChoices):
        HTTP = "http", _("HTTP API")
        MCP = "mcp", _("MCP")
        AGUI = "agui", _("AG-UI")
        LANGGRAPH = "langgraph", _("LangGraph")
        LANGCHAIN = "langchain", _("LangChain middleware")

    class Status(models.TextChoices):
        OPEN = "open", _("open")
        SETTLING = "settling", _("settling")
        KEPT = "kept", _("kept")
        DELIVERED = "delivered", _("delivered")
        EXPIRED = "expired", _("expired")

    door = models.CharField(_("door"), max_length=16, choices=Door.choices)
    kind = models.CharField(_("kind"), max_length=16)  # in the door's words: turn, resume, call, interrupt, tool_call
    caller = models.CharField(_("caller"), max_length=200)
    identity = models.CharField(max_length=64)  # SHA-256 of what makes two calls the same call
    key = models.CharField(_("key"), max_length=255, blank=True)  # the call's name as the caller gave it, if short
    fingerprint = models.CharField(max_length=64, blank=True)  # SHA-256 of what the call asked
    thread_id = models.CharField(max_length=160, blank=True)
    run_id = models.CharField(_("run"), max_length=40, blank=True)
    status = models.CharField(_("status"), max_length=16, choices=Status.choices, default=Status.OPEN)
    meta = models.JSONField(default=dict, blank=True)  # what the door notes of the call when it takes it
    result = models.JSONField(null=True, blank=True)  # the door's answer, once kept
    lease_owner = models.CharField(max_length=80, blank=True)  # the worker answering it, while it does
    lease_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    settled_at = models.DateTimeField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("replay journal entry")
        verbose_name_plural = _("replay journal")
        ordering = ["created_at"]
        constraints = [
            models.UniqueConstraint(fields=["door", "caller", "identity"], condition=models.Q(status__in=LIVE),
                                    name="replay_live_identity"),
        ]
        indexes = [
            models.Index(fields=["thread_id", "door"], name="replay_thread"),
            models.Index(fields=["run_id"], name="replay_run"),
            models.Index(fields=["door", "status"], name="replay_door_status"),
            models.Index(fields=["status", "lease_at"], name="replay_lease"),
        ]

    def __str__(self) -> str:
        return f"{self.door} {self.kind} {self.key or self.identity[:12]} ({self.status})"
