"""A real local HTTP server that speaks OpenAI chat completions, for tests.

``FakeChatServer`` listens on 127.0.0.1 on a free port, in a thread, and
answers ``POST .../chat/completions`` with canned replies, one per request in
order. Every request is recorded (path, headers, body) in ``.requests``::

    with FakeChatServer([tool_calls_reply(("get_order", {"order_id": "4411"}))]) as server:
        config = ModelConfig(base_url=server.url, model="fake")
        ...
        assert server.requests[0].json["model"] == "fake"

A canned reply is a ``Reply`` (status, body, delay), a mapping (served as a
JSON body with status 200) or a callable taking the ``RecordedRequest`` and
returning either. ``mode="sleep"`` makes every request wait ``sleep_seconds``
before answering (past a client's timeout); ``mode="garbage"`` answers every
request with a body that is not JSON. A request with no canned reply left gets
a 503 saying so, so a test that asks more than it planned fails loudly.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Literal

Mode = Literal["canned", "sleep", "garbage"]

GARBAGE_BODY = b"<html><body>502 Bad Gateway, or something that is not JSON</body></html>"


@dataclass(frozen=True)
class Reply:
    """One canned answer. ``delay`` seconds pass before it is sent."""

    status: int = 200
    body: bytes | Mapping[str, Any] = b""
    delay: float = 0.0
    content_type: str = "application/json"

    def encoded(self) -> bytes:
        if isinstance(self.body, bytes):
            return self.body
        return json.dumps(self.body).encode("utf-8")


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: Mapping[str, str]  # names in lower case
    body: bytes
    json: Any = field(default=None)  # the parsed body, or None when it was not JSON


Canned = Reply | Mapping[str, Any] | Callable[[RecordedRequest], "Reply | Mapping[str, Any]"]


# --- builders for chat-completion bodies --------------------------------------


def completion(message: Mapping[str, Any], finish_reason: str = "stop") -> dict[str, Any]:
    """A full chat-completion body around one assistant ``message``."""
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": "fake",
        "choices": [{"index": 0, "message": dict(message), "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def text_reply(text: str) -> dict[str, Any]:
    """The model answers in plain words and calls nothing."""
    return completion({"role": "assistant", "content": text})


def tool_calls_reply(*calls: tuple[str, Any], content: str | None = None) -> dict[str, Any]:
    """The model calls tools: ``(name, arguments)`` pairs.

    Arguments that are not a string are JSON-encoded, as OpenAI sends them; a
    string is sent as it is, so a test can send malformed arguments.
    """
    tool_calls = [
        {
            "id": f"call_{n}",
            "type": "function",
            "function": {
                "name": name,
                "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments),
            },
        }
        for n, (name, arguments) in enumerate(calls, start=1)
    ]
    return completion(
        {"role": "assistant", "content": content, "tool_calls": tool_calls},
        finish_reason="tool_calls",
    )


def clarify_reply(question: Mapping[str, Any]) -> dict[str, Any]:
    """The model calls the built-in ``clarify`` tool with a question."""
    return tool_calls_reply(("clarify", dict(question)))


def error_reply(status: int, message: str = "fake failure") -> Reply:
    """An HTTP error in the OpenAI error shape."""
    return Reply(status=status, body={"error": {"message": message, "type": "fake"}})


# --- the server ---------------------------------------------------------------


class FakeChatServer:
    def __init__(
        self,
        responses: Sequence[Canned] = (),
        *,
        mode: Mode = "canned",
        sleep_seconds: float = 5.0,
    ) -> None:
        self.mode = mode
        self.sleep_seconds = sleep_seconds
        self.requests: list[RecordedRequest] = []
        self._responses = list(responses)
        self._lock = threading.Lock()
        # Set on close, so a handler sleeping past a client's timeout wakes
        # up and the test does not wait for it.
        self._closing = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # Life cycle.

    def start(self) -> FakeChatServer:
        server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        # Daemon handler threads: a handler still sleeping never holds up close().
        server.daemon_threads = True
        self._server = server
        # A short poll keeps close() quick: shutdown() waits for the next poll.
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def close(self) -> None:
        self._closing.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None
        self._thread = None

    def __enter__(self) -> FakeChatServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def url(self) -> str:
        """The base URL to configure (OpenAI style, ending in ``/v1``)."""
        if self._server is None:
            raise RuntimeError("Start the FakeChatServer (or use it in a with block) before .url.")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def add(self, *responses: Canned) -> None:
        """Queue more canned replies while the server runs."""
        with self._lock:
            self._responses.extend(responses)

    # Answering.

    def _next_reply(self, request: RecordedRequest) -> Reply:
        if self.mode == "garbage":
            return Reply(status=200, body=GARBAGE_BODY)
        with self._lock:
            canned = self._responses.pop(0) if self._responses else None
        if canned is None:
            reply = Reply(
                status=503,
                body={"error": {"message": "FakeChatServer has no canned response left."}},
            )
        else:
            made = canned(request) if callable(canned) else canned
            reply = made if isinstance(made, Reply) else Reply(body=made)
        if self.mode == "sleep":
            reply = Reply(reply.status, reply.body, max(reply.delay, self.sleep_seconds))
        return reply

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # the name http.server calls
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                try:
                    parsed = json.loads(body) if body else None
                except ValueError:
                    parsed = None
                request = RecordedRequest(
                    method="POST",
                    path=self.path,
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=body,
                    json=parsed,
                )
                with fake._lock:
                    fake.requests.append(request)
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(Reply(status=404, body={"error": {"message": "not found"}}))
                    return
                reply = fake._next_reply(request)
                if reply.delay and fake._closing.wait(reply.delay):
                    return
                self._send(reply)

            def _send(self, reply: Reply) -> None:
                data = reply.encoded()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", reply.content_type)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    # The client gave up (its timeout); nothing to tell it.
                    pass

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                # Quiet: tests read .requests, not stderr.
                pass

        return Handler
