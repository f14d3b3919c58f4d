"""What each pytest-xdist worker keeps to itself (``tests/bootstrap.py`` applies it
before Django reads its settings): its data folder, its PostgreSQL database and
its Redis key prefix, derived from the session's and the worker's id."""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Mapping, MutableMapping
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit


def on_postgres(url: str) -> bool:
    return url.startswith(("postgres://", "postgresql://"))


def for_worker(environ: Mapping[str, str], worker: str) -> dict[str, str]:
    """The environment a worker ``worker`` (``gw0``, ...) changes; nothing outside xdist."""
    if not worker:
        return {}
    base = Path(environ["STALWART_DATA_DIR"])
    changes = {
        "STALWART_DATA_DIR": str(base / worker),
        # The session's folder name makes the prefix this run's, so two runs on
        # one Redis database stay apart too.
        "STALWART_REDIS_PREFIX": f"{environ.get('STALWART_REDIS_PREFIX', '')}{base.name}-{worker}:",
    }
    url = environ.get("DATABASE_URL", "")
    if on_postgres(url):
        parts = urlsplit(url)
        changes["DATABASE_URL"] = urlunsplit(parts._replace(path=f"{parts.path.rstrip('/')}_{worker}"))
    return changes


def ensure_postgres_database(url: str) -> None:
    """Make the database ``url`` names when it is missing: the ``serve``
    processes of the end-to-end tests write there (pytest-django makes and
    drops its own ``test_...`` database beside it)."""
    if not on_postgres(url):
        return
    import psycopg
    from psycopg import sql

    name = urlsplit(url).path.lstrip("/")
    admin = urlunsplit(urlsplit(url)._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is None:
            try:
                conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
            except psycopg.errors.DuplicateDatabase:
                pass  # made by another session in between


@contextmanager
def database_of_its_own(environ: MutableMapping[str, str]) -> Iterator[None]:
    """On PostgreSQL, point ``DATABASE_URL`` in ``environ`` at a new, empty
    database for the block (the servers started in it migrate it) and drop it
    after: for a test that counts every open pause a server holds (the
    worker's database keeps other tests' pauses), or changes what every later
    server would see (a tool withdrawn). Nothing changes on SQLite,
    where each server's data folder is its own already."""
    url = environ.get("DATABASE_URL", "")
    if not on_postgres(url):
        yield
        return
    import psycopg
    from psycopg import sql

    parts = urlsplit(url)
    name = f"{parts.path.strip('/')}_{uuid.uuid4().hex[:8]}"
    own = urlunsplit(parts._replace(path=f"/{name}"))
    ensure_postgres_database(own)
    environ["DATABASE_URL"] = own
    try:
        yield
    finally:
        environ["DATABASE_URL"] = url
        with psycopg.connect(urlunsplit(parts._replace(path="/postgres")), autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
