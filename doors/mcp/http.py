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
from collections import Counter
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.utils.translation import gettext_lazy as _
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser, authorization_context
from mcp.server.auth.provider import AccessToken
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from doors.mcp import wire
from doors.mcp.events import Events, Manager
from doors.mcp.limits import TEXT_SESSIONS, limit_error
from doors.mcp.server import Gateway, db
from threads.errors import StalwartError, TooManyTries, Unauthorized
from threads.forwarded import Peer, peer_of
from threads.limits import Limit, guess_record, guesses_wait

log = logging.getLogger("stalwart.mcp")
security = logging.getLogger("stalwart.security")

LOOPBACK = {"127.0.0.1", "::1", "localhost"}
DETAIL_KEY = _("This MCP endpoint takes calls with Authorization: Bearer <key>, a key an operator made in the "
               "console (MCP clients).")
DETAIL_LOOPBACK = _("No MCP client key is set up on this server, so it answers calls from this machine only. "
                    "An operator makes keys in the console (MCP clients).")
DETAIL_NO_AGENT = _("No agent of this server has that name.")
KEY_LIMIT = Limit(scope="mcp_key", per_client=10)  # wrong keys a minute from one address


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


def _caller_check(headers: dict[str, str], peer: Peer) -> tuple[Any, StalwartError | None]:
    """The key's client (None: local), or the error that refuses the request."""
    from doors.mcp.clients import mcp_client_of, mcp_clients_configured

    scheme, _, key = headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and key.strip():
        wait = guesses_wait(limit=KEY_LIMIT, client=peer.address)
        if wait:  # refused unread, the right key too: else the limit would only slow a guesser down
            security.warning("MCP calls from %s refused for %s s (too many wrong keys)", peer.address, wait)
            return None, TooManyTries(wait)
        client = mcp_client_of(key.strip())
        if client is None:
            guess_record(limit=KEY_LIMIT, client=peer.address)
            return None, Unauthorized(DETAIL_KEY)
        return client, None
    if mcp_clients_configured():
        security.warning("an MCP call without a key from %s", peer.address)
        return None, Unauthorized(DETAIL_KEY)
    if not peer.loopback:
        security.warning("an MCP call from %s, not this machine (or forwarded), and no key is set up", peer.address)
        return None, Unauthorized(DETAIL_LOOPBACK)
    return None, None


def _scope_peer(scope: dict[str, Any], headers: dict[str, str]) -> Peer:
    return peer_of((scope.get("client") or ("", 0))[0], headers, settings.STALWART_TRUSTED_PROXIES)


def _opens_session(scope: dict[str, Any], headers: dict[str, str]) -> bool:
    """A request that would open a handshake-era session (the 2026 era keeps none)."""
    version = headers.get("mcp-protocol-version")
    return (scope.get("method") == "POST" and not headers.get("mcp-session-id")
            and (version is None or version in HANDSHAKE_PROTOCOL_VERSIONS))


def _owner(identity: str) -> AuthenticatedUser:
    """The SDK's principal for a caller: each session is bound to the key (or address) that opened it."""
    return AuthenticatedUser(AccessToken(token=identity, client_id=identity, scopes=[]))


async def _json(send: Any, status: int, body: dict[str, Any], headers: Sequence[tuple[bytes, bytes]] = ()) -> None:
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
        self.opening: Counter[str] = Counter()  # initialize requests in progress, per caller

    def sessions_of(self, owner: AuthenticatedUser) -> int:
        """The handshake-era sessions open for ``owner`` in this process (the SDK keeps who opened each)."""
        principal = authorization_context(owner)
        return sum(1 for held in self.manager._session_owners.values() if held == principal)  # noqa: SLF001

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
        peer = _scope_peer(scope, headers)
        client, refused = await db(_caller_check)(headers, peer)
        if refused is not None:
            extra = [(k.lower().encode(), v.encode()) for k, v in getattr(refused, "headers", {}).items()]
            if refused.http_status == 401:
                extra.append((b"www-authenticate", b'Bearer realm="stalwart-mcp"'))
            await _json(send, refused.http_status, refused.body(), extra)
            return
        identity = f"key:{client.pk}" if client is not None else f"local:{peer.address}"
        mounted = self.mounted.get(name)
        if mounted is None:
            mounted = self.mounted[name] = _Mounted(name)
        await mounted.started()
        owner = _owner(identity)
        opens = _opens_session(scope, headers)
        if opens:
            # Sessions open, and those being opened now (counted before the SDK registers them, so that
            # many initialize requests at once cannot all pass the count).
            if mounted.sessions_of(owner) + mounted.opening[identity] >= settings.STALWART_MCP_SESSIONS:
                security.warning("an MCP session refused for %s: %s open", identity, settings.STALWART_MCP_SESSIONS)
                await _json(send, 429, limit_error(TEXT_SESSIONS, settings.STALWART_MCP_SESSIONS))
                return
            mounted.opening[identity] += 1
        counted = [opens]  # still counted as being opened

        def opened() -> None:
            if counted[0]:
                counted[0] = False
                mounted.opening[identity] -= 1
                if not mounted.opening[identity]:
                    del mounted.opening[identity]

        async def answering(message: dict[str, Any]) -> None:
            # The SDK registers a new session before it answers: from the answer's start the session counts
            # among the open ones, so it stops counting as being opened (never counted twice).
            if message.get("type") == "http.response.start":
                opened()
            await send(message)

        try:
            await wire.serve(mounted.manager, mounted.deliveries, {
                **scope, "user": owner, "stalwart_mcp_client": client, "stalwart_mcp_caller": identity}, receive,
                answering if opens else send)
        finally:
            opened()


mcp_app = McpApp()
