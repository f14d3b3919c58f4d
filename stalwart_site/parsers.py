"""The one JSON parser of the API: hostile bodies are refused before any view
reads them (``400 bad_request``: docs/http-api.md, "Errors").

Python's ``json`` takes things no route can store or should see: nesting deep
enough to exhaust the recursion limit (a RecursionError, not a ValueError),
lone surrogates (``"\\ud800"`` decodes to a ``str`` that no database and no
UTF-8 encoder accepts), and ``NaN``/``Infinity``. Each is refused here with
its own sentence; the depth and text checks walk the parsed value iteratively
so a pathological body cannot recurse the walker either.
"""

from __future__ import annotations

import codecs
import json
import math
import re
from typing import Any

from django.conf import settings
from django.utils.translation import gettext_lazy as _
from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser

MAX_DEPTH = 32
DETAIL_BAD_JSON = _("The body is not valid JSON.")
DETAIL_TOO_DEEP = _("The body nests deeper than {limit} levels.")
DETAIL_NOT_TEXT = _("The body holds text that is not valid Unicode (a lone surrogate).")
DETAIL_CONSTANT = _("NaN and Infinity (or a number too large to hold, such as 1e400) are not JSON numbers.")

_SURROGATE = re.compile("[\ud800-\udfff]")


class BodyRefused(ParseError):
    """A body the API will not read; its sentence says why."""


def _no_constants(name: str) -> Any:
    raise BodyRefused(str(DETAIL_CONSTANT))


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):  # 1e400 reads as infinity without ever writing "Infinity"
        raise BodyRefused(str(DETAIL_CONSTANT))
    return value


def lone_surrogate(text: str) -> bool:
    return bool(_SURROGATE.search(text))


def check_value(value: Any, *, max_depth: int = MAX_DEPTH) -> None:
    """Raise ``BodyRefused`` for nesting past ``max_depth`` or a lone surrogate
    in any key or string; iterative, so depth cannot hurt the check itself."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            if lone_surrogate(item):
                raise BodyRefused(str(DETAIL_NOT_TEXT))
        elif isinstance(item, (dict, list)):
            if depth > max_depth:
                raise BodyRefused(str(DETAIL_TOO_DEEP).format(limit=max_depth))
            if isinstance(item, dict):
                for key, child in item.items():
                    if lone_surrogate(key):
                        raise BodyRefused(str(DETAIL_NOT_TEXT))
                    stack.append((child, depth + 1))
            else:
                stack.extend((child, depth + 1) for child in item)


def _cheap_depth_guard(raw: str, max_depth: int) -> None:
    """Refuse obviously deep bodies before ``json.loads`` recurses into them.

    Counts brackets outside strings; a body that passes may still be checked
    by ``check_value`` afterwards (which is exact)."""
    depth = 0
    in_string = escaped = False
    for ch in raw:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > max_depth:
                raise BodyRefused(str(DETAIL_TOO_DEEP).format(limit=max_depth))
        elif ch in "]}":
            depth -= 1


def parse_json(raw: bytes, encoding: str = "utf-8") -> Any:
    try:
        text = codecs.decode(raw, encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        raise BodyRefused(str(DETAIL_NOT_TEXT)) from exc
    _cheap_depth_guard(text, MAX_DEPTH)
    try:
        value = json.loads(text, parse_constant=_no_constants, parse_float=_finite_float)
    except BodyRefused:
        raise
    except (ValueError, RecursionError) as exc:
        raise BodyRefused(str(DETAIL_BAD_JSON)) from exc
    check_value(value)
    return value


class StrictJSONParser(BaseParser):
    media_type = "application/json"

    def parse(self, stream: Any, media_type: str | None = None, parser_context: dict[str, Any] | None = None) -> Any:
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        return parse_json(stream.read() if stream is not None else b"", encoding)
