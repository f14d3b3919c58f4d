"""Loaded with ``-p tests.bootstrap`` (pyproject's addopts), before pytest-django
reads Django's settings: the test session starts the way every entry point
does, through ``stalwart_site.bootstrap.prepare``, with a throw-away data
folder and the example shop as the agent file.

Under pytest-xdist (``./scripts/test`` runs ``-n auto``) each worker process
(``PYTEST_XDIST_WORKER``: gw0, gw1, ...) loads this too, and makes its own
copy of everything a test can reach outside its own process: a data folder
(``<session's folder>/gw0``: the SQLite databases, the shop's state, the shared
cache's files), a PostgreSQL database (``<name>_gw0``, made here when missing;
pytest-django's test database is then ``test_<name>_gw0``) and a prefix for
its keys in Redis. The ``stalwart serve`` processes a test starts inherit all
three through the environment, so no two workers meet anywhere.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from stalwart_site.bootstrap import prepare
from tests.support.workers import ensure_postgres_database, for_worker

SHOP = Path(__file__).resolve().parent.parent / "examples" / "shop" / "agent.yaml"

os.environ.setdefault("STALWART_DATA_DIR", tempfile.mkdtemp(prefix="stalwart-tests-"))
os.environ.update(for_worker(os.environ, os.environ.get("PYTEST_XDIST_WORKER", "")))
os.environ.pop("STALWART_SHOP_FAULTS", None)
ensure_postgres_database(os.environ.get("DATABASE_URL", ""))
prepare(agent_file=SHOP)
