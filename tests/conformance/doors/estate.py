"""The servers the conformance suite drives, shared by its tests (one set per test process).

One data folder (the shop's state, and on SQLite the run store) and, on
PostgreSQL, the worker's database. Each server starts on first use:

- ``main`` and ``second``: two ``stalwart serve`` processes of the shop (with
  the MCP gateway's settings: a one-second wait budget) on the same run store:
  the two workers of the race cases. On SQLite they share the data folder's
  ``runs.db`` (WAL, IMMEDIATE transactions), as ``tests/e2e/test_wrong_bearers.py``
  shows two processes sharing its counts.
- ``bridge``: the LangGraph bridge (``make_app`` over ``tests/langgraph/graphs.py``'s
  ``mail_agent``, served by daphne) on the same run store, with its own console.
- ``held`` and ``held2``: the shop with a longer wait budget, for calls that
  must still be held when a person answers (the MCP cases of P2).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import yaml

from tests.e2e.test_faults import rows as store_rows
from tests.support.mcp import Console, gateway_agent_file, keys_revoked
from tests.support.server import Server

from .base import unique

BRIDGE_GRAPH = "tests.langgraph.graphs:mail_agent"
AGUI = Path(__file__).resolve().parents[2] / "agui"


class Staff:
    """A staff member signed in to one server's console over HTTP (``tests/support/mcp.py``'s ``Console``)."""

    def __init__(self, base: str, data_dir: Path) -> None:
        self.name = unique("ops")
        self.console = Console(base, data_dir, self.name)
        self.http = self.console.http

    def page(self, pause_id: str) -> str:
        return self.http.get(f"/admin/threads/interrupt/{pause_id}/change/").text

    def token_shown(self, pause_id: str) -> str:
        found = re.search(r'name="token" value="([0-9a-f]+)"', self.page(pause_id))
        return found.group(1) if found else ""

    def post_answer(self, pause_id: str, data: dict[str, str]) -> tuple[int, str]:
        """POST the pause's answer form; the status and the messages shown after (following the redirect)."""
        response = self.http.post(f"/admin/threads/interrupt/{pause_id}/answer/",
                                  data={**data, "csrfmiddlewaretoken": self.http.cookies["csrftoken"]},
                                  follow_redirects=True)
        return response.status_code, messages_of(response.text)

    def answer(self, pause_id: str, decision: str, token: str | None = None) -> str:
        """Answer from the pause's page with the token it shows (or ``token``); the message after."""
        shown = self.token_shown(pause_id) if token is None else token
        return self.post_answer(pause_id, {"decision": decision, "token": shown})[1]

    def edit(self, pause_id: str, values: dict[str, str], token: str | None = None) -> str:
        """Edit the call before approving (the pause page's edit form); the message after."""
        shown = self.token_shown(pause_id) if token is None else token
        response = self.http.post(f"/admin/threads/interrupt/{pause_id}/edit/", follow_redirects=True, data={
            **{f"arg:{k}": v for k, v in values.items()}, "token": shown,
            "csrfmiddlewaretoken": self.http.cookies["csrftoken"]})
        return messages_of(response.text)

    def close(self) -> None:
        self.console.close()


def messages_of(page: str) -> str:
    """The text of the console's messages (``<ul class="messagelist">``), tags dropped."""
    found = re.search(r'<ul class="messagelist">(.*?)</ul>', page, re.S)
    if not found:
        return ""
    text = re.sub(r"<[^>]+>", " ", found.group(1))
    return re.sub(r"\s+", " ", text.replace("&quot;", '"').replace("&#x27;", "'").replace("&amp;", "&")).strip()


def with_policies(path: Path, policies: list[dict[str, Any]]) -> Path:
    """``path``'s agent file with ``policies`` given to each of its agents (docs/policies.md), beside it."""
    spec = yaml.safe_load(path.read_text(encoding="utf-8"))
    for agent in spec["agents"]:
        agent["policies"] = policies
    made = path.with_name(f"{path.stem}-policies.yaml")
    made.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    return made


class Estate:
    """``policies``: the approval policies every agent of the shop's servers (and the Desk's file) gets, and
    the bridge's graph (``make_app(policies=...)``), for the promise that is about them (P7); none for the
    others."""

    def __init__(self, folder: Path, tmp: Path, *, policies: list[dict[str, Any]] | None = None) -> None:
        self.data_dir = folder
        self.tmp = tmp
        self.agent_file = gateway_agent_file(self._folder("quick"), wait=1)
        self.held_agent_file = gateway_agent_file(self._folder("held"), wait=10)
        self.policies = policies  # the LangChain middleware's agent file gets them too
        self.desk_agent_file: Path | None = None  # the Desk's: the example shop's own file
        if policies is not None:
            self.agent_file = with_policies(self.agent_file, policies)
            self.held_agent_file = with_policies(self.held_agent_file, policies)
            self.desk_agent_file = self.agent_file
        self._servers: dict[str, Server] = {}
        self._staff: dict[str, Staff] = {}
        self._agui: Path | None = None
        self._keys_revoked = False

    def _folder(self, name: str) -> Path:
        path = self.tmp / name
        path.mkdir(parents=True, exist_ok=True)
        return path

    def server(self, name: str = "main", env: dict[str, str] | None = None) -> Server:
        if name not in self._servers or self._servers[name].proc is None or self._servers[name].proc.poll() is not None:
            if name.startswith("bridge"):
                if self.policies is not None:  # the graph's own interrupts under the same policies
                    env = {**(env or {}), "STALWART_TEST_BRIDGE_POLICIES": str(self._bridge_policies())}
                made = Server(self.data_dir, module=BRIDGE_GRAPH, env=env)
                self._servers[name] = made.start(timeout=180)  # langchain's imports
            else:
                agent = self.held_agent_file if name.startswith("held") else self.agent_file
                self._servers[name] = Server(self.data_dir, agent_file=agent, env=env).start()
            if not self._keys_revoked:  # once the store is migrated: no MCP client key in force, so the
                keys_revoked(self.data_dir)  # gateway answers loopback callers (a database other tests share)
                self._keys_revoked = True
        return self._servers[name]

    def _bridge_policies(self) -> Path:
        """``make_app(policies=...)``'s file: this estate's policies (docs/langgraph.md)."""
        path = self._folder("bridge") / "policies.yaml"
        path.write_text(yaml.safe_dump({"policies": self.policies}, sort_keys=False), encoding="utf-8")
        return path

    def worker(self, index: int) -> Server:
        return self.server("main" if index == 0 else "second")

    def staff(self, where: str = "main") -> Staff:
        if where not in self._staff:
            self._staff[where] = Staff(self.server(where).url, self.data_dir)
        return self._staff[where]

    def rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        return store_rows(self.data_dir, sql, params)

    def agui_driver(self) -> Path:
        """``tests/agui/drive.mjs`` bundled with the example it imports, as ``tests/agui/test_agui.py`` does."""
        if self._agui is None:
            out = self._folder("agui-driver") / "drive.mjs"
            subprocess.run([str(AGUI / "node_modules" / ".bin" / "esbuild"), str(AGUI / "drive.mjs"), "--bundle",
                            "--platform=node", "--format=esm", f"--outfile={out}", "--log-level=warning"],
                           check=True, env={"NODE_PATH": str(AGUI / "node_modules"), "PATH": "/usr/bin:/bin"},
                           timeout=120)
            self._agui = out
        return self._agui

    def stop(self) -> None:
        for staff in self._staff.values():
            staff.close()
        for server in self._servers.values():
            server.stop()
