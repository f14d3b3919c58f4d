from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from catalogue.commands import import_main
from catalogue.importers import SourceError, openapi
from tests.catalogue.conftest import SHOP
from tests.catalogue.helpers import make_document, make_operation

SHOP_KINDS = {
    "get_order": "read", "search_orders": "read", "read_inbox": "read",
    "charge_card": "write", "refund_card": "write", "archive_order": "write", "send_receipt": "write",
}


def test_the_shops_document_imports_to_the_kinds_and_declarations_of_the_spec() -> None:
    tools = {t.name: t for t in openapi.import_openapi(SHOP / "openapi.json")}
    assert {n: t.kind for n, t in tools.items()} == SHOP_KINDS
    charge = tools["charge_card"]
    assert charge.compensation == {"tool": "refund_card",
                                   "arguments": {"order_id": "$args.order_id", "amount": "$args.amount"}}
    assert charge.idempotency == {"header": "Idempotency-Key"}
    assert charge.binding["http"]["idempotency_header"] == "Idempotency-Key"
    assert "Idempotency-Key" not in charge.properties  # the engine sends the key, not the model
    assert charge.required == ("order_id", "amount")
    assert charge.result_schema is not None and "charge_id" in charge.result_schema["properties"]
    assert tools["refund_card"].irreversible and tools["refund_card"].retry_safe
    assert tools["read_inbox"].reads_outside
    assert tools["send_receipt"].egress and tools["send_receipt"].irreversible
    archive = tools["archive_order"]
    assert (archive.compensation, archive.idempotency, archive.irreversible, archive.result_schema) == (
        None, None, False, None)
    assert tools["get_order"].words == "get order"
    assert tools["search_orders"].binding["http"]["base_url"] == "http://127.0.0.1:8701"


def _generated_document() -> dict[str, Any]:
    """Every method, every $ref form and every declaration, in one document."""
    paths: dict[str, Any] = {
        "/items/{item_id}": {
            "parameters": [{"$ref": "#/components/parameters/ItemId"}],
            "get": make_operation("getItem", responses={"200": {"$ref": "#/components/responses/Item"}}),
            "head": make_operation("head_item"),
            "options": make_operation("options-item"),
            "put": make_operation("ReplaceItem", requestBody={"$ref": "#/components/requestBodies/Item"}),
            "patch": make_operation("patch_item", **{"x-stalwart-read": True}),
            "delete": make_operation("delete_item", **{"x-stalwart": {
                "irreversible": True, "confirm": "Delete it?", "privilege": "admin",
                "verify": {"tool": "getItem", "arguments": {"item_id": "$args.item_id"}}}}),
            "trace": make_operation("trace_item"),
        },
        "/items": {
            "post": make_operation(None, summary="Create an item", **{
                "x-stalwart-idempotency-key": "Idempotency-Key",
                "x-stalwart": {"compensation": {"tool": "delete_item", "arguments": {"item_id": "$result.id"}},
                               "egress": True},
                "parameters": [
                    {"name": "Idempotency-Key", "in": "header", "schema": {"type": "string"}},
                    {"name": "dry_run", "in": "query", "schema": {"type": "boolean"}},
                    {"name": "X-Tenant", "in": "header", "required": True, "schema": {"type": "string"}},
                ],
                "requestBody": {"required": True, "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/NewItem"}}}},
                "responses": {"201": {"description": "made", "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/Item"}}}}},
            }),
            "get": make_operation(None, summary="List items", **{"x-stalwart-read": False,
                                  "x-stalwart": {"reads_outside": True}}),
        },
        "/notes": {"post": make_operation("add_note", requestBody={"content": {"application/json": {
            "schema": {"type": "string"}}}})},
    }
    return make_document(paths, components={
        "parameters": {"ItemId": {"name": "item_id", "in": "path", "required": True,
                                  "schema": {"$ref": "#/components/schemas/Id"}}},
        "schemas": {
            "Id": {"type": "string"},
            "Item": {"type": "object", "properties": {"id": {"$ref": "#/components/schemas/Id"},
                                                      "children": {"type": "array",
                                                                   "items": {"$ref": "#/components/schemas/Item"}}}},
            "NewItem": {"type": "object", "required": ["title"], "properties": {"title": {"type": "string"},
                                                                                "dry_run": {"type": "integer"}}},
        },
        "responses": {"Item": {"description": "one", "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/Item"}}}}},
        "requestBodies": {"Item": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/NewItem"}}}}},
    })


def test_a_generated_document_of_every_method_ref_form_and_declaration() -> None:
    tools = {t.name: t for t in openapi.import_openapi(_generated_document())}
    kinds = {n: t.kind for n, t in tools.items()}
    assert kinds == {
        "getItem": "read", "head_item": "read", "options-item": "read", "ReplaceItem": "write",
        "patch_item": "read", "delete_item": "write", "trace_item": "write", "create_items": "write",
        "list_items": "write", "add_note": "write",
    }
    assert [tools[n].words for n in ("getItem", "options-item", "ReplaceItem")] == [
        "get item", "options item", "replace item"]
    get_item = tools["getItem"]
    assert get_item.properties["item_id"] == {"type": "string"}  # path-level $ref, schema $ref
    assert get_item.result_schema is not None and get_item.result_schema["properties"]["id"] == {"type": "string"}
    assert get_item.result_schema["properties"]["children"]["items"] == {}  # recursion cut open
    assert set(tools["ReplaceItem"].properties) == {"item_id", "title", "dry_run"}  # requestBodies $ref
    create = tools["create_items"]
    assert create.binding["http"]["arguments"] == {
        "dry_run": {"in": "query", "name": "dry_run"}, "X-Tenant": {"in": "header", "name": "X-Tenant"},
        "title": {"in": "body", "name": "title"}, "body_dry_run": {"in": "body", "name": "dry_run"}}
    assert create.required == ("X-Tenant", "title")
    assert create.idempotency == {"header": "Idempotency-Key"} and create.egress
    assert create.compensation == {"tool": "delete_item", "arguments": {"item_id": "$result.id"}}
    assert create.result_schema is not None and create.binding["http"]["method"] == "POST"
    delete = tools["delete_item"]
    assert (delete.irreversible, delete.confirm, delete.privilege) == (True, "Delete it?", "admin")
    assert delete.verify == {"tool": "getItem", "arguments": {"item_id": "$args.item_id"}}
    assert tools["list_items"].reads_outside
    assert tools["add_note"].binding["http"]["arguments"] == {"body": {"in": "body"}}


@pytest.mark.parametrize(("route", "summary", "method", "name"), [
    ("/orders/{order_id}", "Show an order", "get", "show_order"),
    ("/orders", "List all orders", "get", "list_orders"),
    ("/orders/{order_id}/archive", "Archive the order", "post", "archive_order"),
    ("/customers/{id}/orders", "Search orders for a customer", "get", "search_orders"),
    ("/orders/{order_id}", "", "delete", "delete_order"),
])
def test_an_operation_without_an_id_is_named_from_its_summary_and_path(
        route: str, summary: str, method: str, name: str) -> None:
    assert openapi.operation_name(route, method, {"summary": summary}) == name


def test_openapi_3_0_in_yaml_with_a_relative_file_ref(tmp_path: Path) -> None:
    (tmp_path / "common.yaml").write_text("Order:\n  type: object\n  properties:\n    id: {type: string}\n")
    (tmp_path / "api.yaml").write_text(
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\nservers: [{url: 'http://x.test'}]\npaths:\n"
        "  /orders/{id}:\n    get:\n      operationId: get_order\n"
        "      parameters: [{name: id, in: path, required: true, schema: {type: string}}]\n"
        "      responses:\n        200:\n          description: ok\n          content:\n"
        "            application/json: {schema: {$ref: 'common.yaml#/Order'}}\n")
    [tool] = openapi.import_openapi(tmp_path / "api.yaml")
    assert tool.kind == "read" and tool.result_schema == {"type": "object", "properties": {"id": {"type": "string"}}}


def _import_error(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str], name: str = "api.json") -> str:
    path = tmp_path / name
    path.write_text(text)
    assert import_main([str(path)]) == 2
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and captured.out == ""
    return captured.err


def test_a_file_that_is_neither_openapi_nor_mcp_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from catalogue.commands import NOT_A_SOURCE

    err = _import_error(tmp_path, json.dumps({"hello": "world"}), capsys)
    assert NOT_A_SOURCE in err and "api.json" in err


def test_a_broken_ref_is_refused_with_its_place(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = make_document({"/orders": {"get": make_operation("list_orders", parameters=[
        {"$ref": "#/components/parameters/Missing"}])}})
    err = _import_error(tmp_path, json.dumps(doc), capsys)
    assert openapi.BROKEN_REF.format(ref="#/components/parameters/Missing") in err
    assert "paths./orders.get.parameters[0]" in err


def test_a_yaml_syntax_error_is_refused_with_line_and_column(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = _import_error(tmp_path, "openapi: 3.1.0\ninfo: {title: t\npaths: {}\n", capsys, name="api.yaml")
    assert "YAML syntax error" in err and "api.yaml:3:" in err


def test_an_invalid_openapi_document_is_refused_with_the_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = make_document({"/orders": {"get": {"operationId": "x"}}}, openapi="3.0.3")  # 3.0 needs responses
    err = _import_error(tmp_path, json.dumps(doc), capsys)
    assert "not valid OpenAPI" in err and "responses" in err


def test_swagger_2_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = _import_error(tmp_path, json.dumps({"swagger": "2.0", "paths": {}}), capsys)
    assert openapi.SWAGGER_2 in err


def test_two_operations_of_one_name_are_refused() -> None:
    doc = make_document({
        "/order": {"get": make_operation(None, summary="Show order")},
        "/order/{id}": {"get": make_operation(None, summary="Show order", parameters=[
            {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}])},
    })
    with pytest.raises(SourceError) as info:
        openapi.import_openapi(doc)
    assert info.value.reason == openapi.DUPLICATE_NAME.format(name="show_order")


def test_import_writes_out_or_prints(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "catalogue.json"
    assert import_main([str(SHOP / "openapi.json"), "--out", str(out)]) == 0
    assert json.loads(out.read_text())["version"] == 1
    assert import_main([str(SHOP / "openapi.json")]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(out.read_text())


def test_without_the_validator_a_broken_ref_is_still_refused(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    doc = make_document({"/orders": {"get": make_operation("list_orders", responses={
        "200": {"$ref": "#/components/responses/Nope"}})}})
    path = tmp_path / "api.json"
    path.write_text(json.dumps(doc))
    assert import_main([str(path), "--no-validate"]) == 2
    assert openapi.BROKEN_REF.format(ref="#/components/responses/Nope") in capsys.readouterr().err
