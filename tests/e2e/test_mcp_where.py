"""``stalwart mcp`` says, on stderr, which database and data folder it uses (docs/mcp.md):
a client that launched it from another folder would otherwise write to another one unseen."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.server import ROOT, SHOP


def _started(cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items()
            if k not in ("STALWART_AGENT_FILE", "DJANGO_SETTINGS_MODULE", "SECRET_KEY", "STALWART_DATA_DIR")}
    # stdin closed at once: the server starts, says where it is, and ends with its input.
    return subprocess.run([sys.executable, "-m", "stalwart_site.cli", "mcp", str(SHOP)], cwd=cwd,
                          env={**base, "PYTHONPATH": str(ROOT), **env}, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=120)


def _where(stderr: str) -> str:
    said = [line for line in stderr.splitlines() if line.startswith("Database: ")]
    assert len(said) == 1, stderr
    return said[0]


def test_mcp_names_its_database_and_data_folder_on_stderr(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    done = _started(ROOT, {"STALWART_DATA_DIR": str(folder)})
    assert done.stdout == ""  # stdout is the protocol's
    first = _where(done.stderr)
    assert f"data folder: {folder}" in first, done.stderr
    if not os.environ.get("DATABASE_URL"):
        assert f"Database: SQLite {folder / 'runs.db'};" in first
    assert "set STALWART_DATA_DIR or DATABASE_URL" in first


def test_mcp_started_elsewhere_says_the_folder_it_made(tmp_path: Path) -> None:
    if os.environ.get("DATABASE_URL"):
        return  # the database is the URL's wherever it starts; the folder case is SQLite's
    done = _started(tmp_path, {})
    first = _where(done.stderr)
    assert first == (f"Database: SQLite {tmp_path / '.stalwart' / 'runs.db'}; data folder: {tmp_path / '.stalwart'} "
                     "(set STALWART_DATA_DIR or DATABASE_URL to use the console's)"), done.stderr
