"""examples/langgraph/mail.py runs as the docs say: no network, a fake chat model."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.server import ROOT


def test_the_example_mirrors_approves_and_resumes(tmp_path: Path):
    env = {k: v for k, v in os.environ.items() if k not in ("DJANGO_SETTINGS_MODULE", "SECRET_KEY",
                                                             "STALWART_AGENT_FILE", "DATABASE_URL")}
    env["STALWART_DATA_DIR"] = str(tmp_path)
    done = subprocess.run([sys.executable, "-m", "examples.langgraph.mail"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == ("waiting: send_email {'body': 'Your order shipped.', 'to': 'ana@example.com'} "
                        "['approve', 'edit', 'reject', 'respond']")
    assert lines[1] == "resumed: True -> The email is sent."
