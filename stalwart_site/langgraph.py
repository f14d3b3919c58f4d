"""Stalwart with LangGraph (SPEC §16; the extra ``langgraph``).

``make_app(graph, *, on_interrupt=(), secret=None)``: an ASGI application over
a team's compiled graph and its checkpointer, mirroring each interrupt as
Stalwart pauses (``bridge``), with the console at ``/admin/``.
``StalwartMiddleware``: Stalwart's check on every tool call of a LangChain
``create_agent`` agent (``middleware``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["StalwartMiddleware", "make_app"]


def make_app(graph: Any, **kwargs: Any) -> Any:
    from doors.langgraph.app import make_app as make

    return make(graph, **kwargs)


def __getattr__(name: str) -> Any:
    if name == "StalwartMiddleware":  # imported on use: it needs langchain (the extra)
        from doors.langgraph.middleware import StalwartMiddleware

        return StalwartMiddleware
    raise AttributeError(name)
