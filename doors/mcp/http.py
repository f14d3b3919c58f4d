"""The gateway over streamable HTTP: ``/mcp/<agent>/`` (the file's first
agent also at ``/mcp/``), mounted in the ASGI application in front of Django
(``stalwart_site.routing``).

What the SDK sends goes through ``doors.mcp.wire``: its refusals that are
not JSON become JSON-RPC errors, and a call's outcome is marked delivered
(``calls.delivered``) only once the response carrying its result was sent
while its client was still connected, on the call's POST or on the GET that
resumed its stream: a client that died with its call held never saw the
result, and the same call from it later gets it instead of a second pause.
2025-11-25 streams are resumable (``doors.mcp.events``): each POST's stream
begins with a priming event and ``retry``, and ``GET`` with
``Last-Event-ID`` picks a dropped one up, on the same worker.

Who may call: a request carries ``Authorization: Bearer <key>``, a key an
operator made in the console (``doors.mcp.clients``), checked on every
request; a wrong or revoked key is 401 and nothing of the request is read.
With no key in force, the endpoint answers loopback clients only (and
``stalwart serve`` says so at start), as ``local``.

Each agent has its MCP server and its SDK session manager
(``StreamableHTTPSessionManager``, which serves both protocol eras). daphne
sends no ASGI lifespan events, so a manager is entered (``run()``, its task
group and the server's lifespan) on its agent's first request, in a task of
the serving event loop, with the agent's watcher of withdrawn tools beside
it; both live as long as the process.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from django.conf import settings
from django.utils.translation import gettext_lazy as _
from mcp.server.transport_security import TransportSecuritySettings

from doors.mcp import wire
from doors.mcp.events import Events, Manager
from doors.mcp.server import Gateway, db

log = logging.getLogger("stalwart.mcp")
security = logging.getLogger("stalwart.security")

LOOPBACK = {"127.0.0.1", "::1", "localhost"}
DETAIL_KEY = _("This MCP endpoint takes calls with Authorization: Bearer <key>, a key an operator made in the "
               "console (MCP clients).")
DETAIL_LOOPBACK = _("No MCP client key is set up on this server, so it answers calls from this machine only. "
                    "An operator makes keys in the console (MCP clients).")
DETAIL_NO_AGENT = _("No agent of this server has that name.")


def mcp_mode() -> str:
    """What ``stalwart serve`` says at start about who may call ``/mcp/``."""
    from doors.mcp.models import McpClient

    keys = McpClient.objects.filter(revoked_at__isnull=True).count()
    if keys:
        return f"MCP: /mcp/ takes calls with a client key ({keys} in force)."
    return ("MCP: no client key is set up, so /mcp/ answers this machine (loopback) only; "
            "an operator makes keys in the console (MCP clients).")


def _agent_names() -> list[str]:
    from catalogue import registry

    return [a.name for a in registry.agent_file().agents]


def _caller_check(headers: dict[str, str], client_host: str) -> tuple[Any, str | None]:
    """The key's client (None: local), or the sentence that refuses the request."""
    from doors.mcp.clients import mcp_client_of, mcp_clients_configured

    scheme, _, key = headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and key.strip():
        client = mcp_client_of(key.strip())
        return (client, None) if client is not None else (None, str(DETAIL_KEY))
    if mcp_clients_configured():
        security.warning("an MCP call without a key from %s", client_host)
        return None, str(DETAIL_KEY)
    if client_host not in LOOPBACK:
        security.warning("an MCP call from %s, not this machine, and no key is set up", client_host)
        return None, str(DETAIL_LOOPBACK)
    return None, None


async def _json(send: Any, status: int, body: dict[str, Any], headers: list[tuple[bytes, bytes]] = ()) -> None:
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"cache-control", b"no-store"), *headers]})
    await send({"type": "http.response.body", "body": json.dumps(body).encode()})


class _Mounted:
    """One agent's gateway and its session manager, started on first use."""

    def __init__(self, agent: str) -> None:
        self.gateway = Gateway(agent)
        hosts = [h for host in settings.ALLOWED_HOSTS if host != "*" for h in (host, f"{host}:*")]
        self.events = Events()  # 2025-11-25 streams, resumable on this worker (doors.mcp.events)
        self.deliveries = wire.Deliveries()
        self.manager = Manager(
            events=self.events, app=self.gateway.server,
            security_settings=TransportSecuritySettings(
                enable_dns_rebinding_protection="*" not in settings.ALLOWED_HOSTS, allowed_hosts=hosts,
                allowed_origins=[*(f"{s}://{h}" for s in ("http", "https") for h in hosts),
                                 *settings.CORS_ALLOWED_ORIGINS]),
            max_request_body_size=settings.STALWART_MAX_BODY)
        self.ready: asyncio.Event | None = None
        self.tasks: list[asyncio.Task[None]] = []

    async def started(self) -> None:
        if self.ready is None:
            self.ready = asyncio.Event()
            ready = self.ready

            async def run() -> None:
                async with self.manager.run():
                    ready.set()
                    await asyncio.Event().wait()  # for the life of the process

            self.tasks = [asyncio.ensure_future(run()), asyncio.ensure_future(self.gateway.watch())]
        await self.ready.wait()


class McpApp:
    """ASGI: ``/mcp/`` and ``/mcp/<agent>/`` (the route gives ``agent``)."""

    def __init__(self) -> None:
        self.mounted: dict[str, _Mounted] = {}

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        names = await db(_agent_names)()
        name = scope.get("url_route", {}).get("kwargs", {}).get("agent") or names[0]
        if name not in names:
            await _json(send, 404, {"error": "not_found", "detail": str(DETAIL_NO_AGENT)})
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        client, refused = await db(_caller_check)(headers, (scope.get("client") or ("", 0))[0])
        if refused is not None:
            await _json(send, 401, {"error": "unauthorized", "detail": refused},
                        [(b"www-authenticate", b'Bearer realm="stalwart-mcp"')])
            return
        mounted = self.mounted.get(name)
        if mounted is None:
            mounted = self.mounted[name] = _Mounted(name)
        await mounted.started()
        await wire.serve(mounted.manager, mounted.deliveries, {**scope, "stalwart_mcp_client": client}, receive, send)


mcp_app = McpApp()
