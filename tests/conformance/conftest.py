"""The conformance suite's fixtures: the servers its tests share (``estate``: started on first use, once per
test process, since every test opens threads and clients of its own),
and ``door``, the driver of the door a test is parametrised with (indirectly:
``@pytest.mark.parametrize("door", doors(...), indirect=True)``), on a fresh
shop."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from examples.shop import tools as shop

from .doors import Door, make_door
from .doors.estate import Estate


def on_postgres() -> bool:
    return os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))


@pytest.fixture(scope="package")
def estate(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Estate]:
    folder = tmp_path_factory.mktemp("conformance")
    data = folder / "data"
    data.mkdir()
    made = Estate(data, folder)
    try:
        yield made
    finally:
        made.stop()


@pytest.fixture
def fresh(estate: Estate, monkeypatch: pytest.MonkeyPatch) -> Estate:
    """The module's servers, with the shop as it is seeded, read here through their data folder."""
    monkeypatch.setenv("STALWART_DATA_DIR", str(estate.data_dir))
    shop.reset()
    return estate


@pytest.fixture
def door(request: pytest.FixtureRequest, fresh: Estate) -> Iterator[Door]:
    made = make_door(request.param, fresh)
    try:
        yield made
    finally:
        made.close()


@pytest.fixture
def data_dir(fresh: Estate) -> Path:
    return fresh.data_dir
