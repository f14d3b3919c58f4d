"""Several pauses of a thread answered at once, all or nothing (an AG-UI
``resume[]``, docs/ag-ui.md).

One unit of work: the thread locked first; the resume's row in the replay
journal taken (the same resume again does nothing and answers what the first
did: ``Answers.replayed``); every open pause of the thread covered by the
resume, else ``PausesPending``; then each answer checked and claimed, oldest
pause first, exactly as ``pause_answer`` checks and claims one (an edit as
``pause_edit``). An answer refused on any of them (stale, another token, a
decision its kind does not take, an answer that does not fit) rolls the
whole unit back: nothing changed, and the error says which pause. A pause
an earlier answer of the same resume closed (a ``cancel_all`` ends its run)
is passed over. An approval short of a policy's quorum is kept and its
pause stays open (``Answers.recorded``: docs/policies.md). After the commit
each run is carried on, in order, and the answers are read, one per run.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from threads.engine.deadlines import pause_expire_in
from threads.engine.decisions import Follow, pause_claim, pause_with_steps
from threads.engine.edits import pause_edit_in
from threads.engine.execute import Prepared
from threads.engine.pauses import overdue, present, thread_pauses
from threads.engine.progress import Progress
from threads.engine.replays import Replayed, ReplayKey, ReplayView, replay_take_new, replay_view
from threads.engine.services import answer_apply, answer_of, carry_on, replayed_answer
from threads.engine.unit import Unit, unit
from threads.engine.views import Answer
from threads.errors import ApprovalRecorded, BadRequest, NotFound, PausesPending
from threads.models import Interrupt

DETAIL_NOT_COVERED = _("Answer every open pause of the thread at once; not answered: {ids}.")
DETAIL_TWICE = _("Each pause is answered once in one resume.")


@dataclass(frozen=True)
class PauseAnswer:
    """One pause's answer: a decision (and a question's answer), or an edit of
    the call's arguments (a new proposal that waits again; ``replace``: the
    edit is all of its arguments, ``edits.pause_edit_in``)."""

    pause: str
    token: str
    decision: str = ""
    answer: Any = None
    edit: dict[str, str] | None = None
    replace: bool = False


@dataclass(frozen=True)
class Answers:
    answers: list[Answer]  # one per run the resume answered, in the order first answered
    replayed: ReplayView | None = None  # the same resume was taken before: what it did
    replay_id: int | None = None
    # Approvals short of a policy's quorum, kept; their pauses stay open: {"interrupt_id", "approvals"} each.
    recorded: list[dict[str, Any]] = field(default_factory=list)


def pauses_answer(*, thread_id: str, answers: Sequence[PauseAnswer], by: str, via: str,
                  covering: Collection[str] | None = None, replay: ReplayKey | None = None,
                  session_hash: str | None = None, edit_origin: str = "staff") -> Answers:
    """Answer several pauses of the thread at once, all or nothing (see the
    module's docstring). ``covering``: the pauses the resume speaks for (an
    answer, or one it leaves open on purpose); every open pause of the thread
    must be one of them."""
    ids = [a.pause for a in answers]
    if len(set(ids)) != len(ids):
        raise BadRequest(DETAIL_TWICE)
    done: list[tuple[Progress, Follow, Prepared | None]] = []
    recorded: list[dict[str, Any]] = []
    try:
        with unit(thread_id) as u:
            taken = replay_take_new(replay, thread_id=thread_id, run_id="") if replay is not None else None
            if covering is not None:
                _covered(u, thread_id, set(covering))
            for given in _oldest_first(thread_id, answers):
                pause, steps = pause_with_steps(thread_id, given.pause, session_hash)
                if pause.status != Interrupt.Status.OPEN and pause.id in {c.pause for c in u.closed}:
                    continue  # closed by an answer before it in this resume (a cancel_all ends its run)
                if given.edit is not None:
                    progress, prepared = pause_edit_in(u, pause, token=given.token, values=given.edit, by=by,
                                                       via=via, origin=edit_origin, replace=given.replace)
                    done.append((progress, Follow.STEPS, prepared))
                    continue
                progress = Progress(run=pause.run, notices=u.notices)
                try:
                    value = pause_claim(u, pause, decision=given.decision, token=given.token, answer=given.answer,
                                        by=by, via=via)
                except ApprovalRecorded as kept:
                    recorded.append({"interrupt_id": kept.interrupt, "approvals": kept.approvals})
                    continue
                done.append((progress, *answer_apply(u, progress, pause, steps, given.decision, value)))
    except Replayed as again:
        return Answers(answers=[replayed_answer(again.row)], replayed=replay_view(again.row))
    for progress, follow, prepared in done:
        carry_on(progress, follow, prepared)
    last = {progress.run.id: progress for progress, *_ in done}
    for progress in last.values():
        progress.replay_id = taken.pk if taken is not None else None
    return Answers(answers=[answer_of(p) for p in last.values()], replay_id=taken.pk if taken is not None else None,
                   recorded=recorded)


def _oldest_first(thread_id: str, answers: Sequence[PauseAnswer]) -> list[PauseAnswer]:
    """The answers in the order their pauses opened; a pause not of this thread is the 404 it is."""
    order = list(Interrupt.objects.filter(thread_id=thread_id, pk__in=[a.pause for a in answers])
                 .order_by("created_at", "id").values_list("pk", flat=True))
    if len(order) != len(answers):
        raise NotFound(str(_("This thread has no pause with that id.")))
    by_id = {a.pause: a for a in answers}
    return [by_id[pk] for pk in order]


def _covered(u: Unit, thread_id: str, covering: set[str]) -> None:
    """Every open pause of the thread is one the resume speaks for (those past
    their deadline are closed first, as any read of them does)."""
    pauses = thread_pauses(thread_id)
    late = overdue(pauses)
    now = timezone.now()
    for pause in late:
        pause_expire_in(u, pause, now)
    left = [p for p in pauses if p not in late and p.id not in covering]
    if left:
        raise PausesPending(str(DETAIL_NOT_COVERED).format(ids=", ".join(p.id for p in left)),
                            waiting=[present(p) for p in left])
