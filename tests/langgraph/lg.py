"""Builders for the LangGraph door's tests: a bridge served in this process, a
graph stopped at its interrupt, an answer through the bridge, the journal's rows."""

from __future__ import annotations

from typing import Any

from doors.langgraph import answers, bridges
from doors.langgraph.bridge import Bridge
from tests.langgraph.graphs import mail_agent, say
from threads.engine import ReplayView, Via, replays_find

T = "t-1"


def served(graph: Any, **options: Any) -> Bridge:
    """A bridge over ``graph`` registered in this process, as ``make_app`` registers it."""
    return bridges.bridge_register(Bridge(graph, **options))


def started(*calls: tuple[str, dict[str, Any]], thread: str = T, **options: Any) -> Bridge:
    """The mail agent served, stopped at the interrupt of ``calls`` on ``thread``."""
    bridge = served(mail_agent(), **options)
    bridge.graph.invoke(say(*calls), bridge.config(thread))
    return bridge


def resume(bridge: Bridge, pause: dict[str, Any], decision: str, *, thread: str = T,
           **body: Any) -> dict[str, Any]:
    """The bridge's resume route's work, for one answer."""
    return answers.resume(bridge, thread, {"interrupt_id": pause["id"], "decision": decision,
                                           "token": body.pop("token", pause["token"]), **body},
                          by="ana", via=Via.LANGGRAPH)


def checkpoint(bridge: Bridge, thread: str = T) -> str:
    return str(bridge.graph.get_state(bridge.config(thread)).config["configurable"]["checkpoint_id"])


def journal(door: str = "langgraph") -> list[ReplayView]:
    return replays_find(door=door)


def handed(bridge: Bridge) -> list[Any]:
    """What the graph is handed back from now on: each ``Command``'s resume map, in order."""
    from langgraph.types import Command

    seen: list[Any] = []
    stream = bridge.graph.stream

    def spy(input_: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(input_, Command):
            seen.append(input_.resume)
        return stream(input_, *args, **kwargs)

    bridge.graph.stream = spy
    return seen
