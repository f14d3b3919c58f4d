"""What every door's driver has in common: the write every promise is tried on
(the shop's ``charge_card`` of order 4411 for 40), a pause as a door shows it,
an answer as a door tells it, and the run store read as a test reads it."""

from __future__ import annotations

import csv
import io
import uuid
from dataclasses import dataclass, field
from typing import Any

from examples.shop import tools as shop

CHARGE = {"order_id": "4411", "amount": 40}
SAY = "charge 40 to order 4411"
WRONG_TOKEN = "0" * 64


def unique(label: str) -> str:
    return f"{label}-{uuid.uuid4().hex[:10]}"


@dataclass
class Pause:
    """A pause as its door showed it: its id, its token (empty where the door
    shows none: MCP), the door's own name of its thread, and what was shown."""

    id: str
    token: str
    thread: str
    shown: Any = None


@dataclass
class Answer:
    """What a door told the one who answered (or, for MCP, the client that called again).

    ``taken``: the door took the answer; ``code``: its error code when not
    (``interrupt_stale``, ``not_found``, ...); ``outcome``: what the door says
    came of the call (``done``, ``skipped``, ``waiting``, or ``""`` when it says
    nothing of it); ``body``: the door's answer itself."""

    taken: bool
    code: str = ""
    outcome: str = ""
    body: Any = None
    extra: dict[str, Any] = field(default_factory=dict)


class Door:
    """One door's driver: propose the write, answer its pause, read what came of it.

    A door that cannot answer a pause itself (MCP: nothing a client can call
    answers one) says so with ``answered_in_console``; its ``answer`` is then
    the door's real answer path: a person in the console, and the identical
    call made again, which is how the client learns the outcome."""

    id = ""
    via = ""  # threads_interrupt.answered_via of an answer through this door
    answered_in_console = False
    shows_token = True  # the door hands its caller the pause's token
    workers = 2  # server processes it can reach at once (the race cases)
    decisions = {"approve": "approve", "skip": "skip"}  # the door's words for a person's yes and no
    recorded: dict[str, str] = {}  # a door's word the audit records in the engine's own (default: the same)

    # -- the three steps -------------------------------------------------------------------
    def propose(self) -> Pause:
        raise NotImplementedError

    def answer(self, pause: Pause, decision: str, *, token: str | None = None, worker: int = 0) -> Answer:
        """Answer ``pause`` with ``decision`` (``approve`` or ``skip``, in the door's own word),
        with ``token`` in place of the one shown when given, through worker ``worker``."""
        raise NotImplementedError

    def effects(self) -> int:
        """The charges the shop holds for order 4411."""
        return len(shop.charges("4411"))

    # -- what the run store and the console say -------------------------------------------
    def rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        raise NotImplementedError

    def pause_row(self, pause_id: str) -> dict[str, Any]:
        found = self.rows("SELECT status, decision, answered_via, answered_by, thread_id, tool FROM threads_interrupt "
                          "WHERE id = ?", (pause_id,))
        assert found, f"no pause {pause_id} in the run store"
        return dict(zip(("status", "decision", "answered_via", "answered_by", "thread_id", "tool"), found[0],
                        strict=True))

    def thread_pauses(self, pause_id: str) -> list[tuple[str, str]]:
        """Every pause of ``pause_id``'s thread, oldest first: (id, status)."""
        return [(r[0], r[1]) for r in self.rows(
            "SELECT id, status FROM threads_interrupt WHERE thread_id = "
            "(SELECT thread_id FROM threads_interrupt WHERE id = ?) ORDER BY created_at, id", (pause_id,))]

    def console_get(self, path: str) -> tuple[int, str]:
        """A staff member's GET in the console that sees this door's pauses."""
        raise NotImplementedError

    def decisions_csv(self, pause_id: str) -> list[dict[str, str]]:
        """The console's decisions export, searched by the pause's id: one dict per row."""
        status, text = self.console_get(f"/admin/approvals/decision/csv/?q={pause_id}")
        assert status == 200, text[:500]
        return list(csv.DictReader(io.StringIO(text.lstrip("\ufeff"))))

    def close(self) -> None:
        pass


def step_outcome(steps: list[dict[str, Any]], tool: str = "charge_card") -> str:
    """A run's answer's word for the write's step: done, skipped, waiting, ..."""
    step = next((s for s in steps if s.get("tool") == tool), None)
    if step is None:
        return ""
    return {"succeeded": "done", "skipped": "skipped", "waiting": "waiting", "cancelled": "cancelled",
            "superseded": "superseded"}.get(step.get("status", ""), step.get("status", ""))
