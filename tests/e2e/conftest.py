from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.server import Server


def on_postgres() -> bool:
    return os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The server's data folder; this process reads the same shop through it."""
    folder = tmp_path / "data"
    folder.mkdir()
    monkeypatch.setenv("STALWART_DATA_DIR", str(folder))
    return folder


@pytest.fixture
def server(data_dir: Path) -> Iterator[Server]:
    with Server(data_dir) as s:
        yield s
