"""Arguments as a tool takes them: earlier results filled in, values typed by
the schema, what a person is shown, and undos resolved (docs/agent-file.md, "Declarations")."""

from __future__ import annotations

import json
from typing import Any

from catalogue.plan import Argument
from catalogue.tools import Tool
from threads.models import Run, Step
from threads.verdicts import reference


def resolve(run: Run, step: Step, tool: Tool | None) -> tuple[list[Argument], int | None]:
    """Arguments with ``result:<step>`` values filled from earlier results.

    Returns the step whose result is missing, if any.
    """
    out = []
    for raw in step.arguments:
        arg = Argument.from_json(raw)
        if arg.origin.startswith("result:") and arg.value is None:
            try:
                source_index = int(arg.origin.split(":", 1)[1])
            except ValueError:
                return [], 0
            source = run.steps.filter(index=source_index).first()
            if source is None or source.status != Step.Status.SUCCEEDED:
                return [], source_index
            value = field_of(source.result, arg.field or arg.name)
            if value is None:
                return [], source_index
            # An earlier result's "99.90" takes this schema's type (a number: 99.9).
            value = coerce(tool, [Argument(arg.name, value)])[arg.name]
            arg = Argument(arg.name, value, arg.origin, arg.field)
        out.append(arg)
    return out, None


def field_of(result: Any, name: str) -> Any:
    """``result["a"]["b"]`` for ``"a.b"``; None where any part is missing."""
    for part in name.split("."):
        if not isinstance(result, dict):
            return None
        result = result.get(part)
    return result


def coerce(tool: Tool | None, arguments: list[Argument]) -> dict[str, Any]:
    """Values as the schema types them (a total "40.00" becomes 40.0 for a number)."""
    props = tool.properties if tool else {}
    values: dict[str, Any] = {}
    for arg in arguments:
        value = arg.value
        kind = (props.get(arg.name) or {}).get("type")
        if kind in ("number", "integer") and isinstance(value, str):
            try:
                num = float(value)
                value = int(num) if kind == "integer" or num.is_integer() else num
            except ValueError:
                pass
        elif kind == "string" and isinstance(value, (int, float)) and not isinstance(value, bool):
            value = str(value)
        values[arg.name] = value
    return values


def shown(arguments: list[dict[str, Any]], tool: Tool) -> list[dict[str, Any]]:
    """The arguments a person sees: sorted by name, without engine-filled ones."""
    hidden = {tool.idempotency.get("argument")} if tool.idempotency else set()
    out = [{"name": a["name"], "value": a.get("value"), "origin": a.get("origin", "typed")}
           for a in arguments if a["name"] not in hidden]
    return sorted(out, key=lambda a: a["name"])


def compensation_resolve(tool: Tool, values: dict[str, Any], result: Any) -> dict[str, Any] | None:
    """Register the undo with ``$args.<name>`` and ``$result.<name>`` resolved now
    (docs/agent-file.md, "Declarations").

    None when there is no compensation, or when it needs a ``$result.`` value
    that is not known (a write recorded as happened by a person, or reconciled
    by a probe, has no result): such a write is reported as not undoable.
    """
    comp = tool.compensation
    if not comp:
        return None
    resolved = {}
    for name, ref in dict(comp.get("arguments") or {}).items():
        value = reference(ref, values, result)
        if value is None and isinstance(ref, str) and ref.startswith("$"):
            return None
        resolved[str(name)] = value
    return {"tool": comp["tool"], "arguments": resolved}


def jsonable(value: Any) -> Any:
    """A tool's result as JSON can hold it (dates and the like become text)."""
    return json.loads(json.dumps(value, default=str))
