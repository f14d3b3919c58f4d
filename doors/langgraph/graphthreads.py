"""A graph thread's row for the Agent Server API (docs/langgraph.md, "The Agent Server API"):
its metadata and its last known status, kept as the bridge runs, mirrors and resumes it
(``interrupted`` while an interrupt of it waits, ``idle`` otherwise, ``busy`` while a run of
it runs here, ``error`` when its graph failed)."""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from doors.langgraph.models import GraphThread


def thread_row(graph: str, graph_thread: str, *, metadata: dict[str, Any] | None = None,
               status: str = GraphThread.Status.IDLE) -> tuple[GraphThread, bool]:
    """The row of a graph thread, made if it has none (and whether it was made now)."""
    found = GraphThread.objects.filter(graph=graph, thread_id=graph_thread).first()
    if found is not None:
        return found, False
    try:
        with transaction.atomic():
            return GraphThread.objects.create(graph=graph, thread_id=graph_thread, metadata=dict(metadata or {}),
                                              status=status), True
    except IntegrityError:  # made at the same moment by another request
        return GraphThread.objects.get(graph=graph, thread_id=graph_thread), False


def thread_status_set(graph: str, graph_thread: str, status: str) -> None:
    """The thread's status now (its row made if it has none); written only when it changes."""
    changed = (GraphThread.objects.filter(graph=graph, thread_id=graph_thread).exclude(status=status)
               .update(status=status, updated_at=timezone.now()))
    if not changed and not GraphThread.objects.filter(graph=graph, thread_id=graph_thread).exists():
        row, made = thread_row(graph, graph_thread, status=status)
        if not made and row.status != status:  # made at the same moment by another request
            GraphThread.objects.filter(pk=row.pk).update(status=status, updated_at=timezone.now())
