"""A server-sent-events reader for tests: follows a stream in a thread and
hands over each event as ``{"id", "event", "data"}`` (data JSON-decoded)."""

from __future__ import annotations

import json
import queue
import threading
import time
from typing import Any

import httpx


class SSEReader:
    def __init__(self, url: str, *, headers: dict[str, str] | None = None, params: dict[str, str] | None = None) -> None:
        self.url = url
        self.headers = headers or {}
        self.params = params or {}
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()
        self.comments: list[str] = []
        self.retry: int | None = None
        self.status: int | None = None
        self.content_type = ""
        self.headers_received: dict[str, str] = {}
        self.body = b""
        self.opened = threading.Event()
        self.client = httpx.Client(timeout=httpx.Timeout(5.0, read=60.0))
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        if not self.opened.wait(15):
            raise RuntimeError(f"stream {url} did not open")

    def _run(self) -> None:
        try:
            with self.client.stream("GET", self.url, headers=self.headers, params=self.params) as response:
                self.status = response.status_code
                self.content_type = response.headers.get("content-type", "")
                self.headers_received = {k.lower(): v for k, v in response.headers.items()}
                if response.status_code != 200:
                    self.body = response.read()
                    self.opened.set()
                    return
                self.opened.set()
                block: dict[str, str] = {}
                for line in response.iter_lines():
                    if line == "":
                        if "data" in block:
                            self.events.put({"id": int(block["id"]), "event": block["event"],
                                             "data": json.loads(block["data"])})
                        block = {}
                    elif line.startswith(":"):
                        self.comments.append(line)
                    else:
                        key, _, value = line.partition(":")
                        value = value[1:] if value.startswith(" ") else value
                        if key == "retry":
                            self.retry = int(value)
                        else:
                            block[key] = value
        except (httpx.HTTPError, RuntimeError):
            self.opened.set()

    def take(self, n: int, timeout: float = 10.0) -> list[dict[str, Any]]:
        """The next ``n`` events, waiting at most ``timeout`` seconds in all."""
        out = []
        deadline = time.monotonic() + timeout
        while len(out) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"got {len(out)} of {n} events: {out}")
            try:
                out.append(self.events.get(timeout=left))
            except queue.Empty:
                continue
        return out

    def take_until(self, event: str, timeout: float = 10.0) -> list[dict[str, Any]]:
        """Events up to and including the first of type ``event``."""
        out: list[dict[str, Any]] = []
        deadline = time.monotonic() + timeout
        while not out or out[-1]["event"] != event:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {event!r} within {timeout}s: {out}")
            try:
                out.append(self.events.get(timeout=left))
            except queue.Empty:
                continue
        return out

    def pending(self, wait: float = 0.3) -> list[dict[str, Any]]:
        time.sleep(wait)
        out = []
        while not self.events.empty():
            out.append(self.events.get_nowait())
        return out

    def close(self) -> None:
        self.client.close()
