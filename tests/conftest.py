"""Test set-up shared by every tier.

The data folder and the agent file are chosen before Django reads its
settings, by ``tests/bootstrap.py`` (loaded as a plugin): a throw-away data
folder per test session (the shop's state lives in it), the example shop as
the agent file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHOP = ROOT / "examples" / "shop" / "agent.yaml"


@pytest.fixture(autouse=True)
def _agent_file(request: pytest.FixtureRequest) -> None:
    """Each database test starts with the shop, whatever an earlier test served."""
    if "django_db_setup" not in request.fixturenames and "db" not in request.fixturenames:
        return
    from catalogue import registry

    registry.use(str(SHOP))


@pytest.fixture
def shop_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh shop (SPEC §14's three orders) in its own data folder."""
    folder = tmp_path / "data"
    folder.mkdir()
    monkeypatch.setenv("STALWART_DATA_DIR", str(folder))
    return folder


@pytest.fixture
def desk(db: None, shop_dir: Path, settings: object):  # type: ignore[no-untyped-def]
    from stalwart_site.desk import Desk

    return Desk(SHOP)
