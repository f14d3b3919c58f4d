"""Putting the example shop's demo back as it started (``stalwart reset-demo``).

After the README's walk-through order 4411 is paid, so every later charge of it
is approved and then fails "already paid". A reset forgets the demo agents'
threads, and with them (they cascade from the thread) their turns, runs,
steps, pauses, receipts, events and thumbs, plus the rows that name those
threads without a foreign key (kept idempotency answers, outbox deliveries).
Then it puts the shop's orders back as docs/getting-started.md seeds them.

Kept: staff accounts, MCP client keys, withdrawn tools and the selector's language settings:
they are people and operators' choices, not the demo's runs, and deleting the
data folder (the other way to start again) loses them too.

Only threads of the shop's own agents go: a data folder shared with another
agent file keeps that file's threads.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db import transaction

from approvals.models import Delivery
from catalogue.models import Withdrawal
from doors.mcp.models import McpClient
from examples.shop import tools as shop
from threads.models import Replay, Thread


@dataclass(frozen=True)
class DemoReset:
    threads: int  # threads forgotten
    staff: int  # staff accounts kept
    withdrawn: tuple[str, ...]  # tools an operator withdrew, still withdrawn
    mcp_keys: int = 0  # MCP client keys in force, kept (their clients go on calling)


def demo_reset(*, agents: list[str]) -> DemoReset:
    """Forget ``agents``' threads and everything hanging from them, then reseed the shop."""
    with transaction.atomic():
        threads = Thread.objects.filter(agent__in=agents)
        ids = threads.values("id")
        Delivery.objects.filter(thread_id__in=ids).delete()
        Replay.objects.filter(thread_id__in=ids).delete()  # the doors' calls of threads forgotten
        count = threads.count()
        threads.delete()
        staff = get_user_model().objects.filter(is_staff=True).count()
        mcp_keys = McpClient.objects.filter(revoked_at__isnull=True).count()
        withdrawn = tuple(Withdrawal.objects.filter(agent__in=agents).order_by("tool").values_list("tool", flat=True))
    # The shop's own SQLite file, after the run store committed: a failure here
    # leaves no thread pointing at a charge that is gone, only a paid order.
    shop.reset()
    return DemoReset(threads=count, staff=staff, withdrawn=withdrawn, mcp_keys=mcp_keys)
