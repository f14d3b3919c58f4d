"""The agents this process serves, loaded once from ``settings.AGENT_FILE``
(or the file ``use`` points at, for a process that serves another later),
and the agents of the files ``include`` adds beside it (a LangChain
middleware's own tools), found by name: a run names its agent, and a resume on any worker
finds it there, whatever file the process serves first.

Also the only place that merges the two withdrawal lists (agent file and
database) and chooses the selector's language (docs/agent-file.md, "An
agent"): the request's ``language``; the admin's per-agent setting; the
agent file's ``language``; the vocabulary's ``settings.language``; else
English.

The database's part (withdrawals, the language setting) is read once per
process and read again after any change, in any process (``catalogue.stored``):
no SQL per turn, and a withdrawal is refused from the moment it is committed.
"""

from __future__ import annotations

import threading
from typing import Any

from django.conf import settings

from catalogue import stored
from catalogue.agentfile import LANGUAGES, AgentFile, AgentFileError, AgentSpec, load_agent_file

_lock = threading.Lock()
_loaded: dict[str, AgentFile] = {}
_used: dict[str, str | None] = {}
_included: dict[str, None] = {}  # paths, in the order they were included


class NoAgentFile(RuntimeError):
    pass


def use(path: str, agent: str | None = None) -> None:
    """Serve ``path`` (and its agent ``agent``) from now on in this process."""
    with _lock:
        if _used.get("path") != path:
            _loaded.clear()
            _selectors.clear()
        _used.update(path=path, agent=agent)


def include(path: str) -> None:
    """Serve the agents of ``path`` too, by name, beside the process's own file (loaded on first use)."""
    with _lock:
        _included[path] = None


def _loaded_file(path: str) -> AgentFile:
    with _lock:
        if path not in _loaded:
            _loaded[path] = load_agent_file(path)
        return _loaded[path]


def agent_file() -> AgentFile:
    path = _used.get("path") or settings.AGENT_FILE
    if not path:
        raise NoAgentFile("no agent file: start with `stalwart serve AGENT.yaml` (or set STALWART_AGENT_FILE)")
    return _loaded_file(path)


def forget() -> None:
    """Drop loaded agent files and go back to ``settings.AGENT_FILE`` (tests that switch files)."""
    with _lock:
        _loaded.clear()
        _selectors.clear()
        _used.clear()
        _included.clear()
    stored.forget()


def get_agent(name: str | None = None) -> AgentSpec:
    """The agent ``name`` (None: the one that answers first) of the process's
    file, else of a file included beside it."""
    wanted = name or _used.get("agent") or settings.STALWART_AGENT_NAME
    try:
        return agent_file().agent(wanted)
    except AgentFileError:
        for path in list(_included):
            found = next((a for a in _loaded_file(path).agents if a.name == wanted), None)
            if found is not None:
                return found
        raise


def withdrawn_tools(agent: AgentSpec) -> frozenset[str]:
    return agent.withdrawn | stored.agent_stored(agent.name, _read_stored).withdrawn


def choose_language(agent: AgentSpec, requested: str | None = None) -> str:
    if requested:
        return requested  # an unknown language plans as unread: never guessed
    language = stored.agent_stored(agent.name, _read_stored).language
    if language in LANGUAGES:
        return language
    return agent.default_language


def _read_stored(agent: str) -> stored.Stored:
    from catalogue.models import AgentSetting, Withdrawal

    tools = frozenset(Withdrawal.objects.filter(agent=agent).values_list("tool", flat=True))
    language = AgentSetting.objects.filter(agent=agent).values_list("language", flat=True).first()
    return stored.Stored(withdrawn=tools, language=language or "")


_selectors: dict[int, Any] = {}


def selector_for(agent: AgentSpec) -> Any:
    """The agent's selector, its word index built once per loaded agent."""
    from catalogue.selector import Selector

    with _lock:
        found = _selectors.get(id(agent))
        if found is None or found[0] is not agent:
            found = (agent, Selector(agent.tools, agent.vocabulary))
            _selectors[id(agent)] = found
        return found[1]
