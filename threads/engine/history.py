"""What a door reads of a thread besides a run's answer: whether the thread
is a session's, its latest run as it stands, its history (the turns, the
replies and the calls of its newest runs), and one pause as it stands.

Each is a read after commit, in typed values (``threads.engine.views``), so
a door never reads the run store's tables itself.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import datetime

from threads.engine.pauses import pause_view
from threads.engine.reads import open_pauses, run_answer, step_view
from threads.engine.views import Answer, PauseView, Reply, StepView
from threads.errors import NotFound
from threads.keys import thread_name
from threads.models import Interrupt, Message, Run, Step, Thread

HISTORY_RUNS = 50


def thread_check(thread_id: str, session_hash: str) -> bool:
    """True when the thread is there and the session's; False when it is not
    opened yet; another session's is the 404 of a thread that is not there
    (never saying which)."""
    owner = Thread.objects.filter(pk=thread_id).values_list("session_hash", flat=True).first()
    if owner is None:
        return False
    if not secrets.compare_digest(str(owner), session_hash):
        raise NotFound()
    return True


def thread_latest(thread_id: str) -> Answer:
    """The thread's newest run as it stands, or (no run yet) its open pauses alone."""
    run = Run.objects.filter(thread_id=thread_id).order_by("-created_at").first()
    if run is not None:
        return run_answer(run)
    return Answer(thread=thread_name(thread_id), run="", status="", reply=None, waiting=open_pauses(thread_id),
                  refusals=[], rollback=None, steps=[])


@dataclass(frozen=True)
class RunHistory:
    """One run of a thread's history: the person's turn, the replies, the calls."""

    run: str
    text: str
    person: str  # the person's message id ("" if it has none)
    replies: list[Reply] = field(default_factory=list)
    steps: list[StepView] = field(default_factory=list)
    started_at: datetime | None = None


def thread_history(thread_id: str, *, runs: int = HISTORY_RUNS) -> list[RunHistory]:
    """The thread's newest ``runs`` runs, oldest first."""
    newest = list(Run.objects.filter(thread_id=thread_id).order_by("-created_at")
                  .values_list("id", "text", "created_at")[:runs])[::-1]
    ids = [r for r, _, _ in newest]
    person: dict[str, str] = {}
    replies: dict[str, list[Reply]] = {r: [] for r in ids}
    for mid, run, role, text in (Message.objects.filter(run_id__in=ids).order_by("created_at", "id")
                                 .values_list("id", "run_id", "role", "text")):
        if role == Message.Role.PERSON:
            person.setdefault(run, mid)
        else:
            replies[run].append(Reply(id=mid, text=text))
    steps: dict[str, list[StepView]] = {r: [] for r in ids}
    for step in Step.objects.filter(run_id__in=ids).order_by("run_id", "index"):
        steps[step.run_id].append(step_view(step))
    return [RunHistory(run=r, text=text, person=person.get(r, ""), replies=replies[r], steps=steps[r], started_at=at)
            for r, text, at in newest]


def pause_read(pause_id: str, *, thread_id: str | None = None) -> PauseView | None:
    """One pause as it stands, open or closed (None: no such pause, or not of ``thread_id``)."""
    pauses = Interrupt.objects.select_related("step").filter(pk=pause_id)
    if thread_id is not None:
        pauses = pauses.filter(thread_id=thread_id)
    pause = pauses.first()
    return pause_view(pause) if pause is not None else None
