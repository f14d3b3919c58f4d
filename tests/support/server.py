"""A real ``stalwart serve`` process on a free loopback port, for end-to-end tests."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
SHOP = ROOT / "examples" / "shop" / "agent.yaml"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    def __init__(self, data_dir: Path, *, agent_file: Path = SHOP, port: int | None = None,
                 env: dict[str, str] | None = None, args: list[str] | None = None) -> None:
        self.data_dir = data_dir
        self.agent_file = agent_file
        self.port = port or free_port()
        self.extra_env = env or {}
        self.args = args or []
        self.proc: subprocess.Popen[str] | None = None
        self.log_path = data_dir / f"server-{self.port}.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> Server:
        env = {k: v for k, v in os.environ.items() if k not in ("STALWART_AGENT_FILE", "DJANGO_SETTINGS_MODULE", "SECRET_KEY")}
        env.update({"STALWART_DATA_DIR": str(self.data_dir), "PYTHONUNBUFFERED": "1"})
        env.update(self.extra_env)
        self._log = open(self.log_path, "a")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "stalwart_site.cli", "serve", str(self.agent_file), "--port", str(self.port),
             *self.args],
            cwd=ROOT, env=env, stdout=self._log, stderr=subprocess.STDOUT, text=True,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
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
        return self.start()

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

    def close(self) -> None:
        self.client.close()
