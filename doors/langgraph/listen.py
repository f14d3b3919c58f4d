"""The LangGraph door's listener of the engine's notices (``STALWART_PAUSE_LISTENERS``)."""

from __future__ import annotations

from threads.engine import PauseClosed


def pause_closed(notice: PauseClosed) -> None:
    """A mirrored pause closed (answered through any door, or past its deadline)."""
    if not notice.mirrored:
        return
    from doors.langgraph import bridges

    bridges.carry_on_run(notice.run)
