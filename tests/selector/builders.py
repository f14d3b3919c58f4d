"""Small catalogues for the selector's rule tests (issue 13), built in code.

``make_tool("get_vehicle", vin=S, result=("vin", "model"))``: every argument is
required unless its schema says ``"optional": True``; ``result`` names the
result schema's string fields.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from catalogue.plan import Plan, Vocabulary
from catalogue.selector import Selector
from catalogue.tools import Tool

S: dict[str, Any] = {"type": "string"}
N: dict[str, Any] = {"type": "number"}
INT: dict[str, Any] = {"type": "integer"}


def described(text: str, schema: Mapping[str, Any] = S, **extra: Any) -> dict[str, Any]:
    return {**schema, "description": text, **extra}


def optional(schema: Mapping[str, Any]) -> dict[str, Any]:
    return {**schema, "optional": True}


def make_tool(name: str, kind: str = "read", /, result: Iterable[str] = (),
              **props: Mapping[str, Any]) -> Tool:
    properties = {k: {f: v for f, v in p.items() if f != "optional"} for k, p in props.items()}
    required = [k for k, p in props.items() if not p.get("optional")]
    fields = list(result)
    return Tool(name=name, kind=kind,  # type: ignore[arg-type]
                input_schema={"type": "object", "properties": properties, "required": required},
                result_schema={"type": "object",
                               "properties": {f: {"type": "string"} for f in fields}}
                if fields else None)


def fleet_tools() -> list[Tool]:
    """A car rental: vehicles by vin, rentals by id."""
    vin = described("The vehicle identification number.")
    return [
        make_tool("get_vehicle", vin=vin, result=("vin", "model", "branch_code")),
        make_tool("search_vehicles", model=optional(S), branch_code=optional(S),
                  result=("vehicles",)),
        make_tool("get_rental", rental_id=S, result=("rental_id", "vin", "total")),
        make_tool("extend_rental", "write", rental_id=S, days=INT, result=("rental_id",)),
    ]


FLEET_WORDS = Vocabulary(words={"pt-BR": {
    "veículo": "vehicle", "carro": "vehicle", "locação": "rental", "modelo": "model",
    "filial": "branch", "dia": "day",
}})


def plan_of(tools: list[Tool], text: str, language: str = "en",
            vocabulary: Vocabulary | None = None, **kw: Any) -> Plan:
    return Selector(tools, vocabulary).plan(text, language=language, **kw)


def calls(plan: Plan) -> list[tuple[str, dict[str, Any]]]:
    """A plan's calls as (tool, {argument: value, or "result:1.field"})."""
    out = []
    for call in plan.calls:
        args = {a.name: (f"{a.origin}.{a.field}" if a.field else a.value) for a in call.arguments}
        out.append((call.tool, args))
    return out
