"""A real ``stalwart serve`` process on a free loopback port, for end-to-end tests."""

from __future__ import annotations

import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import closing
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
SHOP = ROOT / "examples" / "shop" / "agent.yaml"
# The end of stalwart_site.cli.REFUSED_PORT: the port check at start, or a bind lost after it.
PORT_TAKEN = "Is another server running there?"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


_migrated_lock = threading.Lock()
_migrated: dict[str, Path] = {}


def migrated_copy(target: Path, env: dict[str, str]) -> None:
    """Put a migrated, empty runs.db at ``target`` unless one is there: made
    once per test process by ``manage.py migrate`` (the same migrations a
    first start runs, under the same Python), then copied."""
    with _migrated_lock:
        if target.exists():
            return
        template = _migrated.get(sys.executable)
        if template is None:
            folder = Path(tempfile.mkdtemp(prefix="stalwart-migrated-"))
            made = subprocess.run([sys.executable, "manage.py", "migrate", "--verbosity", "0"], cwd=ROOT,
                                  env={**env, "STALWART_DATA_DIR": str(folder), "STALWART_AGENT_FILE": str(SHOP),
                                       "DJANGO_SETTINGS_MODULE": "stalwart_site.settings"},
                                  capture_output=True, text=True, timeout=120)
            if made.returncode != 0:
                raise RuntimeError(f"manage.py migrate failed:\n{made.stdout}{made.stderr}")
            template = folder / "template.db"
            with closing(sqlite3.connect(folder / "runs.db")) as source, closing(sqlite3.connect(template)) as copy:
                source.backup(copy)  # one file, nothing left in a WAL
            _migrated[sys.executable] = template
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(template, target)


class Server:
    def __init__(self, data_dir: Path, *, agent_file: Path = SHOP, port: int | None = None,
                 env: dict[str, str] | None = None, args: list[str] | None = None, own: bool = False,
                 empty: bool = False, module: str | None = None) -> None:
        """``empty``: start on the data folder as it is, as a first start does
        (the server migrates a new runs.db). Otherwise a folder without a
        runs.db gets a copy of one this process migrated once (SQLite only):
        each fresh folder migrated again costs a second and a half of CPU."""
        self.data_dir = data_dir
        self.empty = empty
        self.agent_file = agent_file
        self.port = port or free_port()
        self._port_chosen_here = port is None
        self.extra_env = env or {}
        self.args = args or []
        self.own = own  # a team's own server mounting make_app (tests.support.own_server), not `stalwart serve`
        self.module = module  # MODULE:FACTORY of a graph: the LangGraph bridge (tests.support.langgraph_server)
        self.proc: subprocess.Popen[str] | None = None
        self.log_path = data_dir / f"server-{self.port}.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> Server:
        env = {k: v for k, v in os.environ.items() if k not in ("STALWART_AGENT_FILE", "DJANGO_SETTINGS_MODULE", "SECRET_KEY")}
        env.update({"STALWART_DATA_DIR": str(self.data_dir), "PYTHONUNBUFFERED": "1"})
        env.update(self.extra_env)
        if not self.empty and not env.get("DATABASE_URL"):
            migrated_copy(self.data_dir / "runs.db", env)
        self._log = open(self.log_path, "a")  # noqa: SIM115 - closed in stop()
        command = ([sys.executable, "-m", "tests.support.langgraph_server", self.module, str(self.port)]
                   if self.module else
                   [sys.executable, "-m", "tests.support.own_server", str(self.agent_file), str(self.port)]
                   if self.own else [sys.executable, "-m", "stalwart_site.cli", "serve", str(self.agent_file),
                                     "--port", str(self.port), *self.args])
        self.proc = subprocess.Popen(
            command,
            cwd=ROOT, env=env, stdout=self._log, stderr=subprocess.STDOUT, text=True,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                if self._port_chosen_here and PORT_TAKEN in self.log():
                    # Another process (a parallel worker's server, say) took the
                    # port between free_port() and this bind: another port, once.
                    self._log.close()
                    self._port_chosen_here = False
                    self.port = free_port()
                    self.log_path = self.data_dir / f"server-{self.port}.log"
                    return self.start(timeout)
                raise RuntimeError(f"server exited with {self.proc.returncode}:\n{self.log()}")
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1.0).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"server did not answer within {timeout}s:\n{self.log()}")

    def log(self) -> str:
        return self.log_path.read_text() if self.log_path.exists() else ""

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if getattr(self, "_log", None):
            self._log.close()

    def __enter__(self) -> Server:
        # ``with Server(...).start(timeout=...) as server`` enters a started server: a second start would leave
        # the first process running after the block.
        return self if self.proc is not None and self.proc.poll() is None else self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


class Browser:
    """One browser session: sends back the Stalwart-Session it was handed."""

    def __init__(self, base: str) -> None:
        self.client = httpx.Client(base_url=base, timeout=60.0)
        self.session: str | None = None

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        headers = dict(kwargs.pop("headers", {}) or {})
        if self.session:
            headers["Stalwart-Session"] = self.session
        response = self.client.request(method, path, headers=headers, **kwargs)
        self.session = response.headers.get("Stalwart-Session", self.session)
        return response

    def say(self, thread: str, text: str, **extra: Any) -> httpx.Response:
        return self.request("POST", f"/threads/{thread}/messages", json={"text": text, **extra})

    def resume(self, thread: str, pause: dict[str, Any], decision: str, **extra: Any) -> httpx.Response:
        body = {"interrupt_id": pause["id"], "decision": decision, "token": pause["token"], **extra}
        return self.request("POST", f"/threads/{thread}/resume", json=body)

    def key(self, thread: str) -> str:
        """The stored key of this session's thread ``thread``: how staff, signed
        channels and webhooks name it."""
        return session_key(thread, self.session or "")

    def close(self) -> None:
        self.client.close()


def session_key(thread: str, session: str) -> str:
    """The stored key of the thread ``thread`` of the session ``session`` (threads.keys)."""
    from threads.keys import thread_key
    from threads.selectors import session_hash

    return thread_key(thread, session_hash(session))
