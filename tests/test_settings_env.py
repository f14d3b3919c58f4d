"""``.env.example`` lists every variable the settings read."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _read_by_settings() -> set[str]:
    source = (ROOT / "stalwart_site" / "settings.py").read_text(encoding="utf-8")
    return set(re.findall(r'env\.(?:str|int|bool|list|float)\("([A-Z_]+)"', source))


def _listed() -> set[str]:
    text = (ROOT / ".env.example").read_text(encoding="utf-8")
    return set(re.findall(r"^#?\s*([A-Z][A-Z0-9_]+)=", text, flags=re.M))


def test_the_settings_read_variables() -> None:
    assert {"SECRET_KEY", "DATABASE_URL", "STALWART_DATA_DIR"} <= _read_by_settings()


def test_env_example_lists_every_variable_the_settings_read() -> None:
    assert _read_by_settings() - _listed() == set()
