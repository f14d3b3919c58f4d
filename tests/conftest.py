"""Test set-up shared by every tier.

The data folder and the agent file are chosen before Django reads its
settings: a throw-away data folder per test session (the shop's state lives
in it), the example shop as the agent file.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHOP = ROOT / "examples" / "shop" / "agent.yaml"

os.environ.setdefault("STALWART_DATA_DIR", tempfile.mkdtemp(prefix="stalwart-tests-"))
os.environ["STALWART_AGENT_FILE"] = str(SHOP)
os.environ.pop("STALWART_SHOP_FAULTS", None)


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
