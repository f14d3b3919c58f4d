"""The selector's output (docs/http-api.md, "POST /plan"), pure.

A plan is an ordered list of calls, each argument with its origin, plus the
questions (``asks``) the turn leaves open. ``Plan.to_json()`` is exactly what
``stalwart plan`` prints and ``POST /plan`` answers::

    {"language": "en", "read": true,
     "calls": [{"step": 1, "tool": "charge_card",
                "arguments": [{"name": "amount", "value": 40, "origin": "typed"}]}],
     "asks": []}

An argument whose value comes from an earlier step has ``origin``
``"result:<step>"`` and names the field of that step's result in ``field``; its
``value`` is ``None`` until the engine resolves it at run time.

An ``Ask`` with ``argument`` set is a missing required argument of its call;
one with ``argument`` ``None`` and ``tools`` set is a choice between tools the
turn fits equally well (the call's ``tool`` is then empty until answered).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

ORIGINS = ("typed", "reply", "context", "computed", "model", "agent")  # plus "result:<step>"


@dataclass(frozen=True)
class Argument:
    name: str
    value: Any
    origin: str = "typed"
    field: str | None = None  # for origin "result:<step>": the result's field

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "value": self.value, "origin": self.origin}
        if self.field is not None:
            out["field"] = self.field
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Argument:
        return cls(
            name=str(data["name"]),
            value=data.get("value"),
            origin=str(data.get("origin", "typed")),
            field=data.get("field"),
        )


@dataclass(frozen=True)
class Call:
    step: int
    tool: str
    arguments: tuple[Argument, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "tool": self.tool,
            "arguments": [a.to_json() for a in sorted(self.arguments, key=lambda a: a.name)],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Call:
        return cls(
            step=int(data["step"]),
            tool=str(data.get("tool") or ""),
            arguments=tuple(Argument.from_json(a) for a in data.get("arguments", [])),
        )


@dataclass(frozen=True)
class Ask:
    """A question the plan needs answered (docs/http-api.md, "Questions (ask)" has its format)."""

    step: int
    argument: str | None
    question: Mapping[str, Any]  # {"kind": "choice"|"open", "prompt": ..., "choices"?: [...]}
    tools: tuple[str, ...] = ()  # for a choice between tools

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "step": self.step,
            "argument": self.argument,
            "question": dict(self.question),
        }
        if self.tools:
            out["tools"] = list(self.tools)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Ask:
        return cls(
            step=int(data["step"]),
            argument=data.get("argument"),
            question=dict(data["question"]),
            tools=tuple(data.get("tools") or ()),
        )


@dataclass(frozen=True)
class Explanation:
    """Why the selector did what it did: the rule that bound an argument of a
    step ("typed: after 'order'", "result:1 via 'its'", "context: my"), why a
    step has its tool, or (``step`` None) why the turn was left unread."""

    step: int | None
    argument: str | None
    rule: str

    def to_json(self) -> dict[str, Any]:
        return {"step": self.step, "argument": self.argument, "rule": self.rule}


@dataclass(frozen=True)
class Plan:
    language: str
    read: bool
    calls: tuple[Call, ...] = ()
    asks: tuple[Ask, ...] = ()
    # What `stalwart plan --explain` shows; never part of the plan's identity or
    # of its default JSON (the shape docs/http-api.md, "POST /plan" shows stays exactly as it is).
    explain: tuple[Explanation, ...] = field(default=(), compare=False)

    def to_json(self, *, explain: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "language": self.language,
            "read": self.read,
            "calls": [c.to_json() for c in self.calls],
            "asks": [a.to_json() for a in self.asks],
        }
        if explain:
            out["explain"] = [e.to_json() for e in self.explain]
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Plan:
        return cls(
            language=str(data["language"]),
            read=bool(data["read"]),
            calls=tuple(Call.from_json(c) for c in data.get("calls", [])),
            asks=tuple(Ask.from_json(a) for a in data.get("asks", [])),
        )

    @classmethod
    def unread(cls, language: str, why: str = "") -> Plan:
        return cls(language=language, read=False,
                   explain=(Explanation(None, None, f"unread: {why}"),) if why else ())


@dataclass(frozen=True)
class Vocabulary:
    """An agent's vocabulary file (docs/agent-file.md, "The vocabulary file"): extra words per language."""

    language: str | None = None  # settings.language
    words: Mapping[str, Mapping[str, str]] = field(default_factory=dict)  # lang -> phrase -> word
    # lang -> what a tool's result or error says in English -> how a person of lang reads it
    results: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def for_language(self, language: str) -> Mapping[str, str]:
        return self.words.get(language, {})
