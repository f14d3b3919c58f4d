"""Doing things at the same moment, and killing a worker under a call."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from examples.shop import tools as shop
from tests.support.mcp import gateway_agent_file
from tests.support.server import Server
from tests.support.workers import database_of_its_own

FAST_SWEEP = {"STALWART_SWEEP_SECONDS": "1", "STALWART_LEASE_SECONDS": "2"}
HANGING_CHARGE = {**FAST_SWEEP, "STALWART_SHOP_FAULTS": "charge_card=hang", "STALWART_SHOP_HANG": "120"}


def at_once(*calls: Callable[[], Any], in_process: bool = False) -> list[Any]:
    """Run ``calls`` on threads of their own, released together; their results in order
    (an exception is raised here). ``in_process``: each thread gives its database connection back."""
    barrier = threading.Barrier(len(calls))
    out: list[Any] = [None] * len(calls)
    failed: list[BaseException] = []

    def one(i: int, call: Callable[[], Any]) -> None:
        try:
            barrier.wait()
            out[i] = call()
        except BaseException as exc:  # noqa: BLE001 - handed to the test's thread
            failed.append(exc)
        finally:
            if in_process:
                from django.db import connection

                connection.close()

    threads = [threading.Thread(target=one, args=(i, c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=180)
    if failed:
        raise failed[0]
    return out


def kill(server: Server) -> None:
    """SIGKILL a server: no clean-up of any kind, as a crash or an OOM kill."""
    assert server.proc is not None
    os.kill(server.proc.pid, signal.SIGKILL)
    server.proc.wait()
    server.stop()


@contextmanager
def faulty_workers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> Iterator[list[Server]]:
    """Two workers of the shop on a data folder (and, on PostgreSQL, a database) of their own, each sweeping
    every second with a two-second lease (a sweep takes over whatever the store holds stranded, so never the
    store other tests share), ``env`` their faults."""
    with database_of_its_own(os.environ):
        folder = tmp_path / "faulty"
        folder.mkdir()
        monkeypatch.setenv("STALWART_DATA_DIR", str(folder))
        shop.reset()
        agent = gateway_agent_file(tmp_path, wait=2)
        started: list[Server] = []
        try:
            for _ in range(2):
                started.append(Server(folder, agent_file=agent, env=env).start())
            yield started
        finally:
            for server in started:
                server.stop()
