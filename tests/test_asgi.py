"""``stalwart_site.asgi.OneHopHandler``: what it overrides in Django's ASGI
handler, pinned per supported Django version, and what it buys (one hop to
the request's thread for the whole middleware chain and view)."""

from __future__ import annotations

import asyncio
import hashlib
import inspect

import django
import pytest
from asgiref import sync
from channels.testing import ApplicationCommunicator
from django.core.handlers.asgi import ASGIHandler
from django.core.handlers.base import BaseHandler

# The Django code OneHopHandler replaces or relies on, as it reads in each
# version it was checked against. A new Django changes a hash: read the new
# code, check OneHopHandler still does the same (the chain built sync, entered
# once from get_response_async), then add the version's hashes here.
PINNED = {
    (5, 2): {"BaseHandler.load_middleware": "a1fb7ee5f8586195", "BaseHandler.get_response_async": "ad82c920df0cebbb",
             "BaseHandler.get_response": "3d6a79b124c2cccb", "ASGIHandler.handle": "98faeb5bef800331"},
    # 6.1: load_middleware's docstring rewrapped; handle closes the body in a
    # TaskGroup and still enters get_response_async once, through run_get_response.
    (6, 1): {"BaseHandler.load_middleware": "b75c13d1041e06d9", "BaseHandler.get_response_async": "ad82c920df0cebbb",
             "BaseHandler.get_response": "3d6a79b124c2cccb", "ASGIHandler.handle": "c91f27c7fcdc3fff"},
}
PINNED_FUNCTIONS = (BaseHandler.load_middleware, BaseHandler.get_response_async, BaseHandler.get_response,
                    ASGIHandler.handle)


def test_the_django_code_it_overrides_is_the_code_it_was_written_against():
    version = django.VERSION[:2]
    assert version in PINNED, f"Django {django.get_version()}: check OneHopHandler against it, then pin it"
    found = {f.__qualname__: hashlib.sha256(inspect.getsource(f).encode()).hexdigest()[:16]
             for f in PINNED_FUNCTIONS}
    assert found == PINNED[version]


@pytest.mark.django_db
def test_a_request_crosses_to_its_thread_once(monkeypatch):
    from stalwart_site.asgi import django_app

    hops: list[str] = []
    real = sync.SyncToAsync.__call__

    async def counted(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        hops.append(getattr(self.func, "__qualname__", repr(self.func)))
        return await real(self, *args, **kwargs)

    monkeypatch.setattr(sync.SyncToAsync, "__call__", counted)

    async def get() -> int:
        app = ApplicationCommunicator(django_app, {
            "type": "http", "method": "GET", "path": "/healthz", "query_string": b"", "root_path": "",
            "headers": [(b"host", b"testserver")], "scheme": "http", "server": ("testserver", 80),
            "client": ("127.0.0.1", 5000)})
        await app.send_input({"type": "http.request", "body": b""})
        start = await app.receive_output(timeout=10)
        await app.receive_output(timeout=10)
        return int(start["status"])

    assert asyncio.run(get()) == 200
    # The request_started signal, the whole chain and view (one hop), and closing the response.
    chain = [h for h in hops if "get_response" in h]
    assert chain == ["BaseHandler.get_response"], hops
    assert len(hops) <= 3, hops
