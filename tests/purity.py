"""A check that a pure module imports no framework (STYLE.md: pure modules).

Parses the source with ``ast`` rather than importing it, so a forbidden import
is found even where it sits behind a function or a ``TYPE_CHECKING`` guard.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN = frozenset({"django", "rest_framework", "channels", "daphne"})


def imported_roots(path: Path) -> set[str]:
    """The top-level package of every module the file imports."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    roots: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


def foreign_imports(path: Path, allowed: Iterable[str] = ()) -> set[str]:
    """Imports outside the standard library and ``allowed``; always the framework ones."""
    roots = imported_roots(path)
    extra = roots - set(sys.stdlib_module_names) - {"__future__"} - set(allowed)
    return extra | (roots & FORBIDDEN)
