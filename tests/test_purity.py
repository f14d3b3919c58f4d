"""The engine's pure modules import no Django and no DRF (STYLE.md)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PURE = [
    "catalogue/tools.py", "catalogue/words.py", "catalogue/plan.py", "catalogue/check.py",
    "catalogue/agentfile.py", "catalogue/bindings/__init__.py", "catalogue/bindings/python.py",
    "approvals/tokens.py", "approvals/webhooks.py",
]
FORBIDDEN = ("django", "rest_framework", "channels")


def imported(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("module", PURE)
def test_pure_module_imports_no_framework(module):
    assert not imported(ROOT / module) & set(FORBIDDEN)
