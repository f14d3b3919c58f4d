"""``--dev-pair``: wrong codes are rate-limited across workers (the count is in
the database), per client address only, so one client's wrong codes never keep
another out (issue 26); a right code signs in as the local operator, not a
superuser (issue 14)."""

from __future__ import annotations

import re
import secrets
import time
from datetime import timedelta

import httpx
import pytest

from approvals.pairing import (
    PER_CLIENT,
    pairing_code_create,
    pairing_failure_record,
    pairing_retry_after,
)
from approvals.views import DETAIL_BAD_CODE
from tests.support.server import Server


def code_of(server: Server) -> str:
    deadline = time.monotonic() + 10
    while "Pairing code" not in server.log() and time.monotonic() < deadline:
        time.sleep(0.1)
    return re.search(r"Pairing code: (\d{6})", server.log()).group(1)  # type: ignore[union-attr]


def wrong_code(code: str) -> str:
    return "000000" if code != "000000" else "111111"


@pytest.mark.server
def test_wrong_codes_are_limited_then_429_with_retry_after_even_for_the_right_code(data_dir):
    with Server(data_dir, args=["--dev-pair"]) as server, httpx.Client(base_url=server.url) as client:
        code = code_of(server)
        token = client.get("/pair/").cookies["csrftoken"]

        def pair(value: str) -> httpx.Response:
            return client.post("/pair/", data={"code": value, "csrfmiddlewaretoken": token})

        for _ in range(PER_CLIENT):
            wrong = pair(wrong_code(code))
            assert wrong.status_code == 400 and str(DETAIL_BAD_CODE) in wrong.text
        limited = pair(wrong_code(code))
        assert limited.status_code == 429
        assert 1 <= int(limited.headers["Retry-After"]) <= 60
        assert "Too many wrong codes" in limited.text
        assert limited.headers["Content-Security-Policy"].startswith("default-src 'self'")
        # The right code is refused too while the limit holds, and stays unused.
        assert pair(code).status_code == 429
        assert client.get("/admin/", follow_redirects=False).status_code == 302  # still signed out


def client_from(server: Server, address: str) -> httpx.Client:
    """A browser on another loopback address (Linux answers all of 127.0.0.0/8)."""
    return httpx.Client(base_url=server.url, transport=httpx.HTTPTransport(local_address=address))


@pytest.mark.server
def test_ten_wrong_codes_from_one_address_keep_no_one_else_out(data_dir):
    # The hostile test (issue 26): ten wrong codes a minute from anyone kept the
    # operator out for the code's whole life. Now only the guesser is held.
    net = f"127.{secrets.randbelow(250) + 1}.{secrets.randbelow(250) + 1}"  # this run's own addresses
    with Server(data_dir, args=["--dev-pair"]) as server, client_from(server, f"{net}.2") as guesser, \
            client_from(server, f"{net}.3") as operator:
        code = code_of(server)

        def pair(client: httpx.Client, value: str) -> httpx.Response:
            token = client.get("/pair/").cookies["csrftoken"]
            return client.post("/pair/", data={"code": value, "csrfmiddlewaretoken": token})

        statuses = [pair(guesser, wrong_code(code)).status_code for _ in range(10)]
        assert statuses == [400] * PER_CLIENT + [429] * (10 - PER_CLIENT)
        assert pair(guesser, code).status_code == 429  # the guesser's address is held, the right code too...
        paired = pair(operator, code)  # ...and the operator, on another address, pairs at once
        assert paired.status_code == 302 and paired.headers["location"] == "/admin/"
        assert operator.get("/admin/").status_code == 200
        assert guesser.get("/admin/", follow_redirects=False).status_code == 302  # still signed out
        assert f"wrong or used pairing code was entered (from {net}.2)" in server.log()


@pytest.mark.server
def test_a_right_code_signs_in_as_the_local_operator_not_a_superuser(data_dir):
    with Server(data_dir, args=["--dev-pair"]) as server, httpx.Client(base_url=server.url) as client:
        code = code_of(server)
        token = client.get("/pair/").cookies["csrftoken"]
        paired = client.post("/pair/", data={"code": code, "csrfmiddlewaretoken": token})
        assert paired.status_code == 302 and paired.headers["location"] == "/admin/"
        assert client.get("/admin/").status_code == 200
        # An operator answers pauses and withdraws tools; only a superuser manages accounts.
        assert client.get("/admin/catalogue/withdrawal/").status_code == 200
        assert client.get("/admin/auth/user/").status_code == 403


@pytest.mark.django_db
def test_a_new_code_opens_a_new_window():
    for _ in range(PER_CLIENT):
        pairing_failure_record(client="10.0.0.1")
    assert pairing_retry_after(client="10.0.0.1") > 0
    pairing_code_create()
    assert pairing_retry_after(client="10.0.0.1") == 0


@pytest.mark.django_db
def test_the_limit_holds_per_client_only():
    for _ in range(PER_CLIENT - 1):
        pairing_failure_record(client="10.0.0.1")
    assert pairing_retry_after(client="10.0.0.1") == 0
    pairing_failure_record(client="10.0.0.1")
    assert 1 <= pairing_retry_after(client="10.0.0.1") <= 60
    # Many more wrong codes from many addresses: each of them is held, no one else is.
    for n in range(20):
        for _ in range(PER_CLIENT):
            pairing_failure_record(client=f"10.0.1.{n}")
    assert pairing_retry_after(client="10.0.1.7") > 0
    assert pairing_retry_after(client="10.0.0.2") == 0


@pytest.mark.django_db
def test_failures_older_than_a_minute_no_longer_count():
    from threads.models import WrongGuess

    for _ in range(PER_CLIENT):
        pairing_failure_record(client="10.0.0.1")
    WrongGuess.objects.update(created_at=WrongGuess.objects.first().created_at - timedelta(seconds=61))
    assert pairing_retry_after(client="10.0.0.1") == 0
