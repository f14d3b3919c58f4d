"""Wrong operator bearers on `POST /threads/{id}/rollback` against real
`stalwart serve` processes (issue 26): limited per client address, in the
database so several workers share the count; past the limit a `429` in the
JSON error shape with `Retry-After`, logged on `stalwart.security`; another
address is not held."""

from __future__ import annotations

import secrets
import uuid
from pathlib import Path

import httpx
import pytest

from doors.http.api import DETAIL_OPERATOR, OPERATOR_LIMIT
from tests.support.server import Server

pytestmark = pytest.mark.server

TOKEN = "op-" + uuid.uuid4().hex
RUN = uuid.uuid4().hex[:8]
# Loopback addresses of this run's own: on PostgreSQL every server of the
# suite shares one database, and with it the counts of earlier runs.
NET = f"127.{secrets.randbelow(250) + 1}.{secrets.randbelow(250) + 1}"


def client_from(server: Server, address: str) -> httpx.Client:
    """A client on its own loopback address (Linux answers all of 127.0.0.0/8)."""
    return httpx.Client(base_url=server.url, transport=httpx.HTTPTransport(local_address=address), timeout=30)


def rollback(client: httpx.Client, token: str) -> httpx.Response:
    return client.post(f"/threads/nobody-{RUN}/rollback", headers={"Authorization": f"Bearer {token}"})


def test_100_wrong_bearers_are_401_then_429_and_the_right_one_works_from_elsewhere(data_dir: Path):
    with Server(data_dir, args=["--operator-token", TOKEN]) as server, \
            client_from(server, f"{NET}.2") as guesser, client_from(server, f"{NET}.3") as operator:
        answers = [rollback(guesser, f"guess-{n}") for n in range(100)]
        statuses = [a.status_code for a in answers]
        limit = OPERATOR_LIMIT.per_client
        assert statuses == [401] * limit + [429] * (100 - limit)
        wrong, held = answers[0], answers[-1]
        assert wrong.json() == {"error": "unauthorized", "detail": str(DETAIL_OPERATOR)}
        assert held.headers["Content-Type"] == "application/json"
        assert held.json()["error"] == "too_many_tries" and set(held.json()) == {"error", "detail"}
        assert 1 <= int(held.headers["Retry-After"]) <= 60
        assert held.headers["X-Content-Type-Options"] == "nosniff"
        # While held, the right token from the guesser's address is refused unread too...
        assert rollback(guesser, TOKEN).status_code == 429
        # ...and the operator, on another address, gets through (the thread does not exist: 404).
        assert rollback(operator, TOKEN).status_code == 404
        log = server.log()
        assert log.count(f"a rollback without the operator token (from {NET}.2)") == limit
        assert f"rollback tries from {NET}.2 refused for" in log


def test_the_twin_the_right_bearer_is_never_counted(data_dir: Path):
    # The same set-up with the one condition changed: every try carries the right token.
    with Server(data_dir, args=["--operator-token", TOKEN]) as server, client_from(server, f"{NET}.5") as client:
        assert {rollback(client, TOKEN).status_code for _ in range(OPERATOR_LIMIT.per_client + 5)} == {404}


def test_two_workers_share_the_count(data_dir: Path):
    # Both processes serve the same database (SQLite file, or DATABASE_URL): the
    # wrong tries sent to one count on the other.
    with Server(data_dir, args=["--operator-token", TOKEN]) as first, \
            Server(data_dir, args=["--operator-token", TOKEN]) as second, \
            client_from(first, f"{NET}.4") as one, client_from(second, f"{NET}.4") as two:
        half = OPERATOR_LIMIT.per_client // 2
        statuses = [rollback(one, "wrong").status_code for _ in range(half)]
        statuses += [rollback(two, "wrong").status_code for _ in range(OPERATOR_LIMIT.per_client - half)]
        assert statuses == [401] * OPERATOR_LIMIT.per_client
        assert rollback(one, "wrong").status_code == 429
        assert rollback(two, TOKEN).status_code == 429


def test_behind_a_listed_proxy_the_forwarded_address_is_counted_and_an_unlisted_one_is_not_believed(data_dir: Path):
    proxy, unlisted = f"{NET}.6", f"{NET}.7"
    env = {"STALWART_TRUSTED_PROXIES": proxy}
    with Server(data_dir, args=["--operator-token", TOKEN], env=env) as server, \
            client_from(server, proxy) as through, client_from(server, unlisted) as other:
        def forwarded(client: httpx.Client, address: str, token: str) -> int:
            return client.post(f"/threads/nobody-{RUN}/rollback", headers={
                "Authorization": f"Bearer {token}", "X-Forwarded-For": address}).status_code

        limit = OPERATOR_LIMIT.per_client
        guesser, operator = f"203.0.113.{secrets.randbelow(250) + 1}", "192.0.2.10"
        assert [forwarded(through, guesser, "wrong") for _ in range(limit + 1)] == [401] * limit + [429]
        # The proxy's other clients are not held: the address it forwards is what is counted.
        assert forwarded(through, operator, TOKEN) == 404
        assert f"rollback tries from {guesser} refused for" in server.log()
        # The twin: a proxy not listed is the one address, whatever it forwards.
        assert [forwarded(other, f"192.0.2.{n}", "wrong") for n in range(limit + 1)] == [401] * limit + [429]
