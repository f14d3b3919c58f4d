"""``make_app(graph)``: the ASGI application of the LangGraph bridge (SPEC §16).

Four routes of its own, in front of the rest of ``stalwart serve``'s
application (the console at ``/admin/``, over the same run store):

| route | does |
|---|---|
| ``GET /threads/{id}/interrupts`` | the graph thread's pending interrupts, mirrored, as pauses |
| ``POST /threads/{id}/resume`` | ``{"interrupt_id", "decision", "token", "answer"?}``, as Stalwart's own |
| ``POST /threads/{id}/runs`` | ``{"input", "config"?}``: runs the graph, answers what waits |
| ``POST /threads/{id}/sync`` | mirrors what a graph run elsewhere waits on |

``{id}`` is the graph's ``thread_id``. Errors are SPEC §10's ``{"error",
"detail"}``; a graph that fails is ``502 graph_failed``. The Django work of
each request runs in Django's one request thread (``sync_to_async``), as
Stalwart's own views do.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from typing import Any

log = logging.getLogger("stalwart.langgraph")


def make_app(graph: Any, *, on_interrupt: Sequence[Callable[[str, dict[str, Any]], Any]] = (),
             secret: str | None = None, name: str | None = None, agent_file: str | None = None,
             deadlines: dict[str, float] | None = None, escalate_after: dict[str, float] | None = None,
             poll: float = 5.0, migrate: bool = True, worker: bool = True) -> Any:
    """The bridge over ``graph`` (compiled, with its checkpointer) as an ASGI application.

    ``on_interrupt`` callables (and ``STALWART_WEBHOOK_URL``'s ``Webhook``)
    are told of each new mirrored pause; with ``secret`` set, a resume must
    carry a valid ``Stalwart-Signature`` over its body (else ``401
    signature_invalid``). ``name``: the graph's name in the console (default
    the graph's own). ``agent_file``: the agent file the rest of the
    application serves, if any. Rows a dead worker left between a claim and
    the graph's resume are reconciled before it serves. ``deadlines`` and
    ``escalate_after`` (seconds per kind, ``confirm`` or ``ask``) as an agent
    file's: a mirrored pause past its deadline closes as ``timed_out`` and its
    graph is handed back a rejection (a question: ``None``). ``poll``: every
    so many seconds, mirrors answered where this bridge does not run (the
    console of another process) are carried on here (0: only at start).
    """
    from stalwart_site.bootstrap import setup

    setup(agent_file=agent_file, resume_secret=secret, migrate=migrate)
    from django.conf import settings

    from approvals.notify import set_listeners
    from approvals.webhooks import Webhook
    from doors.langgraph.bridge import Bridge

    bridge = Bridge(graph, name=name, deadlines=deadlines, escalate_after=escalate_after, retry_base=1.0)
    listeners = list(on_interrupt or [])
    if settings.STALWART_WEBHOOK_URL:
        listeners.append(Webhook(settings.STALWART_WEBHOOK_URL, settings.STALWART_WEBHOOK_SECRET, timeout=10.0))
    listeners.append(bridge)  # a pause past its deadline (a question's is 600 s by default) lets its graph carry on
    set_listeners(listeners)
    bridge.reconcile()
    if worker:
        from stalwart_site.worker import start

        start()
        if poll > 0:
            bridge.poll_start(poll)
    from stalwart_site.asgi import application

    return _routes(bridge, application, secret=secret)


def _routes(bridge: Any, rest: Any, *, secret: str | None) -> Any:
    from asgiref.sync import sync_to_async
    from django.conf import settings
    from django.db import close_old_connections
    from django.utils.translation import gettext
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    from approvals.errors import SignatureInvalid
    from approvals.webhooks import verify
    from threads.errors import BadRequest, StalwartError, TooLarge
    from threads.models import Interrupt

    def django_work(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        close_old_connections()
        try:
            return fn(*args, **kwargs)
        finally:
            close_old_connections()

    async def body_of(request: Request) -> tuple[bytes, Any]:
        raw = await request.body()
        if len(raw) > settings.STALWART_MAX_BODY:
            raise TooLarge(str(gettext("The body is larger than this server takes.")))
        try:
            return raw, json.loads(raw or b"{}")
        except ValueError as exc:
            raise BadRequest(str(gettext("The body is not JSON."))) from exc

    def handled(view: Callable[[Request], Any]) -> Callable[[Request], Any]:
        async def run(request: Request) -> JSONResponse:
            try:
                return JSONResponse(await view(request))
            except StalwartError as err:
                return JSONResponse(err.body(), status_code=err.http_status, headers=err.headers or None)
        return run

    @handled
    async def interrupts(request: Request) -> Any:
        return await sync_to_async(django_work, thread_sensitive=True)(bridge.sync, request.path_params["thread"])

    @handled
    async def sync(request: Request) -> Any:
        await body_of(request)
        return await sync_to_async(django_work, thread_sensitive=True)(bridge.sync, request.path_params["thread"])

    @handled
    async def runs(request: Request) -> Any:
        _, body = await body_of(request)
        return await sync_to_async(django_work, thread_sensitive=True)(bridge.run, request.path_params["thread"],
                                                                       body)

    @handled
    async def resume(request: Request) -> Any:
        raw, body = await body_of(request)
        if secret and not verify(dict(request.headers), raw, secret):
            logging.getLogger("stalwart.security").warning("a LangGraph resume without a valid signature")
            raise SignatureInvalid(str(gettext("This server takes answers only with a valid Stalwart-Signature.")))
        via = Interrupt.Via.SIGNED_CHANNEL if secret else Interrupt.Via.LANGGRAPH
        by = "signed channel" if secret else "langgraph bridge"
        return await sync_to_async(django_work, thread_sensitive=True)(
            bridge.resume, request.path_params["thread"], body, by=by, via=via)

    app = Starlette(routes=[
        Route("/threads/{thread:str}/interrupts", interrupts, methods=["GET"]),
        Route("/threads/{thread:str}/resume", resume, methods=["POST"]),
        Route("/threads/{thread:str}/runs", runs, methods=["POST"]),
        Route("/threads/{thread:str}/sync", sync, methods=["POST"]),
    ])
    own = ("/interrupts", "/resume", "/runs", "/sync")

    async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
        """The bridge's four routes; everything else (the console, its assets) to Stalwart's application."""
        path = scope.get("path", "")
        if scope["type"] == "http" and path.startswith("/threads/") and path.endswith(own) and path.count("/") == 3:
            await app(scope, receive, send)
        elif scope["type"] == "lifespan":
            await app(scope, receive, send)
        else:
            await rest(scope, receive, send)

    application.bridge = bridge  # type: ignore[attr-defined]
    return application

