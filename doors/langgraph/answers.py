"""``POST /threads/{id}/resume``: an answer to one mirrored pause, through the
engine, and what it made the graph do (docs/langgraph.md).

In order: the pause found in the graph thread's mirrors (else 404); under
this process's lock of the graph thread, its interrupt still pending with
the same value (else its mirror closes and the answer is ``409
interrupt_stale``, the checkpoint untouched); then the answer:

- an ``edit`` a confirm offers: ``handback_edit`` with its arguments (the
  same tool, a new pause and token; nothing resumes);
- anything else: ``pause_answer`` (token, claim, audit; the engine refuses a
  decision the pause does not offer, an edit without arguments, a
  ``respond`` without its message). The engine's notice of the closed pause
  carries the graph on (``resumes.carry_on``, from ``doors.langgraph.listen``);
  the answer says what that did: ``resumed`` and the graph's ``output``, or
  what still waits, or ``502 graph_failed`` (kept, and sent again).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext_lazy as _

from doors.langgraph import resumes
from doors.langgraph.bridge import Bridge, GraphFailed
from doors.langgraph.requests import check_thread
from threads.engine import PauseKind, handback_edit, pause_answer, pause_read
from threads.errors import NotFound

DETAIL_NO_PAUSE = _("This thread has no pause with that id.")


def resume(bridge: Bridge, graph_thread: str, data: Mapping[str, Any], *, by: str, via: str) -> dict[str, Any]:
    """``data``: ``{"interrupt_id", "decision", "token", "answer"?}``, validated (``ResumeSerializer``)."""
    check_thread(graph_thread)
    thread_id = bridge.thread_of(graph_thread)
    pause = pause_read(str(data["interrupt_id"]), thread_id=thread_id)
    row = bridge.row_of(pause.run) if pause is not None else None
    if pause is None or row is None:
        raise NotFound(DETAIL_NO_PAUSE)
    decision, token, answer = str(data["decision"]), str(data["token"]), data.get("answer")
    with bridge.lock(graph_thread):
        if row.status == "open" and not bridge.still_pending(row, bridge.pending(graph_thread)):
            raise bridge.gone(row)
        if decision == "edit" and pause.kind == PauseKind.CONFIRM and "edit" in pause.choices:
            edited = handback_edit(thread_id=thread_id, pause_id=pause.id, token=token, edit=answer, by=by,
                                   via=via)
            return bridge.answer(graph_thread, resumed=False, not_notified=edited.not_notified)
        with resumes.watching() as seen:
            answered = pause_answer(thread_id=thread_id, pause_id=pause.id, decision=decision, token=token,
                                    answer=answer, by=by, via=via)
        outcome = seen.get((bridge.name, graph_thread))
        if isinstance(outcome, GraphFailed):
            raise outcome
        if outcome is None:  # the engine's notice was not heard here (no listener set): carried on now
            outcome = resumes.carry_on(bridge, graph_thread) or bridge.answer(graph_thread, resumed=False)
    outcome = dict(outcome)
    outcome["not_notified"] = answered.not_notified + list(outcome.get("not_notified", []))
    return outcome
