"""Builders for console tests and benchmarks: many open pauses, quickly."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

from django.utils import timezone

from threads.models import Interrupt, Run, Thread


def make_open_pauses(count: int, *, threads: int = 100, batch: int = 5000) -> None:
    """``count`` open confirm pauses of charge_card over ``threads`` threads (bulk inserts)."""
    now = timezone.now()
    Thread.objects.bulk_create([Thread(id=f"bulk-{t}", session_hash="0" * 64, agent="Shop") for t in range(threads)])
    Run.objects.bulk_create([Run(id=f"r-bulk-{t}", thread_id=f"bulk-{t}", agent="Shop", text="charge",
                                 status=Run.Status.WAITING) for t in range(threads)])
    payload = {"question": "Run charge_card?", "arguments": [{"name": "order_id", "value": "4411", "origin": "typed"},
                                                             {"name": "amount", "value": 40, "origin": "model"}],
               "reasons": ["write", "argument_origin: amount"], "irreversible": False,
               "choices": ["approve", "skip", "cancel_all"]}
    with own_created_at():
        for start in range(0, count, batch):
            Interrupt.objects.bulk_create([
                Interrupt(id=f"p-bulk-{i}", thread_id=f"bulk-{i % threads}", run_id=f"r-bulk-{i % threads}",
                          agent="Shop", kind=Interrupt.Kind.CONFIRM, tool="charge_card", payload=payload,
                          created_at=now - timedelta(seconds=count - i))
                for i in range(start, min(count, start + batch))
            ])


@contextmanager
def own_created_at() -> Iterator[None]:
    """Pauses keep the ``created_at`` given (``auto_now_add`` would make a batch's all alike)."""
    field = Interrupt._meta.get_field("created_at")
    field.auto_now_add = False  # type: ignore[attr-defined]
    try:
        yield
    finally:
        field.auto_now_add = True  # type: ignore[attr-defined]
