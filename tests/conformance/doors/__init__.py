"""One driver per door, all of one shape (``base.Door``): propose the shop's
``charge_card`` write (order 4411, 40) through the door and get its pause as
the door shows it, answer it through the door (approve or skip), and count
the shop's charges. A new door joins the suite by adding its driver here and
its id to ``DOORS`` (docs/conformance.md)."""

from __future__ import annotations

from typing import Any

import pytest

from .base import CHARGE, SAY, WRONG_TOKEN, Answer, Door, Pause, unique

DOORS = ["http", "widget", "console", "desk", "mcp-2025-11-25", "mcp-2026-07-28", "mcp-stdio", "agui", "langgraph",
         "langgraph-api", "langchain"]
IN_PROCESS = {"desk", "langchain"}


def doors(skip: dict[str, str] | None = None, *, only: list[str] | None = None) -> list[Any]:
    """The door parameters of a promise's test: every door, those the promise does not
    apply to skipped with the reason (one sentence) the table in docs/conformance.md shows."""
    skip = skip or {}
    unknown = set(skip) - set(DOORS)
    assert not unknown, unknown
    return [pytest.param(d, id=d, marks=marks_of(d, skip.get(d))) for d in (only or DOORS)]


def marks_of(door: str, skipped: str | None) -> list[Any]:
    """A door's marks: its skip, with its reason; the database of this process for those that run in it
    (transactional: the LangChain middleware answers on LangGraph's own threads)."""
    marks = [pytest.mark.skip(reason=skipped)] if skipped else []
    if door in IN_PROCESS:
        marks.append(pytest.mark.django_db(transaction=True))
    return marks


def make_door(door_id: str, estate: Any) -> Door:
    from .agui import AguiDoor
    from .http import ConsoleDoor, HttpDoor, WidgetDoor
    from .inprocess import DeskDoor
    from .langgraph import AgentServerDoor, BridgeDoor, LangChainDoor
    from .mcp import Mcp2026Door, McpDoor, McpStdioDoor

    made: dict[str, Any] = {
        "http": lambda: HttpDoor(estate), "widget": lambda: WidgetDoor(estate), "console": lambda: ConsoleDoor(estate),
        "desk": lambda: DeskDoor(agent_file=estate.desk_agent_file), "mcp-2025-11-25": lambda: McpDoor(estate), "mcp-2026-07-28": lambda: Mcp2026Door(estate),
        "mcp-stdio": lambda: McpStdioDoor(estate), "agui": lambda: AguiDoor(estate),
        "langgraph": lambda: BridgeDoor(estate), "langgraph-api": lambda: AgentServerDoor(estate),
        "langchain": lambda: LangChainDoor(policies=estate.policies),
    }
    return made[door_id]()  # type: ignore[no-any-return]


__all__ = ["CHARGE", "DOORS", "IN_PROCESS", "SAY", "WRONG_TOKEN", "Answer", "Door", "Pause", "doors",
           "make_door", "unique"]
