"""What operators store about an agent, read once per process and read again
after any change in any process: its withdrawals and the selector's language
setting (docs/operating.md, "The console (/admin/)"). ``catalogue.registry``
is the only reader.

The model: a token in the shared cache (``settings.CACHES["shared"]``: Redis
with ``REDIS_URL``, else files in the data folder) names the current version
of that state. Each process keeps, per agent, the rows it last read, stamped
with the token it read just before them. A read compares its stamp with the
token: one cache get, no SQL. Every change to a ``Withdrawal`` or an
``AgentSetting`` (a save, a delete, a queryset update, a bulk create, a flush)
sets a new random token once its transaction commits (``changed``), so any read
that starts after the commit reads the database again: a tool withdrawn in the
admin of any process is refused from then on, an approved pause included.

Why each rule holds the guarantee:

- The token is read before the rows. Rows committed after that read are stamped
  with the old token, which the change's new token outdates.
- The new token is set after the commit, never before: one set before could
  stamp the old rows a reader saw in between, and nothing would outdate them.
- A token is random, never a counter: a cache that lost its key (a Redis
  restart, an eviction) cannot hand back an old stamp; a lost key is a new token.
- A connection whose open transaction changed the state reads the database and
  keeps nothing: what it sees is not committed and may roll back.
- A read inside a transaction whose snapshot may predate the token (SQLite
  without IMMEDIATE, PostgreSQL above READ COMMITTED) keeps nothing either.
- The cache unreachable: the database is read on every call and nothing is
  kept (a warning logged once), never a stale list.
- A copy is read again after ``KEEP_SECONDS`` whatever the token says: the
  bound on what no token can announce, a change made around Django (SQL typed
  in psql, a restored backup) or one committed while the cache could not be
  reached (logged as an error). ``changed()`` announces the first at once
  (``manage.py shell -c "from catalogue.stored import changed; changed()"``).
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any, ClassVar, NamedTuple

from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.utils.functional import cached_property

TOKEN_KEY = "catalogue:stored:token"
CACHE_ALIAS = "shared"
KEEP_SECONDS = 10.0

logger = logging.getLogger("stalwart.catalogue")


class Stored(NamedTuple):
    withdrawn: frozenset[str]
    language: str  # "" when unset


# agent name -> (token, when read, rows): this process's copy. Plain dict
# operations are atomic under the GIL, and two threads filling one agent each
# stamp their rows with the token read before them: either copy is safe to keep.
_kept: dict[str, tuple[int, float, Stored]] = {}
_cache_down = False


def agent_stored(agent: str, read: Callable[[str], Stored]) -> Stored:
    """The agent's withdrawals and language setting as committed, or as this
    connection's own open transaction has them; ``read`` reads them from the
    database (``catalogue.registry``: the models import this module)."""
    connection = connections[DEFAULT_DB_ALIAS]
    token = _token() if _may_keep(connection) else None
    now = time.monotonic()
    if token is not None:
        found = _kept.get(agent)
        if found is not None and found[0] == token and now - found[1] < KEEP_SECONDS:
            return found[2]
    rows = read(agent)
    if token is not None:
        _kept[agent] = (token, now, rows)
    return rows


def changed(*, using: str = DEFAULT_DB_ALIAS) -> None:
    """Tell every process the stored state changed, once the transaction commits."""
    connection = connections[using]
    if not connection.in_atomic_block:
        _renew()
    elif not _pending(connection):  # one notice per transaction is enough
        transaction.on_commit(_Notice(), using=using)


def forget() -> None:
    """Drop this process's copy (tests, and ``registry.forget``)."""
    _kept.clear()


class _Notice:
    """An on-commit callback that renews the token. ``done`` tells a callback a
    test ran by hand (``captureOnCommitCallbacks``) from one still waiting."""

    __slots__ = ("done",)

    def __init__(self) -> None:
        self.done = False

    def __call__(self) -> None:
        self.done = True
        _renew()


def _pending(connection: Any) -> bool:
    # Django drops the callbacks of a rolled-back transaction or savepoint from
    # run_on_commit, so a waiting notice means an uncommitted change, exactly.
    return any(isinstance(f, _Notice) and not f.done for _sids, f, _robust in connection.run_on_commit)


def _may_keep(connection: Any) -> bool:
    if _pending(connection):
        return False
    if not connection.in_atomic_block:
        return True  # autocommit: each query sees what was committed before it
    if connection.vendor == "sqlite":
        # IMMEDIATE (settings) takes the write lock at BEGIN: no one commits
        # while this transaction is open, so its snapshot is the latest.
        return getattr(connection, "transaction_mode", None) in ("IMMEDIATE", "EXCLUSIVE")
    if connection.vendor == "postgresql":
        # READ COMMITTED (Django's default): each query sees every commit before it.
        return getattr(getattr(connection, "isolation_level", None), "name", None) == "READ_COMMITTED"
    return False


def _cache() -> Any:
    from django.core.cache import caches

    return caches[CACHE_ALIAS]


def _token() -> int | None:
    """The current token, or None when the cache cannot be reached."""
    global _cache_down
    try:
        cache = _cache()
        token = cache.get(TOKEN_KEY)
        if token is None:  # never set, or lost: a new token outdates every copy
            cache.add(TOKEN_KEY, secrets.randbits(62), timeout=None)
            token = cache.get(TOKEN_KEY)
    except Exception:
        if not _cache_down:
            logger.warning("The shared cache cannot be reached: withdrawals and settings are read from the "
                           "database on every call until it answers again.", exc_info=True)
        _cache_down = True
        return None
    if _cache_down:
        logger.info("The shared cache answers again.")
        _cache_down = False
    return token if isinstance(token, int) else None


def _renew() -> None:
    try:
        _cache().set(TOKEN_KEY, secrets.randbits(62), timeout=None)
    except Exception:
        # Committed, but the other processes could not be told: they go on with
        # their copies until the cache answers and something changes again.
        logger.error("Withdrawals or settings changed but the shared cache cannot be reached: other processes "
                     "may go on with the old ones. Change them again, or restart them, once it answers.",
                     exc_info=True)
    _kept.clear()


class SharedRedisCache(RedisCache):
    """Django's Redis cache with one client per process. The built-in backend
    makes a ``redis.Redis`` per call, which costs as much as the GET itself
    (redis-py 8, about 0.1 ms), and Django makes a backend per thread, so under
    ASGI (a thread per request) a connection pool per request. Here every
    backend of the process shares one client and its pool (both thread-safe;
    redis-py makes a new pool after a fork)."""

    _shared: ClassVar[dict[str, RedisCacheClient]] = {}

    @cached_property
    def _cache(self) -> RedisCacheClient:
        key = repr((self._servers, sorted(self._options.items())))
        found = self._shared.get(key)
        if found is None:
            found = self._shared.setdefault(key, _OneClient(self._servers, **self._options))
        return found


class _OneClient(RedisCacheClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._made: dict[int, Any] = {}
        self._lock = threading.Lock()

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        with self._lock:  # the threads of the process share it: one pool per server, made once
            pool = self._get_connection_pool(write)
            client = self._made.get(id(pool))  # pools are kept for good: an id stays theirs
            if client is None:
                client = self._made[id(pool)] = self._client(connection_pool=pool)
        return client
