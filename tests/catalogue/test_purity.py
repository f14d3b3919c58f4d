"""The pure modules import no Django (STYLE: the engine decides, services do)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PURE = [
    "catalogue/lints.py", "catalogue/catalogue_file.py", "catalogue/commands.py", "catalogue/langchain.py",
    "catalogue/importers/__init__.py", "catalogue/importers/openapi.py", "catalogue/importers/mcp.py",
    "catalogue/importers/typescript.py", "catalogue/bindings/http.py", "catalogue/bindings/mcp.py",
]
FORBIDDEN = ("django", "rest_framework", "channels", "threads", "approvals", "stalwart_site")


@pytest.mark.parametrize("module", PURE)
def test_no_framework_imports(module: str) -> None:
    tree = ast.parse((REPO / module).read_text())
    for node in ast.walk(tree):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
            [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
        for name in names:
            assert name.split(".")[0] not in FORBIDDEN, f"{module} imports {name}"
