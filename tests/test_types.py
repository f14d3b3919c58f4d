"""The pure modules pass ``mypy --strict`` (docs/benchmarks.md).

The files and flags live in pyproject.toml's ``[tool.mypy]``, so this test and
a person typing ``mypy`` at the repo root check the same thing.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOT_INSTALLED = "mypy is not installed: pip install -e '.[test]'"


def test_mypy_strict_finds_nothing():
    mypy = shutil.which("mypy", path=str(Path(sys.executable).parent)) or shutil.which("mypy")
    if mypy is None:
        pytest.fail(NOT_INSTALLED)
    # --python-executable: imports (Django-free here, but mcp, httpx, yaml and
    # the stubs) resolve in the environment running the tests, even when the
    # mypy found is one on PATH from another environment. The cache is kept
    # (.mypy_cache is ignored by git): a cold run takes ~25s, a warm one ~1s.
    result = subprocess.run([mypy, "--python-executable", sys.executable], cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
