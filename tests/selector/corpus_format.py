"""The corpus's line format, parsed into expected plans.

One turn a line: ``LANG | TEXT | EXPECTED [| OPTIONS]``; ``#`` starts a comment.

EXPECTED is ``unread``, or calls joined by `` ; ``, each
``tool(name=VALUE, ...)`` followed by `` ?argument`` for each question the
call leaves, or ``?[tool_a,tool_b]`` for a choice between tools. VALUE is a
JSON literal (typed), ``ctx:JSON`` (context) or ``result:STEP.FIELD``.
OPTIONS: ``context name=value,name=value`` and/or ``exclude tool,tool``,
separated by `` ; ``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_DECODER = json.JSONDecoder()
_CALL = re.compile(r"\s*(?P<tool>[A-Za-z_][\w]*)\((?P<args>.*)\)(?P<asks>(?:\s*\?\w+)*)\s*\Z")
_CHOICE = re.compile(r"\s*\?\[(?P<tools>[\w,\s]+)\]\s*\Z")


@dataclass
class Case:
    source: str
    language: str
    text: str
    expected: dict[str, Any] | None  # None: unread
    context: dict[str, Any] = field(default_factory=dict)
    exclude: frozenset[str] = frozenset()


def _args(text: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    pos = 0
    while pos < len(text):
        m = re.compile(r"\s*(\w+)=").match(text, pos)
        if not m:
            raise ValueError(f"bad arguments: {text!r}")
        name, pos = m.group(1), m.end()
        if text.startswith("ctx:", pos):
            value, pos = _DECODER.raw_decode(text, pos + 4)
            out.append({"name": name, "value": value, "origin": "context"})
        elif text.startswith("result:", pos):
            r = re.compile(r"result:(\d+)\.(\w+)").match(text, pos)
            assert r, text
            out.append({"name": name, "value": None, "origin": f"result:{r.group(1)}",
                        "field": r.group(2)})
            pos = r.end()
        else:
            value, pos = _DECODER.raw_decode(text, pos)
            out.append({"name": name, "value": value, "origin": "typed"})
        pos = text.find(",", pos) + 1 if text.find(",", pos) != -1 else len(text)
    return sorted(out, key=lambda a: a["name"])


def parse_expected(text: str) -> dict[str, Any] | None:
    if text.strip() == "unread":
        return None
    calls, asks = [], []
    for step, part in enumerate(text.split(" ; "), start=1):
        choice = _CHOICE.match(part)
        if choice:
            tools = [t.strip() for t in choice.group("tools").split(",")]
            calls.append({"step": step, "tool": "", "arguments": []})
            asks.append({"step": step, "argument": None, "tools": tools})
            continue
        m = _CALL.match(part)
        if not m:
            raise ValueError(f"bad call: {part!r}")
        calls.append({"step": step, "tool": m.group("tool"), "arguments": _args(m.group("args"))})
        for name in re.findall(r"\?(\w+)", m.group("asks")):
            asks.append({"step": step, "argument": name, "tools": []})
    return {"calls": calls, "asks": asks}


def _options(text: str) -> tuple[dict[str, Any], frozenset[str]]:
    context: dict[str, Any] = {}
    exclude: frozenset[str] = frozenset()
    for part in text.split(" ; "):
        key, _, rest = part.strip().partition(" ")
        if key == "context":
            for pair in rest.split(","):
                k, _, v = pair.partition("=")
                context[k.strip()] = v.strip()
        elif key == "exclude":
            exclude = frozenset(t.strip() for t in rest.split(","))
        elif key:
            raise ValueError(f"bad option {part!r}")
    return context, exclude


def load_cases(path: Path) -> list[Case]:
    cases = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split(" | ")
        if len(parts) not in (3, 4):
            raise ValueError(f"{path.name}:{number}: expected 3 or 4 fields")
        context, exclude = _options(parts[3]) if len(parts) == 4 else ({}, frozenset())
        cases.append(Case(f"{path.parent.name}/{path.name}:{number}", parts[0].strip(),
                          parts[1].strip(), parse_expected(parts[2]), context, exclude))
    return cases


def actual_shape(plan_json: dict[str, Any]) -> dict[str, Any] | None:
    """A plan in the corpus's terms: calls and asks without prompt wording."""
    if not plan_json["read"]:
        return None
    asks = [{"step": a["step"], "argument": a["argument"], "tools": a.get("tools", [])}
            for a in plan_json["asks"]]
    return {"calls": plan_json["calls"], "asks": asks}
