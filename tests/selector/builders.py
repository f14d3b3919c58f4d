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


def courier_tools() -> list[Tool]:
    """A courier (issue 13's rules, on words no corpus uses): parcels by
    tracking code, depots, products by sku, crates by number."""
    code = described("The parcel's tracking code, e.g. TRK-1.")
    return [
        make_tool("get_parcel", tracking_code=code,
                  result=("tracking_code", "depot_code", "sender_email")),
        make_tool("search_parcels", recipient=optional(S), depot_code=optional(S),
                  result=("parcels",)),
        make_tool("list_parcels", customer_id=S, result=("parcels",)),
        make_tool("return_parcel", "write", tracking_code=code, reason=optional(S),
                  result=("tracking_code",)),
        make_tool("send_notice", "write", tracking_code=S,
                  email={"type": "string", "format": "email"}, result=("sent",)),
        make_tool("move_parcel", "write", tracking_code=code,
                  from_depot=described("The depot code it leaves."),
                  to_depot=described("The depot code it arrives at."), result=("depot",)),
        make_tool("get_depot", depot_code=S, result=("depot_code", "city")),
        make_tool("schedule_pickup", "write", tracking_code=code,
                  pickup_day={"type": "string", "format": "date"}, result=("pickup_id",)),
        make_tool("extend_storage", "write", tracking_code=code, days=INT, result=("until",)),
        make_tool("add_comment", "write", tracking_code=code, comment=S, result=("comment_id",)),
        make_tool("pack_parcel", "write", tracking_code=code,
                  quantity=optional(described("How many boxes.", INT)), weight=optional(N),
                  result=("packed",)),
        make_tool("get_product", sku=S, result=("sku", "name", "price")),
        make_tool("search_products", name=S, result=("products",)),
        make_tool("set_price", "write", sku=S, price=N, result=("sku", "price")),
        make_tool("search_manuals", title=S, label=optional(S), result=("manuals",)),
        make_tool("relocate_crate", "write", crate_no=S, source_bay=S, target_bay=S,
                  result=("bay",)),
        make_tool("get_shipping_label", label_number=S, result=("label_number",)),
        make_tool("list_shipping_labels", depot_code=S, result=("labels",)),
    ]


COURIER_WORDS = Vocabulary(words={"pt-BR": {
    "encomenda": "parcel", "depósito": "depot", "aviso": "notice", "produto": "product",
    "caixote": "crate", "baia": "bay", "coleta": "pickup", "armazenamento": "storage",
    "destinatário": "recipient", "etiqueta de envio": "shipping label", "manual": "manual",
    "embalar": "pack", "mover": "move", "agendar": "schedule", "prorrogar": "extend",
    "preço": "price", "realocar": "relocate",
}})


def courier_plan(text: str, language: str = "en", **kw: Any) -> Plan:
    return plan_of(courier_tools(), text, language, COURIER_WORDS, **kw)
