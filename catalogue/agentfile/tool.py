"""A tool's entry in an agent file, checked (docs/agent-file.md, "A tool entry").

``tool_entry`` reads one entry of ``tools:`` (its one binding, read or write,
its declarations, its secret arguments) over what the agent's
``catalogue.json`` says of the tool, read by ``catalogue_tools``;
``verify_check`` checks a write's ``verify:`` against the agent's read tools.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from catalogue.agentfile.spec import AgentFileError, refuse_unknown_keys
from catalogue.catalogue_file import CatalogueError, validate_catalogue
from catalogue.tools import DECLARATIONS, Tool
from catalogue.wording import labels_problem, wording_problem

BINDING_KEYS = ("python", "http", "mcp")
TOOL_KEYS = {
    *BINDING_KEYS, *DECLARATIONS, "read", "write", "description", "input_schema",
    "result_schema", "secret",
}


def verify_check(path: Path, place: str, tool: Tool, tools: Mapping[str, Tool]) -> None:
    """``verify: {tool: <a read tool>, arguments: {...}, match: {...}, items?: <field>}`` (docs/agent-file.md)."""
    spec = tool.verify
    if spec is None:
        return
    if not isinstance(spec, Mapping) or not isinstance(spec.get("tool"), str):
        raise AgentFileError(path, place, "must be {tool: NAME, arguments: {...}, match: {...}}")
    unknown = set(spec) - {"tool", "arguments", "match", "items"}
    if unknown:
        raise AgentFileError(path, place, f"unknown keys: {', '.join(sorted(unknown))}")
    probe = tools.get(spec["tool"])
    if probe is None or probe.is_write:
        raise AgentFileError(path, place, f"the probe must be a read tool of this agent: {spec['tool']!r}")
    for key in ("arguments", "match"):
        if not isinstance(spec.get(key) or {}, Mapping):
            raise AgentFileError(path, f"{place}.{key}", "must be a mapping")
    if not spec.get("match"):
        raise AgentFileError(path, f"{place}.match", "say what to match in the probe's result")


def catalogue_tools(path: Path, place: str, ref: Any) -> list[Tool]:
    if not isinstance(ref, str):
        raise AgentFileError(path, place, "must be the path of a catalogue.json")
    cpath = (path.parent / ref).resolve()
    try:
        data = json.loads(cpath.read_text(encoding="utf-8"))
    except OSError as exc:
        raise AgentFileError(path, place, f"cannot read {cpath} ({exc.strerror or exc})") from exc
    except json.JSONDecodeError as exc:
        raise AgentFileError(path, place, f"{cpath} is not JSON: line {exc.lineno}: {exc.msg}") from exc
    try:
        validate_catalogue(data)
    except CatalogueError as exc:
        raise AgentFileError(path, place, f"{cpath}: {exc}") from exc
    if not isinstance(data, Mapping) or not isinstance(data.get("tools"), list):
        raise AgentFileError(path, place, f"{cpath} is not a catalogue (no 'tools' list)")
    out = []
    for i, t in enumerate(data["tools"]):
        if not isinstance(t, Mapping) or not isinstance(t.get("name"), str):
            raise AgentFileError(path, f"{place}: tools[{i}]", "a tool needs a name")
        out.append(Tool.from_json(t))
    return out


def tool_entry(path: Path, place: str, name: str, raw: Any, base: Tool | None) -> tuple[Tool, frozenset[str]]:
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        raise AgentFileError(path, place, "a tool must be a mapping (python:, read:/write:, declarations)")
    refuse_unknown_keys(path, place, raw, TOOL_KEYS)
    bindings = [k for k in BINDING_KEYS if k in raw]
    if len(bindings) > 1:
        raise AgentFileError(path, place, f"a tool has one binding, not {', '.join(bindings)}")
    if not bindings and base is None:
        raise AgentFileError(path, place, "no binding: give python: module:function (or http:/mcp:)")
    if raw.get("read") and raw.get("write"):
        raise AgentFileError(path, place, "a tool is read: true or write: true, not both")

    changes: dict[str, Any] = {}
    if bindings:
        key = bindings[0]
        changes["binding"] = {key: raw[key]}
    if "read" in raw or "write" in raw:
        changes["kind"] = "read" if raw.get("read") else "write"
    elif base is None:
        changes["kind"] = "write"  # never guessed in the costly direction (docs/agent-file.md, "A tool entry")
    for key in (*DECLARATIONS, "description", "input_schema", "result_schema"):
        if key in raw:
            changes[key] = raw[key]

    if bindings == ["python"]:
        from catalogue.bindings.python import BindingError, describe, resolve_callable, signature_schema

        try:
            func = resolve_callable(str(raw["python"]), base_dir=str(path.parent))
        except BindingError as exc:
            raise AgentFileError(path, f"{place}.python", str(exc)) from exc
        changes.setdefault("input_schema", signature_schema(func))
        given = changes.get("description")
        if not given and not (base and base.description):
            changes["description"] = describe(func)
        elif isinstance(given, Mapping) and "en" not in given and not (base and base.description):
            changes["description"] = {"en": describe(func), **given}  # pt-BR given, English from the docstring

    for flag in ("irreversible", "egress", "reads_outside"):
        if flag in changes and not isinstance(changes[flag], bool):
            raise AgentFileError(path, f"{place}.{flag}", "must be true or false")
    if changes.get("description") is not None and not isinstance(changes["description"], str):
        problem = wording_problem(changes["description"])
        if problem:
            raise AgentFileError(path, f"{place}.description", problem)
    for key, problem_of in (("confirm", wording_problem), ("labels", labels_problem)):
        if changes.get(key) is not None:
            problem = problem_of(changes[key])
            if problem:
                raise AgentFileError(path, f"{place}.{key}", problem)
    comp = changes.get("compensation")
    if comp is not None and (not isinstance(comp, Mapping) or "tool" not in comp):
        raise AgentFileError(path, f"{place}.compensation", "must be {tool: NAME, arguments: {...}}")
    idem = changes.get("idempotency")
    if idem is not None and (not isinstance(idem, Mapping) or not ({"argument", "header"} & set(idem))):
        raise AgentFileError(path, f"{place}.idempotency", "must be {argument: NAME} or {header: NAME}")
    schema = changes.get("input_schema")
    if schema is not None and not isinstance(schema, Mapping):
        raise AgentFileError(path, f"{place}.input_schema", "must be a JSON Schema object")
    secret_raw = raw.get("secret") or []
    if not isinstance(secret_raw, list):
        raise AgentFileError(path, f"{place}.secret", "must be a list of argument names")

    given = changes.get("description")
    if isinstance(given, Mapping) and "en" not in given and base is not None and base.description:
        changes["description"] = {"en": base.description, **given}  # pt-BR given over the catalogue's English
    if "description" in changes:
        changes["descriptions"] = None  # the entry's own description replaces every language of the catalogue's
    tool = replace(base, **changes) if base is not None else Tool(name=name, **changes)
    return tool, frozenset(str(s) for s in secret_raw)
