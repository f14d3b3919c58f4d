"""The LangGraph bridges this process serves, by graph name (SPEC §16).

A mirrored pause answered in the console must resume its graph. The bridge
(``stalwart_site.langgraph``) lives a layer up, so it registers here how it
carries a graph thread on (``bridge_register``), and the console, after its
answer's claim, asks ``pause_answered`` to hand the thread over. A pause of a
graph no bridge in this process serves is left answered: its bridge resumes
the graph when it next reads the thread (a sync, a resume, or its start).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

log = logging.getLogger("stalwart.langgraph")

_bridges: dict[str, Callable[[str], Any]] = {}


def bridge_register(graph: str, carry_on: Callable[[str], Any]) -> None:
    _bridges[graph] = carry_on


def bridge_names() -> list[str]:
    return sorted(_bridges)


def bridge_forget(graph: str) -> None:
    _bridges.pop(graph, None)


def pause_answered(pause_run_id: str) -> bool:
    """After a mirrored pause's answer: its graph carried on in this process (True), if its bridge is here."""
    from approvals.models import LangGraphCall

    row = LangGraphCall.objects.filter(pk=pause_run_id, source=LangGraphCall.Source.BRIDGE).first()
    if row is None or row.graph not in _bridges:
        return False
    try:
        _bridges[row.graph](row.graph_thread)
    except Exception:  # the answer is kept; the bridge resumes at its next read or start
        log.exception("graph %s did not resume thread %s after a console answer", row.graph, row.graph_thread)
        return False
    return True
