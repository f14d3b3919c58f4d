"""A real local HTTP receiver for webhook tests: records each POST and answers
with what the test queued (a status, headers, or a hang)."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Receiver:
    def __init__(self, port: int = 0) -> None:
        self.posts: list[tuple[dict[str, str], bytes]] = []
        self.answers: list[tuple[int, dict[str, str], float]] = []  # (status, headers, seconds to hang first)
        self.arrived = threading.Event()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers["Content-Length"]))
                status, headers, hang = receiver.answers.pop(0) if receiver.answers else (204, {}, 0.0)
                if hang:
                    time.sleep(hang)
                receiver.posts.append(({k.lower(): v for k, v in self.headers.items()}, body))
                receiver.arrived.set()
                try:
                    self.send_response(status)
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                except OSError:
                    pass

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"

    def wait(self, n: int = 1, timeout: float = 10.0) -> list[tuple[dict[str, str], bytes]]:
        deadline = time.monotonic() + timeout
        while len(self.posts) < n and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(self.posts) >= n, f"{len(self.posts)} of {n} deliveries within {timeout}s"
        return self.posts

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
