"""What one call into the engine has done so far, for the reply it ends with.

A call into the engine (a turn, an answer, an edit, a sweep carrying a run
on) may take several transactions: the claim, the call sent between two of
them, its outcome. ``Progress`` goes along: the run it carries on, the lines
its reply will say, the reply once written, and the handles of the notices
its transactions stored (``not_notified`` is asked of them after the last
commit). It holds no copy of the run's steps or pauses: the answer a person
sees is read after the last commit (``reads.run_answer``).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

from threads.models import Message, Run


def new_id(prefix: str) -> str:
    return f"{prefix}-{secrets.token_hex(12)}"


@dataclass
class Progress:
    run: Run
    lines: list[str] = field(default_factory=list)
    reply: Message | None = None
    notices: list[Any] = field(default_factory=list)  # kept by each unit it opens: unit(..., notices=)
    replay_id: int | None = None  # the call's row in the replay journal, taken with its run
