from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.server import Server


def on_postgres() -> bool:
    return os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))


@pytest.fixture
def data_dir(shop_dir: Path) -> Path:
    """The server's data folder; this process reads the same shop through it."""
    return shop_dir


@pytest.fixture
def server(data_dir: Path) -> Iterator[Server]:
    with Server(data_dir) as s:
        yield s
