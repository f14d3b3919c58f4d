"""The LangGraph door's own tables (docs/langgraph.md, "The Agent Server API"): the callers'
keys, and what the Agent Server API keeps beside a graph's checkpointer: its threads' metadata
and status, and its runs. What a thread's graph holds (values, interrupts, history) is read from
the checkpointer; what waits on a person is in the run store, as pauses."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from doors.keys import CallerKey


class LangGraphKey(CallerKey):
    """A caller of the Agent Server API (``x-api-key``): made by an operator in the console, its key
    shown once and kept only as a SHA-256 hash, with what it may do (``run``, ``answer``)."""

    class Meta:
        verbose_name = _("LangGraph key")
        verbose_name_plural = _("LangGraph keys")
        ordering = ["name"]


class GraphThread(models.Model):
    """A graph thread as the Agent Server API lists it: its metadata and its last known status."""

    class Status(models.TextChoices):
        IDLE = "idle", _("idle")
        BUSY = "busy", _("busy")
        INTERRUPTED = "interrupted", _("interrupted")
        ERROR = "error", _("error")

    graph = models.CharField(max_length=200)
    thread_id = models.CharField(max_length=200)
    metadata = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.IDLE)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["graph", "thread_id"], name="lg_thread_unique")]
        indexes = [models.Index(fields=["graph", "status", "created_at"], name="lg_thread_status")]

    def __str__(self) -> str:
        return self.thread_id


class GraphRun(models.Model):
    """One run of the Agent Server API on a graph thread: what was asked, by whom, and how it ended."""

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        RUNNING = "running", _("running")
        SUCCESS = "success", _("success")
        ERROR = "error", _("error")

    run_id = models.UUIDField(primary_key=True)
    graph = models.CharField(max_length=200)
    thread_id = models.CharField(max_length=200)
    assistant_id = models.CharField(max_length=64)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    metadata = models.JSONField(default=dict, blank=True)
    kwargs = models.JSONField(default=dict, blank=True)  # input or command, and config, as the caller sent them
    error = models.TextField(blank=True)
    caller = models.CharField(max_length=150, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["graph", "thread_id", "created_at"], name="lg_run_thread")]

    def __str__(self) -> str:
        return str(self.run_id)
