"""Catalogues the selector tests read: the example shop, a library, a clinic.

The shop is built from ``examples/shop/agent.yaml`` (kinds, declarations,
result schemas) with the input schemas its Python functions give (examples/shop/tools.py).
The library and the clinic are catalogue JSON files with vocabulary files
beside them under ``tests/selector/corpus/``.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from catalogue.plan import Vocabulary
from catalogue.selector import Selector
from catalogue.tools import Tool, tools_from_catalogue
from catalogue.vocabulary import load_vocabulary

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).resolve().parent / "corpus"
SHOP = ROOT / "examples" / "shop"

_S = {"type": "string"}
_N = {"type": "number"}
SHOP_INPUTS: dict[str, dict[str, Any]] = {
    "get_order": {"properties": {"order_id": _S}, "required": ["order_id"]},
    "search_orders": {"properties": {"customer": _S}, "required": ["customer"]},
    "charge_card": {"properties": {"order_id": _S, "amount": _N, "idempotency_key": _S},
                    "required": ["order_id", "amount"]},
    "refund_card": {"properties": {"order_id": _S, "amount": _N, "idempotency_key": _S},
                    "required": ["order_id", "amount"]},
    "archive_order": {"properties": {"order_id": _S}, "required": ["order_id"]},
    "read_inbox": {"properties": {}},
    "send_receipt": {"properties": {"order_id": _S, "email": _S},
                     "required": ["order_id", "email"]},
}


def make_shop_tools() -> list[Tool]:
    agent = yaml.safe_load((SHOP / "agent.yaml").read_text())["agents"][0]
    tools = []
    for name, spec in agent["tools"].items():
        tools.append(Tool(
            name=name,
            kind="read" if spec.get("read") else "write",
            input_schema={"type": "object", **SHOP_INPUTS[name]},
            result_schema=spec.get("result_schema"),
            compensation=spec.get("compensation"),
            idempotency=spec.get("idempotency"),
            irreversible=bool(spec.get("irreversible")),
            egress=bool(spec.get("egress")),
            reads_outside=bool(spec.get("reads_outside")),
        ))
    return tools


def catalogue_tools(name: str) -> list[Tool]:
    if name == "shop":
        return make_shop_tools()
    return tools_from_catalogue(json.loads((CORPUS / name / "catalogue.json").read_text()))


def catalogue_vocabulary(name: str) -> Vocabulary:
    if name == "shop":
        return load_vocabulary(SHOP / "vocabulary.yaml")
    return load_vocabulary(CORPUS / name / "vocabulary.yaml")


@cache
def make_selector(name: str) -> Selector:
    return Selector(catalogue_tools(name), catalogue_vocabulary(name))
