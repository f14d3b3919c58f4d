"""The LangGraph door's listener of the engine's notices (``STALWART_PAUSE_LISTENERS``).

A mirrored pause that closed with an answer (through any door: this
bridge's route, the console's single or bulk answer, the signed channel) or
past its deadline lets its graph carry on at once, in the process that
closed it when that process serves the graph (``bridges.carry_on_run``);
else the tick of one that does carries it on. A pause closed because its
interrupt went away (superseded), closed with the others of its run, or
edited (a new pause waits instead) carries nothing on.
"""

from __future__ import annotations

from threads.engine import PauseClosed, PauseStatus

CARRIES_ON = frozenset({PauseStatus.ANSWERED, PauseStatus.TIMED_OUT})


def pause_closed(notice: PauseClosed) -> None:
    """A mirrored pause closed (answered through any door, or past its deadline)."""
    if not notice.mirrored or notice.status not in CARRIES_ON:
        return
    from doors.langgraph import bridges

    bridges.carry_on_run(notice.run)
