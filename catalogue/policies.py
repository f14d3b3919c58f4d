"""Approval policies, pure (docs/policies.md): what an agent's ``policies:``
say, matched against one planned call, and combined.

A policy names the calls it covers (``when``: every condition must hold) and
what it asks of them: ``refuse`` (a sentence; rule ``policy:<name>``),
``confirm: true`` (a read waits for a person), ``approvers`` (a quorum of 1
to 5 distinct people, optionally members of a staff group), a ``deadline``
with what its end does (``on_timeout``: ``expire``, ``refuse`` or ``keep``)
and a reminder ``remind_before`` it. Policies only make the check stricter:
nothing here lets a call run that would otherwise wait or be refused.

Several policies that cover one call combine (``Rules``): a refusal wins
(the first in the file); the largest quorum; an approver must be in every
named group; the shortest deadline, with its own ``on_timeout`` and reminder.

``catalogue.agentfile.policies`` reads them from the agent file (an
``AgentFileError`` with the place for anything it cannot take);
``policy_lints`` is what ``stalwart verify`` reports of them against the
agent's tools.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from catalogue.plan import Argument
from catalogue.tools import Tool
from catalogue.wording import said_in

POLICY_KEYS = {"name", "when", "refuse", "confirm", "approvers", "deadline", "on_timeout", "remind_before"}
WHEN_KEYS = {"tool", "kind", "declared", "args", "origin", "tainted", "door"}
APPROVER_KEYS = {"quorum", "group"}
COMPARISONS = ("eq", "ne", "in", "gt", "ge", "lt", "le", "matches")
ORDERED = ("gt", "ge", "lt", "le")
DECLARED = ("irreversible", "egress", "reads_outside")
KINDS = ("read", "write")
# The doors a call can come through, as a policy names them. ``Run.proposed_via`` says the door; a call
# from LangChain's middleware came through LangGraph's door.
DOORS = ("widget", "http", "mcp", "agui", "langgraph")
DOOR_OF = {"langchain": "langgraph"}
ON_TIMEOUT = ("expire", "refuse", "keep")
QUORUM_MIN, QUORUM_MAX = 1, 5
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


@dataclass(frozen=True)
class Comparison:
    op: str
    value: Any

    def holds(self, actual: Any) -> bool:
        if self.op == "eq":
            return bool(_same(actual, self.value))
        if self.op == "ne":
            return not _same(actual, self.value)
        if self.op == "in":
            return any(_same(actual, v) for v in self.value)
        if self.op == "matches":
            return isinstance(actual, str) and re.search(self.value, actual) is not None
        a, b = number(actual), number(self.value)
        if a is None or b is None:
            return False
        return {"gt": a > b, "ge": a >= b, "lt": a < b, "le": a <= b}[self.op]


def number(value: Any) -> Decimal | None:
    """A number to compare: a JSON number, or text that is one ("600.00", as forms send it)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        number = Decimal(str(value).strip())
    except InvalidOperation:
        return None
    return number if number.is_finite() else None


def _same(actual: Any, expected: Any) -> bool:
    if isinstance(actual, bool) or isinstance(expected, bool):
        return actual is expected
    a, b = number(actual), number(expected)
    if a is not None and b is not None and not (isinstance(actual, str) and isinstance(expected, str)):
        return a == b
    return bool(actual == expected)


@dataclass(frozen=True)
class When:
    tools: tuple[str, ...] = ()  # names or patterns (``refund_*``); empty: any tool
    kind: str = ""
    declared: tuple[str, ...] = ()
    args: Mapping[str, tuple[Comparison, ...]] = field(default_factory=dict)
    origin: Mapping[str, frozenset[str]] = field(default_factory=dict)
    tainted: bool = False
    doors: frozenset[str] = frozenset()

    def covers_tool(self, name: str) -> bool:
        return not self.tools or any(fnmatch.fnmatchcase(name, pattern) for pattern in self.tools)


@dataclass(frozen=True)
class Policy:
    name: str
    when: When
    refuse: Any = ""  # the refusal's sentence: text, or text per language ({en: ..., pt-BR: ...})
    confirm: bool = False
    quorum: int = 0  # 0: the policy names no approvers (one person, as every write)
    group: str = ""
    deadline: float | None = None
    on_timeout: str = "expire"
    remind_before: float | None = None

    @property
    def rule(self) -> str:
        return f"policy:{self.name}"

    def refusal(self, language: str) -> str:
        """The refusal's sentence in ``language`` (its own words, else English)."""
        return said_in(self.refuse, language)

    def to_json(self) -> dict[str, Any]:
        """What the console's Tools page shows of it."""
        w = self.when
        when: dict[str, Any] = {}
        if w.tools:
            when["tool"] = list(w.tools)
        if w.kind:
            when["kind"] = w.kind
        if w.declared:
            when["declared"] = list(w.declared)
        if w.args:
            when["args"] = {a: {c.op: c.value for c in cs} for a, cs in w.args.items()}
        if w.origin:
            when["origin"] = {a: sorted(o) for a, o in w.origin.items()}
        if w.tainted:
            when["tainted"] = True
        if w.doors:
            when["door"] = sorted(w.doors)
        out: dict[str, Any] = {"name": self.name, "when": when}
        if self.refuse:
            out["refuse"] = self.refuse
        if self.confirm:
            out["confirm"] = True
        if self.quorum:
            out["approvers"] = {"quorum": self.quorum, **({"group": self.group} if self.group else {})}
        if self.deadline is not None:
            out["deadline"] = self.deadline
            out["on_timeout"] = self.on_timeout
        if self.remind_before is not None:
            out["remind_before"] = self.remind_before
        return out


@dataclass(frozen=True)
class Call:
    """What a policy reads of one planned call."""

    tool: Tool
    arguments: Sequence[Argument]
    tainted: bool = False
    door: str = ""  # the door the run came through (``Run.proposed_via``), "" when unknown


@dataclass(frozen=True)
class Rules:
    """The policies covering one call, combined."""

    names: tuple[str, ...] = ()
    refusal: Policy | None = None
    confirm: bool = False
    approvers: bool = False  # a policy covering it names approvers
    quorum: int = 1
    groups: tuple[str, ...] = ()
    deadline: float | None = None
    on_timeout: str = "expire"
    remind_before: float | None = None

    @property
    def reasons(self) -> tuple[str, ...]:
        return tuple(f"policy:{n}" for n in self.names)

    @property
    def waits(self) -> bool:
        """A read waits for a person: a policy asks for confirmation or names approvers."""
        return self.confirm or self.approvers

    def approvals(self) -> dict[str, Any]:
        """A pause's ``approvals`` as it opens: needed, none given yet, the group(s)."""
        group: str | list[str] | None = None
        if len(self.groups) == 1:
            group = self.groups[0]
        elif self.groups:
            group = list(self.groups)
        return {"needed": self.quorum, "given": [], "group": group}

    def timing(self) -> dict[str, Any]:
        """What the pause keeps of the deadline it got from a policy."""
        if self.deadline is None:
            return {}
        return {"deadline": self.deadline, "on_timeout": self.on_timeout, "remind_before": self.remind_before,
                "rule": f"policy:{self._deadline_policy}"}

    _deadline_policy: str = ""


def covers(policy: Policy, call: Call) -> bool:
    """Every condition of ``policy.when`` holds for ``call``."""
    w, tool = policy.when, call.tool
    if not w.covers_tool(tool.name):
        return False
    if w.kind and w.kind != ("write" if tool.is_write else "read"):
        return False
    if any(not getattr(tool, d, False) for d in w.declared):
        return False
    if w.tainted and not call.tainted:
        return False
    if w.doors and DOOR_OF.get(call.door, call.door) not in w.doors:
        return False
    given = {a.name: a for a in call.arguments}
    for name, comparisons in w.args.items():
        arg = given.get(name)
        if arg is None or not all(c.holds(arg.value) for c in comparisons):
            return False
    for name, origins in w.origin.items():
        arg = given.get(name)
        if arg is None or not _origin_in(arg.origin, origins):
            return False
    return True


def _origin_in(origin: str, origins: Collection[str]) -> bool:
    return origin in origins or ("result" in origins and origin.startswith("result:"))


def rules_for(policies: Sequence[Policy], call: Call) -> Rules:
    """The policies of ``policies`` that cover ``call``, combined."""
    matched = [p for p in policies if covers(p, call)]
    if not matched:
        return Rules()
    refusal = next((p for p in matched if p.refuse), None)
    groups = tuple(dict.fromkeys(p.group for p in matched if p.group))
    timed = [p for p in matched if p.deadline is not None]
    first = min(timed, key=lambda p: p.deadline or 0.0) if timed else None
    return Rules(
        names=tuple(p.name for p in matched), refusal=refusal, confirm=any(p.confirm for p in matched),
        approvers=any(p.quorum for p in matched),
        quorum=max([p.quorum for p in matched] + [1]), groups=groups,
        deadline=first.deadline if first else None, on_timeout=first.on_timeout if first else "expire",
        remind_before=first.remind_before if first else None, _deadline_policy=first.name if first else "",
    )


# -- stalwart verify ----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PolicyFinding:
    code: str  # policy_unknown_tool | policy_unknown_argument | policy_comparison_misfit
    policy: str
    message: str


def policy_lints(policies: Sequence[Policy], tools: Sequence[Tool]) -> list[PolicyFinding]:
    """What ``stalwart verify`` reports of an agent's policies (each an error): a tool name or pattern that
    names no tool of the agent, an argument no covered tool takes, a comparison that does not fit the
    argument's type."""
    found: list[PolicyFinding] = []
    for policy in policies:
        covered = [t for t in tools if policy.when.covers_tool(t.name)]
        for pattern in policy.when.tools:
            if not any(fnmatch.fnmatchcase(t.name, pattern) for t in tools):
                found.append(PolicyFinding("policy_unknown_tool", policy.name,
                                           f"'{pattern}' names no tool of this agent"))
        named = set(policy.when.args) | set(policy.when.origin)
        for arg in sorted(named):
            schemas = [_schema_of(t, arg) for t in covered]
            if covered and all(s is None for s in schemas):
                found.append(PolicyFinding("policy_unknown_argument", policy.name,
                                           f"no tool it covers takes an argument '{arg}'"))
                continue
            for comparison in policy.when.args.get(arg, ()):
                for tool, schema in zip(covered, schemas, strict=True):
                    problem = _misfit(comparison, schema)
                    if problem:
                        found.append(PolicyFinding("policy_comparison_misfit", policy.name,
                                                   f"{arg} {comparison.op}: {problem} ({tool.name})"))
    return found


def _schema_of(tool: Tool, arg: str) -> Mapping[str, Any] | None:
    props = (tool.input_schema or {}).get("properties")
    if isinstance(props, Mapping) and isinstance(props.get(arg), Mapping):
        return props[arg]  # type: ignore[no-any-return]
    return None


def _types(schema: Mapping[str, Any]) -> set[str]:
    t = schema.get("type")
    return {t} if isinstance(t, str) else {str(x) for x in t} if isinstance(t, list) else set()


def _misfit(comparison: Comparison, schema: Mapping[str, Any] | None) -> str:
    if schema is None:
        return ""
    types = _types(schema)
    if not types:
        return ""
    numeric = bool(types & {"number", "integer"})
    if comparison.op in ORDERED and not numeric:
        return f"compares a number with an argument of type {'/'.join(sorted(types))}"
    if comparison.op == "matches" and "string" not in types:
        return f"matches text against an argument of type {'/'.join(sorted(types))}"
    values = comparison.value if comparison.op == "in" else [comparison.value]
    if comparison.op in ("eq", "ne", "in"):
        for value in values:
            if isinstance(value, bool) and "boolean" not in types:
                return f"{value!r} does not fit an argument of type {'/'.join(sorted(types))}"
            if isinstance(value, (int, float)) and not isinstance(value, bool) and not numeric:
                return f"{value!r} does not fit an argument of type {'/'.join(sorted(types))}"
            if isinstance(value, str) and "string" not in types:
                return f"{value!r} does not fit an argument of type {'/'.join(sorted(types))}"
    return ""
