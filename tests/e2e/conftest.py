from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from examples.shop import tools as shop
from tests.support.server import Server


def on_postgres() -> bool:
    return os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))


@pytest.fixture
def data_dir(shop_dir: Path) -> Path:
    """The server's data folder; this process reads the same shop through it."""
    return shop_dir


@pytest.fixture
def mcp_agent_file(tmp_path: Path) -> Path:
    """The shop with the MCP gateway's settings (``tests.support.mcp.gateway_agent_file``)."""
    from tests.support.mcp import gateway_agent_file

    return gateway_agent_file(tmp_path)


@pytest.fixture
def gateway(data_dir: Path, mcp_agent_file: Path) -> Iterator[Server]:
    """A ``stalwart serve`` of the gateway's agent file."""
    with Server(data_dir, agent_file=mcp_agent_file) as s:
        yield s


@pytest.fixture
def me() -> str:
    """This test's MCP client name: its own session, so its own thread, on a database the suite shares."""
    import uuid

    return f"client-{uuid.uuid4().hex[:6]}"


@pytest.fixture
def server(data_dir: Path) -> Iterator[Server]:
    with Server(data_dir) as s:
        yield s


@pytest.fixture(scope="module")
def module_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One ``stalwart serve`` of the shop for a whole module (through ``shared_server``)."""
    with Server(tmp_path_factory.mktemp("module-server")) as s:
        yield s


@pytest.fixture
def shared_server(module_server: Server, monkeypatch: pytest.MonkeyPatch) -> Server:
    """The module's server, started once rather than once a test, with a fresh shop."""
    return fresh_shop(module_server, monkeypatch)


def fresh_shop(server: Server, monkeypatch: pytest.MonkeyPatch) -> Server:
    """A server shared by a module's tests, as each test gets it.

    For modules whose tests each open threads of their own (a random id): the
    run store they share then holds nothing another test reads. The shop is
    the state they would share, so each test gets it as docs/getting-started.md seeds it
    (``shop.reset()`` unlinks its file between requests; the server opens it
    per call) and reads it through the server's data folder, as the tests of
    the per-test ``server`` fixture do."""
    monkeypatch.setenv("STALWART_DATA_DIR", str(server.data_dir))
    shop.reset()
    return server
