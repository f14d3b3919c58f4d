"""``make_app``: the ASGI application ``stalwart serve`` runs, for mounting in
a team's own server (SPEC §11)."""

from __future__ import annotations

import os
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
) -> Any:
    """Set Django up for ``agent_file`` and return the ASGI application.

    ``on_interrupt`` callables are told of each new pause as
    ``(thread, interrupt)``; with ``secret`` set, ``POST /threads/{id}/resume``
    must carry a valid ``Stalwart-Signature`` over its body.
    """
    from catalogue.agentfile import load_agent_file

    path = load_agent_file(agent_file).path  # refuses an invalid file before anything is served
    os.environ["STALWART_AGENT_FILE"] = str(path)
    if agent:
        os.environ["STALWART_AGENT"] = agent
    if secret:
        os.environ["STALWART_RESUME_SECRET"] = secret
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "stalwart_site.settings")
    import django

    django.setup()
    from django.conf import settings

    settings.AGENT_FILE = str(path)
    if secret:
        settings.STALWART_RESUME_SECRET = secret
    if migrate:
        from django.core.management import call_command

        call_command("migrate", interactive=False, verbosity=0)
    from approvals.notify import set_listeners

    set_listeners(list(on_interrupt or []))
    from stalwart_site.asgi import application

    return application
