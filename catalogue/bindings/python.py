"""The ``python: module:function`` binding: an in-process call.

The agent file's folder is put on ``sys.path`` (docs/agent-file.md, "How paths
resolve") so that ``python: tools:get_book`` finds ``tools.py`` beside the
file.
"""

from __future__ import annotations

import importlib
import inspect
import sys
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any

from catalogue.bindings.outcome import Outcome, call_in_process
from catalogue.tools import Tool

_JSON_TYPES: dict[Any, str] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    dict: "object",
    list: "array",
}


class BindingError(Exception):
    """A ``python:`` binding that cannot be imported."""


def add_import_path(folder: str | None) -> None:
    if folder and folder not in sys.path:
        sys.path.insert(0, folder)


def resolve_callable(target: str, *, base_dir: str | None = None) -> Callable[..., Any]:
    add_import_path(base_dir)
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise BindingError(f"'{target}' is not of the form module:function")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # an import error of the user's module, whatever it is
        raise BindingError(f"cannot import module '{module_name}': {exc}") from exc
    obj: Any = module
    for part in attr.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            raise BindingError(f"module '{module_name}' has no '{attr}'")
    if not callable(obj):
        raise BindingError(f"'{target}' is not callable")
    return typing.cast(Callable[..., Any], obj)


def _schema_for(annotation: Any) -> dict[str, Any]:
    if annotation is inspect.Parameter.empty or annotation is Any:
        return {}
    origin = typing.get_origin(annotation)
    if origin is typing.Union or origin is types.UnionType:
        members = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(members) == 1:
            return _schema_for(members[0])
        return {"anyOf": [_schema_for(m) for m in members]}
    if origin is typing.Literal:
        values = list(typing.get_args(annotation))
        return {"enum": values}
    if origin in (list, tuple, set, frozenset):
        args = typing.get_args(annotation)
        return {"type": "array", "items": _schema_for(args[0]) if args else {}}
    if origin is dict:
        return {"type": "object"}
    if annotation in _JSON_TYPES:
        return {"type": _JSON_TYPES[annotation]}
    return {}


def signature_schema(func: Callable[..., Any]) -> dict[str, Any]:
    """The input schema a Python tool's signature and type hints give."""
    try:
        hints = typing.get_type_hints(func)
    except (NameError, TypeError, AttributeError):  # a hint naming what the module cannot resolve
        hints = {}
    props: dict[str, Any] = {}
    required: list[str] = []
    for name, param in inspect.signature(func).parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        props[name] = _schema_for(hints.get(name, param.annotation))
        if param.default is inspect.Parameter.empty:
            required.append(name)
        else:
            props[name]["default"] = param.default
    schema: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        schema["required"] = required
    return schema


def describe(func: Callable[..., Any]) -> str:
    return inspect.cleandoc(func.__doc__ or "").split("\n\n")[0].replace("\n", " ")


def invoke_python(tool: Tool, arguments: Mapping[str, Any], *, base_dir: str | None = None) -> Outcome:
    try:
        func = resolve_callable(str(tool.binding["python"]), base_dir=base_dir)
    except BindingError as exc:
        return Outcome("refused", error=str(exc))
    return call_in_process(lambda: func(**dict(arguments)))
