"""Import and verify time for a generated OpenAPI document of N operations.

    python bench/catalogue.py [--operations 5000] [--no-validate]

Prints one JSON line: the timings in seconds (document generation excluded).
The planning-time part needs the selector: see ``plan_hook`` below.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from catalogue.catalogue_file import dump_catalogue, validate_catalogue  # noqa: E402
from catalogue.importers.openapi import import_openapi  # noqa: E402
from catalogue.lints import lint  # noqa: E402
from catalogue.tools import Tool  # noqa: E402

NOUNS = ["order", "invoice", "customer", "card", "refund", "shipment", "parcel", "ticket", "account", "report"]
VERBS = [("get", "get"), ("list", "get"), ("create", "post"), ("update", "patch"), ("delete", "delete"),
         ("replace", "put"), ("archive", "post"), ("search", "get"), ("export", "post"), ("close", "post")]


def generate(operations: int) -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for i in range(operations):
        verb, method = VERBS[i % len(VERBS)]
        noun = f"{NOUNS[(i // len(VERBS)) % len(NOUNS)]}{i // (len(VERBS) * len(NOUNS))}"
        op: dict[str, Any] = {
            "operationId": f"{verb}_{noun}",
            "summary": f"{verb} a {noun}",
            "parameters": [{"$ref": "#/components/parameters/Id"}],
            "responses": {"200": {"description": "ok", "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/Thing"}}}}},
        }
        if method in ("post", "patch", "put"):
            op["requestBody"] = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}}}
            op["x-stalwart-idempotency-key"] = "Idempotency-Key"
        paths.setdefault(f"/{noun}/{{id}}/{verb}", {})[method] = op
    return {
        "openapi": "3.1.0", "info": {"title": "bench", "version": "1"},
        "servers": [{"url": "http://bench.test"}], "paths": paths,
        "components": {
            "parameters": {"Id": {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}},
            "schemas": {"Thing": {"type": "object", "properties": {"name": {"type": "string"},
                                                                   "amount": {"type": "number"}}}},
        },
    }


def plan_hook(tools: list[Tool]) -> float | None:
    """PLANNING HOOK: the selector's plan time over this catalogue, if the selector is importable."""
    try:
        from catalogue.selector import Selector  # type: ignore[attr-defined,unused-ignore]
    except ImportError:
        print("planning: skipped (catalogue.selector.Selector is not importable)", file=sys.stderr)
        return None
    try:
        selector = Selector(tools)
        started = time.perf_counter()
        selector.plan("archive order3 for id 42")
        return time.perf_counter() - started
    except Exception as exc:  # the selector's constructor may want more than tools: say so, do not fail
        print(f"planning: skipped ({type(exc).__name__}: {exc})", file=sys.stderr)
        return None


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--operations", type=int, default=5000)
    parser.add_argument("--no-validate", action="store_true", help="skip openapi-spec-validator")
    args = parser.parse_args()
    document = generate(args.operations)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "openapi.json"
        path.write_text(json.dumps(document))
        started = time.perf_counter()
        tools = import_openapi(path, validate=not args.no_validate)
        imported = time.perf_counter() - started
        text = dump_catalogue(tools)
        started = time.perf_counter()
        loaded = validate_catalogue(json.loads(text))
        reload = time.perf_counter() - started
        started = time.perf_counter()
        findings = lint(loaded)
        linted = time.perf_counter() - started
    print(json.dumps({
        "operations": args.operations, "tools": len(tools), "validated": not args.no_validate,
        "import_s": round(imported, 3), "catalogue_load_s": round(reload, 3), "lint_s": round(linted, 3),
        "verify_s": round(reload + linted, 3), "findings": len(findings),
        "plan_s": plan_hook(loaded),
    }))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
