"""The agent file (SPEC §3): YAML holding one or more agents and their tools.

``load_agent_file(path)`` reads and checks the whole file before anything is
served: unknown keys, a tool that cannot be imported, a compensation naming no
tool, a bad language... each is an ``AgentFileError`` naming the file, the
place (``agents[0].tools.charge_card.python``) and the reason.

The file's folder is put on the import path, so ``python: tools:get_book``
finds ``tools.py`` beside the file. Relative paths (``catalogue``,
``vocabulary``) resolve against that folder.

No Django here: the loader is shared by ``stalwart verify``, ``stalwart plan``
and the server.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from catalogue.catalogue_file import CatalogueError, validate_catalogue
from catalogue.llm import ModelConfig
from catalogue.plan import Vocabulary
from catalogue.tools import DECLARATIONS, Tool
from catalogue.wording import labels_problem, wording_problem

LANGUAGES = ("en", "pt-BR")
ON_UNREAD = ("ask", "refuse")
FILE_KEYS = {"agents", "storage"}
AGENT_KEYS = {
    "name", "purpose", "language", "on_unread", "vocabulary", "model", "catalogue",
    "tools", "withdrawn", "steps", "greeting", "deadlines", "escalate_after", "mcp",
}
# The kinds of pause a deadline or an escalation can name (SPEC §7.1, §7.6).
PAUSE_KINDS = ("confirm", "outcome_unknown", "saga_stuck", "ask", "delegate")
MODEL_KEYS = {"base_url", "model", "key_env", "timeout"}
MCP_KEYS = {"approver", "wait", "replay"}
MCP_APPROVERS = ("person", "client")
BINDING_KEYS = ("python", "http", "mcp")
TOOL_KEYS = {
    *BINDING_KEYS, *DECLARATIONS, "read", "write", "description", "input_schema",
    "result_schema", "secret",
}


# A catalogue (SPEC §4.1) given where an agent file goes: said as such, not as "unknown key 'version'".
CATALOGUE_GIVEN = ("this is a catalogue (version and tools), not an agent file: an agent file names it "
                   "under an agent's catalogue: key")


def looks_like_catalogue(data: Any) -> bool:
    """True for a mapping shaped like ``catalogue.json`` (``version``, ``tools``) and not like an agent file."""
    return isinstance(data, Mapping) and "tools" in data and "version" in data and "agents" not in data


class AgentFileError(Exception):
    """An agent file that cannot be served: where, and why."""

    def __init__(self, path: str | Path, place: str, reason: str) -> None:
        self.path = str(path)
        self.place = place
        self.reason = reason
        super().__init__(f"{self.path}: {place}: {reason}" if place else f"{self.path}: {reason}")


@dataclass(frozen=True)
class McpSettings:
    """How the MCP gateway (SPEC §15) serves an agent: who approves a write
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
    _unknown(path, "", data, FILE_KEYS)
    agents_raw = data.get("agents")
    if not isinstance(agents_raw, list) or not agents_raw:
        raise AgentFileError(path, "agents", "must be a non-empty list of agents")
    storage = data.get("storage")
    if storage is not None and not isinstance(storage, str):
        raise AgentFileError(path, "storage", "must be a database URL such as sqlite:///runs.db")

    from catalogue.bindings.python import add_import_path

    add_import_path(str(path.parent))
    agents = tuple(_agent(path, f"agents[{i}]", raw) for i, raw in enumerate(agents_raw))
    seen: set[str] = set()
    for i, agent in enumerate(agents):
        if agent.name in seen:
            raise AgentFileError(path, f"agents[{i}].name", f"two agents are named '{agent.name}'")
        seen.add(agent.name)
    return AgentFile(path=path, agents=agents, storage=storage)


def _unknown(path: Path, place: str, raw: Mapping[str, Any], allowed: set[str]) -> None:
    for key in raw:
        if key not in allowed:
            where = f"{place}.{key}" if place else str(key)
            known = ", ".join(sorted(allowed))
            raise AgentFileError(path, where, f"unknown key '{key}' (known keys: {known})")


def _agent(path: Path, place: str, raw: Any) -> AgentSpec:
    if not isinstance(raw, Mapping):
        raise AgentFileError(path, place, "an agent must be a mapping")
    _unknown(path, place, raw, AGENT_KEYS)
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        raise AgentFileError(path, f"{place}.name", "every agent needs a name")
    language = raw.get("language", "en")
    if language not in LANGUAGES:
        raise AgentFileError(path, f"{place}.language", f"'{language}' is not one of: en, pt-BR")
    on_unread = raw.get("on_unread", "ask")
    if on_unread not in ON_UNREAD:
        raise AgentFileError(path, f"{place}.on_unread", f"'{on_unread}' is not one of: ask, refuse")
    withdrawn = raw.get("withdrawn") or []
    if not isinstance(withdrawn, list) or not all(isinstance(w, str) for w in withdrawn):
        raise AgentFileError(path, f"{place}.withdrawn", "must be a list of tool names")

    tools: dict[str, Tool] = {}
    secrets: dict[str, frozenset[str]] = {}
    if raw.get("catalogue") is not None:
        for tool in _catalogue(path, f"{place}.catalogue", raw["catalogue"]):
            tools[tool.name] = tool
    tools_raw = raw.get("tools") or {}
    if not isinstance(tools_raw, Mapping):
        raise AgentFileError(path, f"{place}.tools", "must be a mapping of tool name to its binding")
    for tname, traw in tools_raw.items():
        tool, secret = _tool(path, f"{place}.tools.{tname}", str(tname), traw, tools.get(str(tname)))
        tools[tool.name] = tool
        if secret:
            secrets[tool.name] = secret
    if not tools:
        raise AgentFileError(path, f"{place}.tools", "the agent has no tools (give tools: or catalogue:)")
    for tname, tool in tools.items():
        comp = tool.compensation
        if comp is not None:
            undo = comp.get("tool") if isinstance(comp, Mapping) else None
            if not isinstance(undo, str) or undo not in tools:
                raise AgentFileError(
                    path, f"{place}.tools.{tname}.compensation", f"the undo names no tool of this agent: {undo!r}"
                )

    for tname, tool in tools.items():
        _verify_check(path, f"{place}.tools.{tname}.verify", tool, tools)

    vocabulary = None
    if raw.get("vocabulary"):
        vocabulary = _vocabulary(path, f"{place}.vocabulary", str(raw["vocabulary"]))
    model = None
    if raw.get("model") is not None:
        model = _model(path, f"{place}.model", raw["model"])
    steps = raw.get("steps")
    if steps is not None:
        from catalogue.bindings.python import BindingError, resolve_callable

        try:
            resolve_callable(str(steps), base_dir=str(path.parent))
        except BindingError as exc:
            raise AgentFileError(path, f"{place}.steps", str(exc)) from exc
    deadlines = _seconds_per_kind(path, f"{place}.deadlines", raw.get("deadlines"))
    escalate_after = _seconds_per_kind(path, f"{place}.escalate_after", raw.get("escalate_after"))
    mcp = _mcp(path, f"{place}.mcp", raw.get("mcp"))
    return AgentSpec(
        name=name.strip(),
        purpose=str(raw.get("purpose") or ""),
        language=language,
        language_from_file="language" in raw,
        on_unread=on_unread,
        tools=tuple(tools.values()),
        withdrawn=frozenset(withdrawn),
        vocabulary=vocabulary,
        model=model,
        steps=str(steps) if steps else None,
        greeting=str(raw.get("greeting") or ""),
        secrets=secrets,
        deadlines=deadlines,
        escalate_after=escalate_after,
        mcp=mcp,
    )


def _mcp(path: Path, place: str, raw: Any) -> McpSettings:
    """``mcp: {approver: person | client, wait: SECONDS, replay: SECONDS}``."""
    if raw is None:
        return McpSettings()
    if not isinstance(raw, Mapping):
        raise AgentFileError(path, place, "must be a mapping, e.g. {approver: client, wait: 50}")
    _unknown(path, place, raw, MCP_KEYS)
    approver = raw.get("approver", "person")
    if approver not in MCP_APPROVERS:
        raise AgentFileError(path, f"{place}.approver", f"'{approver}' is not one of: person, client")
    seconds: dict[str, float] = {}
    for key in ("wait", "replay"):
        value = raw.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            raise AgentFileError(path, f"{place}.{key}", "must be a positive number of seconds")
        seconds[key] = float(value)
    return McpSettings(approver=str(approver), wait=seconds.get("wait"), replay=seconds.get("replay", 600.0))


def _seconds_per_kind(path: Path, place: str, raw: Any) -> dict[str, float]:
    """``{confirm: 900, ask: 600}``: a positive number of seconds per kind of pause."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise AgentFileError(path, place, "must map a kind of pause to seconds, e.g. {confirm: 900, ask: 600}")
    out: dict[str, float] = {}
    for kind, seconds in raw.items():
        if kind not in PAUSE_KINDS:
            raise AgentFileError(path, f"{place}.{kind}", f"'{kind}' is not a kind of pause ({', '.join(PAUSE_KINDS)})")
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds <= 0:
            raise AgentFileError(path, f"{place}.{kind}", "must be a positive number of seconds")
        out[str(kind)] = float(seconds)
    return out


def _verify_check(path: Path, place: str, tool: Tool, tools: Mapping[str, Tool]) -> None:
    """``verify: {tool: <a read tool>, arguments: {...}, match: {...}, items?: <field>}`` (SPEC §9)."""
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


def _catalogue(path: Path, place: str, ref: Any) -> list[Tool]:
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


def _tool(path: Path, place: str, name: str, raw: Any, base: Tool | None) -> tuple[Tool, frozenset[str]]:
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        raise AgentFileError(path, place, "a tool must be a mapping (python:, read:/write:, declarations)")
    _unknown(path, place, raw, TOOL_KEYS)
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
        changes["kind"] = "write"  # never guessed in the costly direction (§4.3)
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
        if not changes.get("description") and not (base and base.description):
            changes["description"] = describe(func)

    for flag in ("irreversible", "egress", "reads_outside"):
        if flag in changes and not isinstance(changes[flag], bool):
            raise AgentFileError(path, f"{place}.{flag}", "must be true or false")
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

    tool = replace(base, **changes) if base is not None else Tool(name=name, **changes)
    return tool, frozenset(str(s) for s in secret_raw)


def _vocabulary(path: Path, place: str, ref: str) -> Vocabulary:
    vpath = (path.parent / ref).resolve()
    try:
        from catalogue.vocabulary import VocabularyError, load_vocabulary
    except ImportError:  # pragma: no cover - the selector package ships it
        return Vocabulary()
    try:
        return load_vocabulary(vpath)
    except VocabularyError as exc:
        raise AgentFileError(path, place, f"{vpath}: {exc}") from exc
    except OSError as exc:
        raise AgentFileError(path, place, f"cannot read {vpath} ({exc.strerror or exc})") from exc


def _model(path: Path, place: str, raw: Any) -> ModelConfig:
    if not isinstance(raw, Mapping):
        raise AgentFileError(path, place, "must be {base_url, model, key_env}")
    _unknown(path, place, raw, MODEL_KEYS)
    for key in ("base_url", "model"):
        if not isinstance(raw.get(key), str) or not raw[key]:
            raise AgentFileError(path, f"{place}.{key}", "is required")
    try:
        return ModelConfig.from_json(raw)
    except (TypeError, ValueError) as exc:
        raise AgentFileError(path, f"{place}.timeout", "must be a number of seconds") from exc
