"""AG-UI's routes (docs/ag-ui.md): thin views over ``doors.agui.runs``.

``POST /agui/<agent>/`` and ``POST /agui/<agent>/connect`` take a
``RunAgentInput`` (camelCase, validated with the ``ag-ui-protocol``
package's model) and answer ``text/event-stream``, each event encoded by that
package's ``EventEncoder``. A body that is not a ``RunAgentInput`` is the
JSON error of docs/http-api.md before any stream starts (400), as is an
unknown agent (404); what a valid request asks that cannot be done is a ``RUN_ERROR`` in
the stream, the protocol's own way. ``GET /agui/<agent>/info`` gives the
agent's capabilities. The first agent of the file is also at ``/agui/``.

The session is the ``Stalwart-Session`` header, as on every route (an
AG-UI client sends it with ``HttpAgent``'s ``headers``; a request without
one is handed a new session in the answer's header); signed context comes
from ``Stalwart-Context``. The client's ``context`` entries (``description``
-> ``value``) count as unsigned context only where no context secret is set,
as a body ``context`` on the messages route; with one set they are left out
(an AG-UI client sends its page's context with every run, so refusing them
would refuse every run). Client ``tools`` are never offered or called: the
agent's catalogue is the only one.

The stream is written whole once the engine has answered: the engine's doors
are synchronous, and Django serves a synchronous iterator under ASGI by
reading it to its end before sending, so a generator would send nothing
sooner.
"""

from __future__ import annotations

import logging
from typing import Any

from ag_ui.core import AgentCapabilities, RunAgentInput
from ag_ui.core.capabilities import (
    HumanInTheLoopCapabilities,
    IdentityCapabilities,
    StateCapabilities,
    ToolsCapabilities,
    TransportCapabilities,
)
from django.conf import settings
from django.http import HttpResponse
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema
from pydantic import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from catalogue import registry
from doors.agui import events as ev
from doors.agui import requests, runs
from doors.common import DETAIL_THREAD_ID, MAX_LANGUAGE, SessionApi, agent_or_404, no_nul
from threads.errors import BadRequest
from threads.selectors import THREAD_ID_RE, context_of, session_hash

log = logging.getLogger("stalwart.agui")

DETAIL_NOT_INPUT = _("The body is not an AG-UI RunAgentInput: {reason}")
DETAIL_NOT_OBJECT = _("a JSON object is expected")
DETAIL_ID_LENGTH = _("{field}: an id is 1 to {most} characters.")
DETAIL_LANGUAGE = _("forwardedProps.language: a language is {most} characters at most (such as pt-BR).")
MAX_ID = 255  # a turn's message id is its key in the replay journal (a column of 255)


def _input(request: Request) -> RunAgentInput:
    body = request.data
    if not isinstance(body, dict):
        raise BadRequest(DETAIL_NOT_INPUT.format(reason=DETAIL_NOT_OBJECT))
    try:
        data = RunAgentInput.model_validate(body)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "body"
        raise BadRequest(DETAIL_NOT_INPUT.format(reason=f"{where}: {first.get('msg', '')}")) from exc
    if not THREAD_ID_RE.match(data.thread_id):
        raise BadRequest(DETAIL_THREAD_ID)
    ids = [("runId", data.run_id)] + [(f"messages.{n}.id", m.id) for n, m in enumerate(data.messages)]
    for field, given in ids:
        if not 1 <= len(given) <= MAX_ID:  # kept whole or refused, never cut
            raise BadRequest(DETAIL_ID_LENGTH.format(field=field, most=MAX_ID))
    props = data.forwarded_props if isinstance(data.forwarded_props, dict) else {}
    if isinstance(props.get("language"), str) and len(props["language"]) > MAX_LANGUAGE:
        raise BadRequest(DETAIL_LANGUAGE.format(most=MAX_LANGUAGE))
    # A NUL cannot be stored (PostgreSQL keeps it in no text or JSON column): refused before anything is,
    # wherever it is (ids, context, resume, forwarded props), but in what a person wrote (read as a space).
    said = [{k: v for k, v in m.items() if k != "content"} if isinstance(m, dict) else m
            for m in body.get("messages") or []]
    try:
        no_nul({**body, "messages": said})
    except Exception as exc:
        raise BadRequest(str(exc.args[0] if exc.args else exc)) from exc
    return data


class _AguiApi(SessionApi):
    """An AG-UI route: JSON errors whatever the client accepts (an AG-UI
    client asks for ``text/event-stream``), the stream itself as text."""

    def perform_content_negotiation(self, request: Request, force: bool = False) -> Any:
        return super().perform_content_negotiation(request, force=True)

    def request_of(self, request: Request, agent: str | None) -> runs.Request:
        spec = agent_or_404(agent)
        data = _input(request)
        given = {c.description: c.value for c in (data.context or [])}
        if settings.STALWART_CONTEXT_SECRET:
            if given:
                log.info("AG-UI context entries left out (context comes from the signed header): %s", sorted(given))
            given = {}
        context, privileges = context_of(request._request, given or None)
        props = data.forwarded_props if isinstance(data.forwarded_props, dict) else {}
        language = props.get("language") if isinstance(props.get("language"), str) else None
        return runs.Request(data=data, session_hash=session_hash(self.session), agent=spec.name, context=context,
                            privileges=privileges, language=language or None)

    @staticmethod
    def stream(events: list[Any]) -> HttpResponse:
        response = HttpResponse(ev.encode(events), content_type="text/event-stream; charset=utf-8")
        response["X-Accel-Buffering"] = "no"
        return response


class AguiRunApi(_AguiApi):
    """``POST /agui/<agent>/``: a turn, a resume, or the thread as it stands, as AG-UI events."""

    @extend_schema(exclude=True)  # AG-UI's own protocol, documented by it (and docs/ag-ui.md), not OpenAPI
    def post(self, request: Request, agent: str | None = None) -> HttpResponse:
        return self.stream(requests.run_request(self.request_of(request, agent)))


class AguiConnectApi(_AguiApi):
    """``POST /agui/<agent>/connect``: the thread's state and messages, and the pauses still open."""

    @extend_schema(exclude=True)
    def post(self, request: Request, agent: str | None = None) -> HttpResponse:
        return self.stream(requests.connect(self.request_of(request, agent)))


class AguiInfoApi(SessionApi):
    """``GET /agui/<agent>/info``: what the agent can do, as AG-UI capabilities."""

    @extend_schema(exclude=True)
    def get(self, request: Request, agent: str | None = None) -> Response:
        spec = agent_or_404(agent)
        withdrawn = registry.withdrawn_tools(spec)
        capabilities = AgentCapabilities(
            identity=IdentityCapabilities(name=spec.name, type="stalwart", description=spec.purpose or None),
            transport=TransportCapabilities(streaming=True),
            tools=ToolsCapabilities(supported=True, client_provided=False,
                                    items=[{"name": t.name, "description": t.description or t.words,
                                            "parameters": runs.shown_schema(t)}
                                           for t in spec.tools if t.name not in withdrawn]),
            state=StateCapabilities(snapshots=True),
            human_in_the_loop=HumanInTheLoopCapabilities(supported=True, approvals=True, interrupts=True,
                                                         approve_with_edits=True),
        )
        return Response(capabilities.model_dump(mode="json", by_alias=True, exclude_none=True))
