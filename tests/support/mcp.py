"""MCP clients for the gateway's tests: the MCP SDK's own ``ClientSession``
over streamable HTTP (or stdio), an agent file with the gateway's settings,
and a signed-in console to answer pauses from."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import httpx2
import mcp.types as types
import yaml
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from tests.support.server import ROOT, SHOP

Elicit = Callable[[Any, types.ElicitRequestParams], Awaitable[types.ElicitResult]]


def gateway_agent_file(folder: Path, *, wait: float = 3, approver: str = "person") -> Path:
    """The shop with the gateway's settings: a short wait budget, ``refund_card``
    needing the ``refunds`` privilege, and a second agent (``Counter``) whose
    approver is the MCP client."""
    spec = yaml.safe_load(SHOP.read_text(encoding="utf-8"))
    shop = spec["agents"][0]
    shop["vocabulary"] = str(SHOP.parent / "vocabulary.yaml")
    shop["tools"]["refund_card"]["privilege"] = "refunds"
    shop["mcp"] = {"wait": wait, "approver": approver}
    counter = {**shop, "name": "Counter", "mcp": {"wait": wait, "approver": "client"}}
    spec["agents"] = [shop, counter]
    path = folder / "gateway-agent.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    return path


@asynccontextmanager
async def mcp_session(url: str, *, key: str | None = None, elicit: Elicit | None = None,
                      on_message: Callable[[Any], Awaitable[None]] | None = None,
                      name: str = "stalwart-tests") -> AsyncIterator[ClientSession]:
    """An initialized (2025-11-25) MCP client session against ``url``."""
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300)) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write, elicitation_callback=elicit, message_handler=on_message,
                                     client_info=types.Implementation(name=name, version="1")) as session:
                await session.initialize()
                yield session


@asynccontextmanager
async def mcp_stdio(agent_file: Path, data_dir: Path, *, env: dict[str, str] | None = None,
                    elicit: Elicit | None = None, name: str = "stalwart-tests-stdio") -> AsyncIterator[ClientSession]:
    """``stalwart mcp AGENT_FILE`` as a client launches it: a subprocess over stdio."""
    environment = {k: v for k, v in os.environ.items() if k not in ("STALWART_AGENT_FILE", "DJANGO_SETTINGS_MODULE",
                                                                   "SECRET_KEY")}
    environment.update({"STALWART_DATA_DIR": str(data_dir), "PYTHONPATH": str(ROOT), **(env or {})})
    params = StdioServerParameters(command=sys.executable, args=["-m", "stalwart_site.cli", "mcp", str(agent_file)],
                                   cwd=str(ROOT), env=environment)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, elicitation_callback=elicit,
                                 client_info=types.Implementation(name=name, version="1")) as s:
            await s.initialize()
            yield s


def stalwart(*args: str, data_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("STALWART_AGENT_FILE", "DJANGO_SETTINGS_MODULE",
                                                             "SECRET_KEY")}
    env["STALWART_DATA_DIR"] = str(data_dir)
    done = subprocess.run([sys.executable, "-m", "stalwart_site.cli", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done


def keys_revoked(data_dir: Path) -> None:
    """No client key in force on the run store the servers share (so the gateway answers loopback callers)."""
    sql = "UPDATE doors_mcp_mcpclient SET revoked_at = CURRENT_TIMESTAMP WHERE revoked_at IS NULL"
    if os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")):
        import psycopg

        with psycopg.connect(os.environ["DATABASE_URL"]) as conn:
            try:
                conn.execute(sql)
            except psycopg.errors.UndefinedTable:  # no server has migrated this database yet: no key either
                pass
        return
    import sqlite3

    if (data_dir / "runs.db").exists():
        conn = sqlite3.connect(data_dir / "runs.db", timeout=30)
        try:
            conn.execute(sql)
            conn.commit()
        except sqlite3.OperationalError:  # no table yet: no key either
            pass
        finally:
            conn.close()


def mcp_key(data_dir: Path, name: str, *options: str) -> str:
    """A client key made as an operator would (``stalwart mcp-client``), printed once."""
    made = stalwart("mcp-client", name, *options, data_dir=data_dir)
    return re.search(r"Its key, shown this once: (\S+)", made.stdout).group(1)  # type: ignore[union-attr]


class Console:
    """A staff member signed in to the console over plain HTTP (the browser test uses Chromium)."""

    def __init__(self, base: str, data_dir: Path, name: str) -> None:
        made = stalwart("createstaff", name, "--operator", data_dir=data_dir)
        password = re.search(r"One-time password: (\S+)", made.stdout).group(1)  # type: ignore[union-attr]
        self.http = httpx.Client(base_url=base, timeout=60)
        self.http.get("/admin/login/")
        self._post("/admin/login/?next=/admin/", {"username": name, "password": password})
        new = f"a-long-new-password-{name}"
        self.http.get("/admin/password_change/")
        self._post("/admin/password_change/", {"old_password": password, "new_password1": new, "new_password2": new})

    def _post(self, path: str, data: dict[str, str]) -> httpx.Response:
        response = self.http.post(path, data={**data, "csrfmiddlewaretoken": self.http.cookies["csrftoken"]})
        assert response.status_code in (200, 302), response.text[:500]
        return response

    def answer(self, pause_id: str, decision: str) -> str:
        """Answer from the pause's page with the token it shows; the page's message after."""
        page = self.http.get(f"/admin/threads/interrupt/{pause_id}/change/").text
        token = re.search(r'name="token" value="([0-9a-f]+)"', page)
        assert token, page[:2000]
        self._post(f"/admin/threads/interrupt/{pause_id}/answer/", {"decision": decision, "token": token.group(1)})
        return self.http.get(f"/admin/threads/interrupt/{pause_id}/change/").text

    def withdraw(self, agent: str, tool: str) -> None:
        self._post("/admin/catalogue/tool/withdraw/", {"agent": agent, "tool": tool, "reason": "a test withdraws it"})

    def restore(self, agent: str, tool: str) -> None:
        self._post("/admin/catalogue/tool/restore/", {"agent": agent, "tool": tool})

    def close(self) -> None:
        self.http.close()
