"""The selector is pure (STYLE.md): no module under catalogue/selector/ imports Django or DRF."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PURE = sorted((ROOT / "catalogue" / "selector").glob("*.py")) + [
    ROOT / "catalogue" / "vocabulary.py", ROOT / "catalogue" / "words.py",
]
FORBIDDEN = ("django", "rest_framework")


def imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_there_are_modules_to_check() -> None:
    assert len(PURE) >= 8


@pytest.mark.parametrize("path", PURE, ids=lambda p: p.name)
def test_no_framework_imports(path: Path) -> None:
    bad = {n for n in imported(path) if n.split(".")[0] in FORBIDDEN}
    assert not bad, f"{path.name} imports {sorted(bad)}"


@pytest.mark.parametrize("path", sorted((ROOT / "catalogue" / "selector").glob("*.py")),
                         ids=lambda p: p.name)
def test_selector_imports_only_stdlib_and_catalogue(path: Path) -> None:
    for name in imported(path):
        top = name.split(".")[0]
        assert top in {"__future__", "catalogue", "collections", "dataclasses", "decimal",
                       "re", "typing", "unicodedata", "functools"}, f"{path.name}: {name}"
