"""One agent of an agent file, checked (docs/agent-file.md, "An agent").

``agent_entry`` reads an entry of ``agents:``: its name, language and
``on_unread``, its tools (from ``catalogue:`` and ``tools:``, each checked in
``catalogue.agentfile.tool``, and every compensation naming one of them), its
vocabulary, ``model:``, ``steps:``, ``deadlines:``, ``escalate_after:``,
``mcp:`` and ``policies:`` (``catalogue.agentfile.policies``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from catalogue.agentfile.policies import policy_entries
from catalogue.agentfile.spec import LANGUAGES, AgentFileError, AgentSpec, McpSettings, refuse_unknown_keys
from catalogue.agentfile.tool import catalogue_tools, tool_entry, verify_check
from catalogue.llm.values import ModelConfig
from catalogue.plan import Vocabulary
from catalogue.tools import Tool
from catalogue.wording import said_in, wording_problem

ON_UNREAD = ("ask", "refuse")
AGENT_KEYS = {
    "name", "purpose", "language", "on_unread", "vocabulary", "model", "catalogue",
    "tools", "withdrawn", "steps", "greeting", "deadlines", "escalate_after", "mcp", "policies",
}
# The kinds of pause a deadline or an escalation can name (docs/agent-file.md, "Deadlines and escalation").
PAUSE_KINDS = ("confirm", "outcome_unknown", "saga_stuck", "ask", "delegate")
MODEL_KEYS = {"base_url", "model", "key_env", "timeout"}
MCP_KEYS = {"approver", "wait", "replay"}
MCP_APPROVERS = ("person", "client")


def agent_entry(path: Path, place: str, raw: Any) -> AgentSpec:
    if not isinstance(raw, Mapping):
        raise AgentFileError(path, place, "an agent must be a mapping")
    refuse_unknown_keys(path, place, raw, AGENT_KEYS)
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
        for tool in catalogue_tools(path, f"{place}.catalogue", raw["catalogue"]):
            tools[tool.name] = tool
    tools_raw = raw.get("tools") or {}
    if not isinstance(tools_raw, Mapping):
        raise AgentFileError(path, f"{place}.tools", "must be a mapping of tool name to its binding")
    for tname, traw in tools_raw.items():
        tool, secret = tool_entry(path, f"{place}.tools.{tname}", str(tname), traw, tools.get(str(tname)))
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
        verify_check(path, f"{place}.tools.{tname}.verify", tool, tools)

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
    policies = policy_entries(path, f"{place}.policies", raw.get("policies"))
    wordings: dict[str, Mapping[str, str]] = {}
    for key in ("purpose", "greeting"):
        said = raw.get(key)
        if isinstance(said, Mapping):
            problem = wording_problem(said)
            if problem:
                raise AgentFileError(path, f"{place}.{key}", problem)
            wordings[key] = {str(k): str(v).strip() for k, v in said.items()}
        elif said is not None and not isinstance(said, str):
            raise AgentFileError(path, f"{place}.{key}", "must be text, or text per language like {en: ..., pt-BR: ...}")
    return AgentSpec(
        name=name.strip(),
        purpose=said_in(raw.get("purpose"), "en"),
        language=language,
        language_from_file="language" in raw,
        on_unread=on_unread,
        tools=tuple(tools.values()),
        withdrawn=frozenset(withdrawn),
        vocabulary=vocabulary,
        model=model,
        steps=str(steps) if steps else None,
        greeting=said_in(raw.get("greeting"), "en"),
        wordings=wordings,
        secrets=secrets,
        deadlines=deadlines,
        escalate_after=escalate_after,
        mcp=mcp,
        policies=policies,
    )


def _mcp(path: Path, place: str, raw: Any) -> McpSettings:
    """``mcp: {approver: person | client, wait: SECONDS, replay: SECONDS}``."""
    if raw is None:
        return McpSettings()
    if not isinstance(raw, Mapping):
        raise AgentFileError(path, place, "must be a mapping, e.g. {approver: client, wait: 50}")
    refuse_unknown_keys(path, place, raw, MCP_KEYS)
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
    refuse_unknown_keys(path, place, raw, MODEL_KEYS)
    for key in ("base_url", "model"):
        if not isinstance(raw.get(key), str) or not raw[key]:
            raise AgentFileError(path, f"{place}.{key}", "is required")
    try:
        return ModelConfig.from_json(raw)
    except (TypeError, ValueError) as exc:
        raise AgentFileError(path, f"{place}.timeout", "must be a number of seconds") from exc
