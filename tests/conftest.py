"""Test set-up shared by every tier.

The data folder and the agent file are chosen before Django reads its
settings, by ``tests/bootstrap.py`` (loaded as a plugin): a throw-away data
folder per test session (the shop's state lives in it), the example shop as
the agent file.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHOP = ROOT / "examples" / "shop" / "agent.yaml"


@pytest.fixture(scope="session")
def django_db_modify_db_settings_xdist_suffix() -> None:
    """pytest-django's own fixture appends ``_gw0`` to the test databases' names
    under xdist. Here the worker's names are made before Django starts
    (``tests/bootstrap.py``: its own data folder, where SQLite's test database
    lives, and its own PostgreSQL database, whose test database is
    ``test_<name>_gw0``), so nothing is appended twice."""


def pytest_sessionfinish(session: pytest.Session) -> None:
    """An xdist worker's key in Redis goes with it: its prefix is this run's
    (tests/bootstrap.py), so nothing would ever read it again. The channel
    layer's keys expire on their own."""
    if not os.environ.get("PYTEST_XDIST_WORKER") or not os.environ.get("REDIS_URL"):
        return
    from django.core.cache import caches

    from catalogue import stored

    try:
        caches[stored.CACHE_ALIAS].delete(stored.TOKEN_KEY)
    except Exception:  # Redis gone: nothing to clean, and no reason to fail a finished run
        pass


@pytest.fixture(autouse=True, scope="session")
def _quick_password_hashes() -> Iterator[None]:
    """Passwords hashed with MD5 in this process, as Django's testing docs advise:
    PBKDF2's million rounds cost half a second of CPU a hash, and each staff
    browser (tests/support/staff.py) hashes four times. The same code paths run
    (make, check, the one-time password compared by its hash); the servers a
    test starts keep the real hasher."""
    from django.test.utils import override_settings

    quick = override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"])
    quick.enable()
    yield
    quick.disable()


@pytest.fixture(autouse=True)
def _default_language() -> None:
    """Each test starts in the site's default language. A request through Django's test client
    activates its language in this thread and leaves it active (LocaleMiddleware does not undo
    it), so a test that asked in pt-BR made a later test's expected words, read with gettext
    here, Portuguese while the server it asked answered in English."""
    from django.utils import translation

    translation.deactivate()


@pytest.fixture(autouse=True)
def _agent_file(request: pytest.FixtureRequest) -> None:
    """Each database test starts with the shop, whatever an earlier test served,
    and with no copy of the withdrawals and settings an earlier test read.

    That copy (``catalogue.stored``) is dropped when a change is announced, and
    pytest-django's rollback at the end of a test is a change no signal sees.
    A test that ran its on-commit callbacks by hand (``django_capture_on_commit_callbacks``)
    announced rows that its rollback then removed: without this, the next test
    in the process read a tool withdrawn that no row withdraws."""
    uses_db = {"django_db_setup", "db", "transactional_db"} & set(request.fixturenames)
    if not uses_db and request.node.get_closest_marker("django_db") is None:
        return
    from catalogue import registry, stored

    registry.use(str(SHOP))
    stored.forget()


@pytest.fixture
def shop_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh shop (the three orders of docs/getting-started.md) in its own data folder."""
    folder = tmp_path / "data"
    folder.mkdir()
    monkeypatch.setenv("STALWART_DATA_DIR", str(folder))
    return folder


@pytest.fixture
def desk(db: None, shop_dir: Path, settings: object):  # type: ignore[no-untyped-def]
    from stalwart_site.desk import Desk

    return Desk(SHOP)
