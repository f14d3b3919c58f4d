"""What a caller of the bridge may send (docs/langgraph.md): a graph
thread's id, a run's body, and the ``config`` a run goes with.

A caller's ``config`` keeps only the keys documented for callers:

- ``configurable``: the values the graph declares (the fields of its
  ``context_schema``, LangGraph's ``config_schema`` of old); ``thread_id``
  is always the route's;
- ``tags`` (a list of strings) and ``recursion_limit`` (a positive integer).

Anything else is left out. A key beginning with ``__`` anywhere in it
(LangGraph's internal ``__pregel_resume_map``, ``__pregel_*``, ...) is
refused with ``400 bad_request`` before anything runs: through such a key a
caller could hand an interrupt a resume value no person gave.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext_lazy as _

from threads.errors import BadRequest

DETAIL_THREAD = _("A graph thread's id is 1 to 200 printable characters.")
DETAIL_BODY = _("The body must be a JSON object.")
DETAIL_INTERNAL_KEY = _("The config holds {key}: keys beginning with '__' are LangGraph's own, never a caller's.")
DETAIL_CONFIG = _("The config must be a JSON object.")
DETAIL_TAGS = _("The config's tags must be a list of strings.")
DETAIL_RECURSION = _("The config's recursion_limit must be a positive whole number.")
MAX_GRAPH_THREAD = 200


def check_thread(graph_thread: str) -> None:
    """1 to 200 printable characters (no NUL, no control character, no lone surrogate: nothing a database refuses)."""
    if not graph_thread or len(graph_thread) > MAX_GRAPH_THREAD or not graph_thread.isprintable():
        raise BadRequest(DETAIL_THREAD)


def internal_key(value: Any) -> str | None:
    """The first key beginning with ``__`` at any depth of ``value`` (None: there is none)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            for key, child in item.items():
                if str(key).startswith("__"):
                    return str(key)
                stack.append(child)
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return None


def declared(graph: Any) -> frozenset[str]:
    """The ``configurable`` keys ``graph`` declares: its ``context_schema``'s fields."""
    schema = getattr(graph, "context_schema", None)
    if schema is None:
        return frozenset()
    fields = getattr(schema, "model_fields", None)  # a pydantic model
    if fields is None and dataclasses.is_dataclass(schema):
        fields = {f.name: f for f in dataclasses.fields(schema)}
    if fields is None:
        fields = getattr(schema, "__annotations__", {})  # a TypedDict (its bases' keys included)
    return frozenset(str(name) for name in fields if not str(name).startswith("__"))


def caller_config(given: Any, *, graph: Any, graph_thread: str) -> dict[str, Any]:
    """The config a run goes with: ``given`` kept to the caller's keys (see the
    module's docstring); 400 for a key beginning with ``__`` or a value of the wrong shape."""
    if given is None:
        given = {}
    if not isinstance(given, Mapping):
        raise BadRequest(DETAIL_CONFIG)
    found = internal_key(given)
    if found is not None:
        raise BadRequest(str(DETAIL_INTERNAL_KEY).format(key=found[:64]))
    config: dict[str, Any] = {}
    if "tags" in given:
        tags = given["tags"]
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            raise BadRequest(DETAIL_TAGS)
        config["tags"] = list(tags)
    if "recursion_limit" in given:
        limit = given["recursion_limit"]
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise BadRequest(DETAIL_RECURSION)
        config["recursion_limit"] = limit
    configurable = given.get("configurable") or {}
    if not isinstance(configurable, Mapping):
        raise BadRequest(DETAIL_CONFIG)
    names = declared(graph)
    config["configurable"] = {**{k: v for k, v in configurable.items() if k in names}, "thread_id": graph_thread}
    return config


def no_internal_config(body: Any) -> None:
    """A body's ``config``, on any route that is sent one, holds no key beginning with ``__``."""
    if isinstance(body, Mapping) and "config" in body:
        found = internal_key(body["config"])
        if found is not None:
            raise BadRequest(str(DETAIL_INTERNAL_KEY).format(key=found[:64]))




def body_object(data: Any) -> Mapping[str, Any]:
    """A route's body as a JSON object (an empty body is ``{}``)."""
    if data is None or data == {}:
        return {}
    if not isinstance(data, Mapping):
        raise BadRequest(DETAIL_BODY)
    return data
