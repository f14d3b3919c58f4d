"""The AG-UI tests' shared set-up: the protocol's own client bundled to drive
a real server (``driver``), and one ``stalwart serve`` of the shop per module."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import fresh_shop
from tests.support.server import Server

HERE = Path(__file__).resolve().parent
NODE = shutil.which("node")


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``drive.mjs`` bundled with the example it imports (esbuild, the client from tests/agui's node_modules)."""
    if NODE is None or not (HERE / "node_modules" / "@ag-ui" / "client").exists():
        pytest.skip("needs node and tests/agui's node packages (./scripts/test installs them with npm ci)")
    out = tmp_path_factory.mktemp("agui-driver") / "drive.mjs"
    subprocess.run([str(HERE / "node_modules" / ".bin" / "esbuild"), str(HERE / "drive.mjs"), "--bundle",
                    "--platform=node", "--format=esm", f"--outfile={out}", "--log-level=warning"],
                   check=True, env={"NODE_PATH": str(HERE / "node_modules"), "PATH": "/usr/bin:/bin"}, timeout=120)
    return out


@pytest.fixture(scope="module")
def module_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One ``stalwart serve`` of the shop for the module: each test opens threads of its own."""
    with Server(tmp_path_factory.mktemp("agui-server")) as s:
        yield s


@pytest.fixture
def server(module_server: Server, monkeypatch: pytest.MonkeyPatch) -> Server:
    return fresh_shop(module_server, monkeypatch)


@pytest.fixture
def data_dir(server: Server) -> Path:
    return server.data_dir
