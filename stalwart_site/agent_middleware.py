"""``stalwart_site.langgraph.StalwartMiddleware``: the LangChain middleware
(``doors.langgraph.middleware``) with Django started for it, over an agent
file or a list of tools (docs/langgraph.md).

Given tools (``BaseTool`` objects), their catalogue
(``catalogue.langchain.tool_catalogue``) and an agent file naming it are
written to the data folder (``<data>/langgraph/``), rewritten only when they
changed; the door's class includes that file beside the process's own.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from doors.langgraph.middleware import StalwartMiddleware as DoorMiddleware

DEFAULT_AGENT = "LangChain"


class StalwartMiddleware(DoorMiddleware):
    """``agent_file_or_catalogue``: an agent file's path, or the agent's tools;
    ``agent``: the agent's name (for tools, the catalogue's; default
    ``LangChain``); ``privileges``: those the agent's calls carry."""

    def __init__(self, agent_file_or_catalogue: str | Path | Iterable[Any], *, agent: str | None = None,
                 privileges: Iterable[str] = ()) -> None:
        from django.apps import apps

        from stalwart_site.bootstrap import setup

        if isinstance(agent_file_or_catalogue, str | Path):
            path, name = Path(agent_file_or_catalogue), agent
        else:
            name = agent or DEFAULT_AGENT
            path = agent_file_of(list(agent_file_or_catalogue), name)
        if not apps.ready:  # a process of its own: Django started, this file its agent file
            setup(agent_file=path, agent=name)
        super().__init__(path, agent=name, privileges=privileges)


def agent_file_of(tools: list[Any], agent: str) -> Path:
    """An agent file for ``tools`` in the data folder (its catalogue beside it), written when it changed."""
    from catalogue.catalogue_file import dump_catalogue
    from catalogue.langchain import tool_catalogue
    from stalwart_site.bootstrap import data_dir

    folder = data_dir() / "langgraph"
    folder.mkdir(parents=True, exist_ok=True)
    slug = hashlib.sha256(agent.encode()).hexdigest()[:12]
    catalogue = folder / f"catalogue-{slug}.json"
    text = dump_catalogue(tool_catalogue(tools, agent=agent))
    if not catalogue.exists() or catalogue.read_text(encoding="utf-8") != text:
        catalogue.write_text(text, encoding="utf-8")
    path = folder / f"agent-{slug}.yaml"
    body = json.dumps({"agents": [{"name": agent, "on_unread": "refuse", "catalogue": catalogue.name}]})
    if not path.exists() or path.read_text(encoding="utf-8") != body:
        path.write_text(body, encoding="utf-8")
    return path
