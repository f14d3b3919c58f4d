"""Stalwart with LangGraph (docs/langgraph.md; the extra ``langgraph``).

``make_app(graph, *, on_interrupt=(), secret=None, ...)``: the ASGI
application ``stalwart serve`` runs (Channels and Django; the console at
``/admin/``), serving a team's compiled graph and its checkpointer through
the LangGraph door (``doors.langgraph``): each interrupt mirrored as
Stalwart pauses, the bridge's routes before the HTTP API's
(``stalwart_site.urls_langgraph``), its background work in this process's
``Worker``. ``StalwartMiddleware``: Stalwart's check on every tool call of a
LangChain ``create_agent`` agent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from stalwart_site.agent_middleware import StalwartMiddleware

__all__ = ["StalwartMiddleware", "make_app"]

URLCONF = "stalwart_site.urls_langgraph"


def make_app(graph: Any, *, on_interrupt: Sequence[Callable[[str, dict[str, Any]], Any]] = (),
             secret: str | None = None, name: str | None = None, agent_file: str | None = None,
             deadlines: dict[str, float] | None = None, escalate_after: dict[str, float] | None = None,
             poll: float = 5.0, migrate: bool = True, worker: bool = True, policies: Any = None) -> Any:
    """The bridge over ``graph`` (compiled, with its checkpointer), served.

    ``on_interrupt`` callables (and ``STALWART_WEBHOOK_URL``'s ``Webhook``)
    are told of each new mirrored pause. With ``secret`` set, every route that
    can run or resume the graph (``/runs``, ``/resume``, ``/sync``) needs a
    valid ``Stalwart-Signature`` over its body (else ``401
    signature_invalid``). ``name``: the graph's name in the console (default
    the graph's own). ``agent_file``: the agent file the rest of the
    application serves, if any. ``deadlines`` and ``escalate_after`` (seconds
    per kind, ``confirm`` or ``ask``) as an agent file's: a mirrored pause
    past its deadline closes as ``timed_out`` and its graph is handed back a
    rejection (a question: ``None``). ``poll``: every so many seconds the
    worker carries on here what was answered in a process that does not
    serve this graph, and sends again what a worker that died left half
    done (0: only at start). Before it serves, one such round runs.
    ``worker``: start this process's ``Worker`` (heartbeat, sweep, outbox,
    the bridge's tick). ``policies``: the approval policies the graph's own
    interrupts are put under (docs/langgraph.md, "Policies over a graph's
    interrupts"): a list in an agent file's ``policies:`` form, or the path of
    a YAML file with one under ``policies:``.
    """
    from stalwart_site.bootstrap import setup

    setup(agent_file=agent_file, resume_secret=secret, migrate=migrate)
    from django.conf import settings
    from django.urls import clear_url_caches

    from approvals.notify import set_listeners
    from approvals.webhooks import Webhook
    from doors.langgraph.bridge import Bridge
    from doors.langgraph.bridges import bridge_register, bridge_start

    bridge = bridge_register(Bridge(graph, name=name, deadlines=deadlines, escalate_after=escalate_after,
                                    secret=secret, poll=poll, policies=policies))
    listeners = list(on_interrupt or [])
    if settings.STALWART_WEBHOOK_URL:
        listeners.append(Webhook(settings.STALWART_WEBHOOK_URL, settings.STALWART_WEBHOOK_SECRET, timeout=10.0))
    set_listeners(listeners)
    # The bridge's routes before the HTTP API's: Django reads ROOT_URLCONF at each request.
    settings.ROOT_URLCONF = URLCONF
    clear_url_caches()
    bridge_start(bridge)
    if worker:
        from stalwart_site.worker import start

        start()
    from stalwart_site.asgi import application

    return application


def __getattr__(name: str) -> Any:
    if name == "StalwartMiddleware":  # imported on use: it needs langchain (the extra)
        from stalwart_site.agent_middleware import StalwartMiddleware

        return StalwartMiddleware
    raise AttributeError(name)
