"""Names read as words (docs/agent-file.md, "catalogue.json"), pure.

``get_order``, ``getOrder``, ``get-order`` and ``GetOrder`` all read
``get order``: the first word is the action, the rest the thing.
"""

from __future__ import annotations

import re

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SPLIT = re.compile(r"[\s_\-./:]+")


def name_words(name: str) -> list[str]:
    """Split a tool name into lower-case words."""
    out: list[str] = []
    for chunk in _SPLIT.split(name.strip()):
        if not chunk:
            continue
        out.extend(p.lower() for p in _CAMEL.split(chunk) if p)
    return out


def action_and_thing(name: str) -> tuple[str, str]:
    words = name_words(name)
    if not words:
        return "", ""
    return words[0], " ".join(words[1:])
