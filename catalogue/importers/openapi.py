"""OpenAPI 3.0 and 3.1 documents into catalogue tools (docs/agent-file.md, "OpenAPI 3.0 and 3.1"), pure.

One operation is one tool. Its input schema merges the path, query, header
(and cookie) parameters and the JSON body's properties into one object; its
result schema is the first 2xx JSON response; ``servers[0].url`` goes into the
binding with the method, the path and where each argument goes::

    {"http": {"base_url": "http://127.0.0.1:8701", "method": "POST",
              "path": "/orders/{order_id}/charge",
              "arguments": {"order_id": {"in": "path", "name": "order_id"},
                            "amount": {"in": "body", "name": "amount"}},
              "idempotency_header": "Idempotency-Key"}}

A body that is not an object with properties becomes one argument ``body``
sent whole (``{"in": "body"}`` with no ``name``).

Kind: GET, HEAD and OPTIONS read; every other method writes unless the
operation says ``x-stalwart-read: true`` (and ``x-stalwart-read: false`` makes
even a GET a write: that direction is never costly). Declarations come from
the operation's ``x-stalwart`` object; ``x-stalwart-idempotency-key: HEADER``
names the idempotency header.

``$ref``s are resolved, local (``#/components/...``) and relative files
(``common.yaml#/...``); a recursive schema is cut at its second visit to an
open ``{}`` so resolution ends. The document is checked first for broken
references (with the place), then validated by openapi-spec-validator.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import yaml

from catalogue.importers import SourceError, declarations_from
from catalogue.tools import Kind, Tool
from catalogue.words import name_words

NOT_OPENAPI = "not an OpenAPI 3.0 or 3.1 document: it has no 'openapi' field"
SWAGGER_2 = "Swagger 2.0 is not supported: convert it to OpenAPI 3 first"
UNSUPPORTED_VERSION = "OpenAPI version {version!r} is not supported (3.0 or 3.1)"
NOT_AN_OBJECT = "the document is not an object"
YAML_SYNTAX = "YAML syntax error: {problem}"
JSON_SYNTAX = "JSON syntax error: {problem}"
BROKEN_REF = "$ref {ref!r} points at nothing"
EXTERNAL_REF = "$ref {ref!r}: only local and relative-file references are resolved"
INVALID = "not valid OpenAPI: {reason}"
NO_NAME = "the operation has neither an operationId nor a summary"
DUPLICATE_NAME = "two operations are named {name!r}"

READ_METHODS = frozenset({"get", "head", "options"})
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
# An operation with no operationId and no verb in its summary still needs an
# action; these are the plain readings of each method.
_METHOD_ACTIONS = {"get": "get", "head": "check", "options": "describe", "post": "create",
                   "put": "replace", "patch": "update", "delete": "delete", "trace": "trace"}
_FILLER = frozenset({"a", "an", "the", "of", "for", "by", "all", "one", "some", "to", "from"})
_PARAM = re.compile(r"^\{.*\}$")


def read_document(path: str | Path) -> dict[str, Any]:
    """Parse a JSON or YAML file; syntax errors carry the line and column."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SourceError(str(path), exc.strerror or str(exc)) from exc
    return parse_text(text, place=str(path))


def parse_text(text: str, *, place: str) -> dict[str, Any]:
    data: Any
    if text.lstrip().startswith(("{", "[")):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise SourceError(f"{place}:{exc.lineno}:{exc.colno}", JSON_SYNTAX.format(problem=exc.msg)) from exc
    else:
        try:
            data = yaml.safe_load(text)
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark
            where = f"{place}:{mark.line + 1}:{mark.column + 1}" if mark else place
            raise SourceError(where, YAML_SYNTAX.format(problem=exc.problem or exc)) from exc
        except yaml.YAMLError as exc:
            raise SourceError(place, YAML_SYNTAX.format(problem=exc)) from exc
    if not isinstance(data, dict):
        raise SourceError(place, NOT_AN_OBJECT)
    return {str(k): _string_keys(v) for k, v in data.items()}


def _string_keys(node: Any) -> Any:
    """YAML reads ``200:`` as a number; OpenAPI (and JSON) keys are strings."""
    if isinstance(node, dict):
        return {str(k): _string_keys(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_string_keys(v) for v in node]
    return node


def is_openapi(data: Mapping[str, Any]) -> bool:
    return "openapi" in data or "swagger" in data


class _Resolver:
    """Resolves ``$ref``s against the document and files beside it."""

    def __init__(self, root: Mapping[str, Any], base: Path | None) -> None:
        self.root = root
        self.base = base
        self.files: dict[Path, Mapping[str, Any]] = {}

    def target(self, ref: str, *, doc: Mapping[str, Any], doc_path: Path | None, place: str) -> tuple[Any, Mapping[str, Any], Path | None]:
        file_part, _, pointer = ref.partition("#")
        if file_part:
            if "://" in file_part:
                raise SourceError(place, EXTERNAL_REF.format(ref=ref))
            origin = doc_path or self.base
            folder = origin.parent if origin else Path(".")
            file = (folder / file_part).resolve()
            if file not in self.files:
                if not file.exists():
                    raise SourceError(place, BROKEN_REF.format(ref=ref))
                self.files[file] = read_document(file)
            doc, doc_path = self.files[file], file
        node: Any = doc
        for part in [p for p in pointer.split("/") if p] if pointer else []:
            key = unquote(part).replace("~1", "/").replace("~0", "~")
            if isinstance(node, Mapping) and key in node:
                node = node[key]
            elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
                node = node[int(key)]
            else:
                raise SourceError(place, BROKEN_REF.format(ref=ref))
        return node, doc, doc_path

    def check(self, node: Any, place: str, doc: Mapping[str, Any], doc_path: Path | None, seen: set[tuple[Path | None, str]]) -> None:
        """Fail on the first reference that points at nothing, with its place."""
        if isinstance(node, Mapping):
            ref = node.get("$ref")
            if isinstance(ref, str):
                target, tdoc, tpath = self.target(ref, doc=doc, doc_path=doc_path, place=place)
                key = (tpath, ref.partition("#")[2])
                if key not in seen:
                    seen.add(key)
                    self.check(target, place, tdoc, tpath, seen)
            for k, v in node.items():
                if k != "$ref":
                    self.check(v, f"{place}.{k}" if place else str(k), doc, doc_path, seen)
        elif isinstance(node, list):
            for i, v in enumerate(node):
                self.check(v, f"{place}[{i}]", doc, doc_path, seen)

    def resolve(self, node: Any, doc: Mapping[str, Any] | None = None, doc_path: Path | None = None,
                stack: tuple[str, ...] = ()) -> Any:
        doc = self.root if doc is None else doc
        if isinstance(node, Mapping):
            ref = node.get("$ref")
            if isinstance(ref, str):
                key = f"{doc_path}|{ref}"
                if key in stack:  # a recursive schema: cut it open here
                    return {}
                target, tdoc, tpath = self.target(ref, doc=doc, doc_path=doc_path, place=ref)
                resolved = self.resolve(target, tdoc, tpath, (*stack, key))
                siblings = {k: v for k, v in node.items() if k != "$ref"}
                if siblings and isinstance(resolved, Mapping):  # 3.1 allows $ref with siblings
                    return {**resolved, **self.resolve(siblings, doc, doc_path, stack)}
                return resolved
            return {k: self.resolve(v, doc, doc_path, stack) for k, v in node.items()}
        if isinstance(node, list):
            return [self.resolve(v, doc, doc_path, stack) for v in node]
        return node


def check_document(data: Mapping[str, Any], *, place: str, path: Path | None = None) -> None:
    """Refuse what is not OpenAPI 3.0/3.1, naming the place and the reason."""
    if "swagger" in data and "openapi" not in data:
        raise SourceError(f"{place}: swagger", SWAGGER_2)
    version = data.get("openapi")
    if version is None:
        raise SourceError(place, NOT_OPENAPI)
    if not str(version).startswith(("3.0", "3.1")):
        raise SourceError(f"{place}: openapi", UNSUPPORTED_VERSION.format(version=version))
    check_refs(data, place=place, path=path)
    _validate(data, place=place, path=path)


def check_refs(data: Mapping[str, Any], *, place: str, path: Path | None = None) -> None:
    """Fail on the first ``$ref`` that points at nothing, naming where it is."""
    try:
        _Resolver(data, path).check(data, "", data, path, set())
    except SourceError as exc:
        raise SourceError(f"{place}: {exc.place}", exc.reason) from None


def _validate(data: Mapping[str, Any], *, place: str, path: Path | None) -> None:
    from openapi_spec_validator import validate
    from openapi_spec_validator.validation.exceptions import OpenAPIValidationError

    base_uri = path.resolve().as_uri() if path else ""
    try:
        validate(dict(data), base_uri=base_uri)
    except OpenAPIValidationError as exc:
        where = ".".join(str(p) for p in getattr(exc, "absolute_path", ()) or ())
        raise SourceError(f"{place}: {where}" if where else place, INVALID.format(reason=exc.message)) from None
    except Exception as exc:  # the validator's own reference errors and the like
        raise SourceError(place, INVALID.format(reason=str(exc).splitlines()[0] if str(exc) else type(exc).__name__)) from None


def import_openapi(source: str | Path | Mapping[str, Any], *, validate: bool = True) -> list[Tool]:
    """Every operation of the document as a tool."""
    if isinstance(source, Mapping):
        data, path, place = dict(source), None, "document"
    else:
        path = Path(source)
        data, place = read_document(path), str(path)
    if validate:
        check_document(data, place=place, path=path)
    elif "openapi" not in data:
        raise SourceError(place, NOT_OPENAPI)
    resolver = _Resolver(data, path)
    base_url = _server_url(data.get("servers"))
    tools: list[Tool] = []
    names: set[str] = set()
    for route, item in (data.get("paths") or {}).items():
        item = resolver.resolve(item)
        for method in METHODS:
            op = item.get(method)
            if not isinstance(op, Mapping):
                continue
            where = f"{place}: paths.{route}.{method}"
            tool = _operation_tool(resolver, route, method, item, op, base_url, where)
            if tool.name in names:
                raise SourceError(where, DUPLICATE_NAME.format(name=tool.name))
            names.add(tool.name)
            tools.append(tool)
    return tools


def _server_url(servers: Any) -> str:
    if not servers or not isinstance(servers, list) or not isinstance(servers[0], Mapping):
        return ""
    url = str(servers[0].get("url", ""))
    for name, var in (servers[0].get("variables") or {}).items():
        url = url.replace("{" + name + "}", str(var.get("default", "")))
    return url.rstrip("/")


def operation_name(route: str, method: str, op: Mapping[str, Any], *, place: str = "") -> str:
    """operationId, else action from the summary and thing from the path (docs/agent-file.md, "OpenAPI 3.0 and 3.1")."""
    if op.get("operationId"):
        return str(op["operationId"])
    segments = [s for s in route.strip("/").split("/") if s]
    summary = [w for w in name_words(re.sub(r"[^\w\s-]", " ", str(op.get("summary") or ""))) if w not in _FILLER]
    action = summary[0] if summary else _METHOD_ACTIONS[method]
    thing = ""
    for i, seg in enumerate(segments):
        if _PARAM.match(seg) or seg.lower() == action:
            continue
        followed_by_param = i + 1 < len(segments) and _PARAM.match(segments[i + 1])
        word = "_".join(name_words(seg))
        thing = word[:-1] if followed_by_param and word.endswith("s") and not word.endswith("ss") else word
    if not thing and not summary:
        raise SourceError(place, NO_NAME)
    return "_".join(w for w in (action, thing) if w)


def _operation_tool(resolver: _Resolver, route: str, method: str, item: Mapping[str, Any],
                    op: Mapping[str, Any], base_url: str, place: str) -> Tool:
    op = resolver.resolve(op)
    name = operation_name(route, method, op, place=place)
    idem_header = op.get("x-stalwart-idempotency-key")
    params: dict[tuple[str, str], Mapping[str, Any]] = {}
    for p in [*(item.get("parameters") or []), *(op.get("parameters") or [])]:
        params[(str(p.get("name")), str(p.get("in")))] = p  # the operation's own wins
    props: dict[str, Any] = {}
    required: list[str] = []
    arguments: dict[str, dict[str, str]] = {}
    for (pname, where), p in params.items():
        if where == "header" and idem_header and pname.lower() == str(idem_header).lower():
            continue  # the engine sends the key itself; never the model's to choose
        schema = dict(p.get("schema") or {})
        if p.get("description") and "description" not in schema:
            schema["description"] = p["description"]
        props[pname] = schema
        arguments[pname] = {"in": where, "name": pname}
        if p.get("required") or where == "path":
            required.append(pname)
    body = op.get("requestBody")
    if isinstance(body, Mapping):
        body_schema = _json_schema(body.get("content"))
        if body_schema is not None:
            body_props = body_schema.get("properties") if body_schema.get("type", "object") == "object" else None
            if isinstance(body_props, Mapping) and body_props:
                body_required = set(body_schema.get("required") or ()) if body.get("required") else set()
                for field_name, fschema in body_props.items():
                    arg = field_name if field_name not in props else f"body_{field_name}"
                    props[arg] = fschema
                    arguments[arg] = {"in": "body", "name": field_name}
                    if field_name in body_required:
                        required.append(arg)
            else:
                props["body"] = body_schema
                arguments["body"] = {"in": "body"}
                if body.get("required"):
                    required.append("body")
    input_schema: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        input_schema["required"] = required
    read_flag = op.get("x-stalwart-read")
    kind: Kind
    if method in READ_METHODS:
        kind = "write" if read_flag is False else "read"
    else:
        kind = "read" if read_flag is True else "write"
    declarations = declarations_from(op.get("x-stalwart"), place=f"{place}.x-stalwart")
    if idem_header and "idempotency" not in declarations:
        declarations["idempotency"] = {"header": str(idem_header)}
    servers = op.get("servers") or item.get("servers")
    binding: dict[str, Any] = {
        "base_url": _server_url(servers) if servers else base_url,
        "method": method.upper(),
        "path": route,
        "arguments": arguments,
    }
    if idem_header:
        binding["idempotency_header"] = str(idem_header)
    return Tool(
        name=name,
        kind=kind,
        description=str(op.get("summary") or op.get("description") or ""),
        input_schema=input_schema,
        result_schema=_result_schema(op.get("responses")),
        binding={"http": binding},
        **declarations,
    )


def _json_schema(content: Any) -> dict[str, Any] | None:
    if not isinstance(content, Mapping):
        return None
    for media, entry in content.items():
        if ("json" in media or media == "*/*") and isinstance(entry, Mapping) and "schema" in entry:
            return dict(entry["schema"])
    return None


def _result_schema(responses: Any) -> dict[str, Any] | None:
    if not isinstance(responses, Mapping):
        return None
    codes = sorted(str(c) for c in responses if str(c).startswith("2"))
    for code in codes:
        schema = _json_schema(responses[code if code in responses else int(code)].get("content"))
        if schema is not None:
            return schema
    return None
