"""Builders for the catalogue tests, and a minimal agent-file loader.

``load_agent_file`` here is a stand-in for the lead's ``catalogue.agentfile``
(not on this branch yet): it reads only what ``verify`` needs (each agent's
name, its catalogue and its ``tools:`` entries over it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from catalogue.catalogue_file import load_catalogue, overlay
from catalogue.tools import Tool


class AgentFileError(Exception):
    pass


@dataclass
class AgentSpec:
    name: str
    tools: list[Tool]
    withdrawn: list[str] = field(default_factory=list)


@dataclass
class AgentFile:
    agents: list[AgentSpec]


def load_agent_file(path: str | Path) -> AgentFile:
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise AgentFileError(f"{path}: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("agents"), list):
        raise AgentFileError(f"{path}: agents: a list of agents is required")
    agents = []
    for i, agent in enumerate(data["agents"]):
        base = load_catalogue(path.parent / agent["catalogue"]) if agent.get("catalogue") else []
        tools = overlay(base, agent.get("tools"), place=f"{path}: agents[{i}].tools")
        agents.append(AgentSpec(agent["name"], tools, list(agent.get("withdrawn") or [])))
    return AgentFile(agents)


def make_tool(name: str = "get_order", **overrides: Any) -> Tool:
    return Tool(name=name, **overrides)


def make_operation(operation_id: str | None = "get_order", **overrides: Any) -> dict[str, Any]:
    op: dict[str, Any] = {"responses": {"200": {"description": "OK"}}}
    if operation_id:
        op["operationId"] = operation_id
    op.update(overrides)
    return op


def make_document(paths: dict[str, Any], **overrides: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "servers": [{"url": "http://api.example.test/v1"}],
        "paths": paths,
    }
    doc.update(overrides)
    return doc
