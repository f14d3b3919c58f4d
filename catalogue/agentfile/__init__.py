"""The agent file (docs/agent-file.md): YAML holding one or more agents and their tools.

``load_agent_file(path)`` reads and checks the whole file before anything is
served: unknown keys, a tool that cannot be imported, a compensation naming no
tool, a bad language... each is an ``AgentFileError`` naming the file, the
place (``agents[0].tools.charge_card.python``) and the reason.

The file's folder is put on the import path, so ``python: tools:get_book``
finds ``tools.py`` beside the file. Relative paths (``catalogue``,
``vocabulary``) resolve against that folder.

No Django here: the loader is shared by ``stalwart verify``, ``stalwart plan``
and the server.

Inside: ``spec`` (what a loaded file holds, and ``AgentFileError``), ``agent``
(one agent's entry checked) and ``tool`` (one tool's entry checked); the file
itself is read here.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from catalogue.agentfile.agent import agent_entry
from catalogue.agentfile.spec import LANGUAGES, AgentFile, AgentFileError, AgentSpec, refuse_unknown_keys

# Where the loaded file's values are imported from by the rest of the project.
__all__ = [
    "CATALOGUE_GIVEN", "FILE_KEYS", "LANGUAGES", "AgentFile", "AgentFileError", "AgentSpec",
    "load_agent_file", "looks_like_catalogue", "read_storage",
]

FILE_KEYS = {"agents", "storage"}


# A catalogue (catalogue.json) given where an agent file goes: said as such, not as "unknown key 'version'".
CATALOGUE_GIVEN = ("this is a catalogue (version and tools), not an agent file: an agent file names it "
                   "under an agent's catalogue: key")


def looks_like_catalogue(data: Any) -> bool:
    """True for a mapping shaped like ``catalogue.json`` (``version``, ``tools``) and not like an agent file."""
    return isinstance(data, Mapping) and "tools" in data and "version" in data and "agents" not in data


def read_storage(path: str | Path) -> str | None:
    """The file's ``storage:`` alone, for settings (no imports, no checks)."""
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return None
    if isinstance(data, Mapping) and isinstance(data.get("storage"), str):
        return str(data["storage"])
    return None


def load_agent_file(path: str | Path) -> AgentFile:
    path = Path(path).resolve()
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise AgentFileError(path, "", f"cannot read the file ({exc.strerror or exc})") from exc
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        place = f"line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise AgentFileError(path, place, f"not valid YAML: {problem}") from exc
    if not isinstance(data, Mapping):
        raise AgentFileError(path, "", "the file must be a mapping with an 'agents' list")
    if looks_like_catalogue(data):
        raise AgentFileError(path, "", CATALOGUE_GIVEN)
    refuse_unknown_keys(path, "", data, FILE_KEYS)
    agents_raw = data.get("agents")
    if not isinstance(agents_raw, list) or not agents_raw:
        raise AgentFileError(path, "agents", "must be a non-empty list of agents")
    storage = data.get("storage")
    if storage is not None and not isinstance(storage, str):
        raise AgentFileError(path, "storage", "must be a database URL such as sqlite:///runs.db")

    from catalogue.bindings.python import add_import_path

    add_import_path(str(path.parent))
    agents = tuple(agent_entry(path, f"agents[{i}]", raw) for i, raw in enumerate(agents_raw))
    seen: set[str] = set()
    for i, agent in enumerate(agents):
        if agent.name in seen:
            raise AgentFileError(path, f"agents[{i}].name", f"two agents are named '{agent.name}'")
        seen.add(agent.name)
    return AgentFile(path=path, agents=agents, storage=storage)
