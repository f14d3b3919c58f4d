"""What an agent file says, once loaded and checked, and how loading fails.

``AgentFile`` holds its agents (``AgentSpec``, each with its tools, model and
MCP settings, ``McpSettings``); ``AgentFileError`` is every reason a file
cannot be served, with the place in the file (docs/agent-file.md, "Errors
when loading"); ``refuse_unknown_keys`` is the check every part of the file
shares.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from catalogue.llm.values import ModelConfig
from catalogue.plan import Vocabulary
from catalogue.tools import Tool

if TYPE_CHECKING:
    from catalogue.policies import Policy

LANGUAGES = ("en", "pt-BR")


class AgentFileError(Exception):
    """An agent file that cannot be served: where, and why."""

    def __init__(self, path: str | Path, place: str, reason: str) -> None:
        self.path = str(path)
        self.place = place
        self.reason = reason
        super().__init__(f"{self.path}: {place}: {reason}" if place else f"{self.path}: {reason}")


@dataclass(frozen=True)
class McpSettings:
    """How the MCP gateway (docs/mcp.md) serves an agent: who approves a write
    (``person``: in the console or the widget; ``client``: the MCP client, by
    form elicitation), how long a held call waits before it answers "waiting"
    (None: the client's known limit, else 50 s), and how long a result kept
    for a client that gave up is replayed to the same call."""

    approver: str = "person"
    wait: float | None = None
    replay: float = 600.0


@dataclass(frozen=True)
class AgentSpec:
    name: str
    purpose: str = ""
    language: str = "en"
    language_from_file: bool = False  # the agent file said `language:` itself
    on_unread: str = "ask"
    tools: tuple[Tool, ...] = ()
    withdrawn: frozenset[str] = frozenset()
    vocabulary: Vocabulary | None = None
    model: ModelConfig | None = None
    steps: str | None = None
    greeting: str = ""
    secrets: Mapping[str, frozenset[str]] = field(default_factory=dict)  # tool -> secret args
    deadlines: Mapping[str, float] = field(default_factory=dict)  # pause kind -> seconds it may wait
    escalate_after: Mapping[str, float] = field(default_factory=dict)  # pause kind -> seconds, then told again
    mcp: McpSettings = field(default_factory=lambda: McpSettings())
    policies: tuple[Policy, ...] = ()  # docs/policies.md: what makes its check stricter
    # ``purpose`` and ``greeting`` per language, where the file gave them so
    # ({en: ..., pt-BR: ...}); ``purpose`` and ``greeting`` above keep the English.
    wordings: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def said(self, key: str, language: str) -> str:
        """``purpose`` or ``greeting`` in ``language``: its own words, else English."""
        own = (self.wordings.get(key) or {}).get(language)
        return own or str(getattr(self, key))

    def tool(self, name: str) -> Tool | None:
        for t in self.tools:
            if t.name == name:
                return t
        return None

    @property
    def tool_map(self) -> dict[str, Tool]:
        return {t.name: t for t in self.tools}

    @property
    def default_language(self) -> str:
        """The selector's language short of a request or the admin's setting:
        the file's ``language``, the vocabulary's ``settings.language``, English."""
        if self.language_from_file:
            return self.language
        if self.vocabulary is not None and self.vocabulary.language in LANGUAGES:
            return str(self.vocabulary.language)
        return "en"


@dataclass(frozen=True)
class AgentFile:
    path: Path
    agents: tuple[AgentSpec, ...]
    storage: str | None = None

    @property
    def folder(self) -> Path:
        return self.path.parent

    def agent(self, name: str | None = None) -> AgentSpec:
        if name is None:
            return self.agents[0]
        for a in self.agents:
            if a.name == name:
                return a
        names = ", ".join(a.name for a in self.agents)
        raise AgentFileError(self.path, "", f"no agent named '{name}' (the file has: {names})")


def refuse_unknown_keys(path: Path, place: str, raw: Mapping[str, Any], allowed: set[str]) -> None:
    """A key of ``raw`` not in ``allowed`` refused, with the keys known at that place."""
    for key in raw:
        if key not in allowed:
            where = f"{place}.{key}" if place else str(key)
            known = ", ".join(sorted(allowed))
            raise AgentFileError(path, where, f"unknown key '{key}' (known keys: {known})")
