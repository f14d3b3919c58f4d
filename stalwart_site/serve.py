"""``make_app``: the ASGI application ``stalwart serve`` runs, for mounting in
a team's own server (docs/getting-started.md, "Mounting: make_app")."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any


def make_app(
    agent_file: str | Path,
    on_interrupt: Sequence[Callable[[str, dict[str, Any]], Any]] | None = None,
    secret: str | None = None,
    *,
    agent: str | None = None,
    migrate: bool = True,
    worker: bool = True,
) -> Any:
    """Set Django up for ``agent_file`` and return the ASGI application.

    ``on_interrupt`` callables are told of each new pause as
    ``(thread, interrupt)``, after commit, from the durable outbox
    (``approvals.outbox``), as is ``STALWART_WEBHOOK_URL``'s webhook; with
    ``secret`` set, ``POST /threads/{id}/resume``
    must carry a valid ``Stalwart-Signature`` over its body.

    It starts this process's worker (``stalwart_site.worker``: heartbeat,
    the sweep that finds dead workers' calls and overdue pauses, the outbox
    drain, the event publisher), so a team mounting it in its own server
    gets the same recovery as ``stalwart serve``; ``worker=False`` leaves
    that to the caller (``stalwart_site.worker.start()``).
    """
    from catalogue.agentfile import load_agent_file
    from stalwart_site.bootstrap import setup

    path = load_agent_file(agent_file).path  # refuses an invalid file before anything is served
    setup(agent_file=path, agent=agent, resume_secret=secret, migrate=migrate)
    from django.conf import settings

    from approvals.notify import set_listeners
    from approvals.webhooks import Webhook

    listeners = list(on_interrupt or [])
    if settings.STALWART_WEBHOOK_URL:
        listeners.append(Webhook(settings.STALWART_WEBHOOK_URL, settings.STALWART_WEBHOOK_SECRET, timeout=10.0))
    set_listeners(listeners)
    if worker:
        from stalwart_site.worker import start

        start()
    from stalwart_site.asgi import application

    return application
