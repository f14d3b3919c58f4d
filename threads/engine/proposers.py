"""Who proposed a run: the door it came through and, where there is one, the
caller's own name (an MCP client's key, a LangGraph graph or agent), kept on
the run so the console can say who asked (docs/operating.md, "A pause's page")."""

from __future__ import annotations

from dataclasses import dataclass

# The doors a run comes through (``Run.proposed_via``); "" for a run stored before they were recorded.
DOORS = ("widget", "http", "mcp", "agui", "langgraph", "langchain", "python")


@dataclass(frozen=True)
class Proposer:
    """``door``: one of ``DOORS``; ``name``: the caller as Stalwart knows it (an MCP
    client's name, ``local`` for a loopback MCP client with no key; a graph's name), or ""."""

    door: str
    name: str = ""

    def __post_init__(self) -> None:
        if self.door not in DOORS:
            raise ValueError(f"unknown door {self.door!r}")
