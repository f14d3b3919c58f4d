"""schemathesis against a real `stalwart serve` (issue 14): every operation
of /api/schema/ fuzzed, bounded (a fixed seed, a few examples per operation,
a time budget), with no server error and no answer outside the document.

A larger run, outside CI: bench/fuzz.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.server

SEED = 14
EXAMPLES = 5
BUDGET_SECONDS = 60


def schemathesis(url: str, *extra: str, cwd: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    st = Path(sys.executable).with_name("st")
    return subprocess.run(
        [str(st), "run", f"{url}/api/schema/?format=json",
         "--checks", "not_a_server_error,response_schema_conformance",
         "--seed", str(SEED), "--request-timeout", "30", "--no-color", *extra],
        capture_output=True, text=True, timeout=timeout, cwd=cwd,  # its .hypothesis/ stays out of the tree
    )


def test_schemathesis_finds_no_server_error_and_no_answer_outside_the_document(server, tmp_path):
    done = schemathesis(server.url, "--max-examples", str(EXAMPLES), "--max-time", str(BUDGET_SECONDS),
                        cwd=tmp_path, timeout=BUDGET_SECONDS + 120)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert "9 selected / 9 total" in done.stdout and " passed" in done.stdout
    assert "Internal Server Error" not in server.log()
