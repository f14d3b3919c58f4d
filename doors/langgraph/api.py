"""The Agent Server API's routes (docs/langgraph.md, "The Agent Server API"): thin views over
``doors.langgraph.server``, in the API's paths, for ``langgraph-sdk`` and Agent Inbox. Who may
call is ``doors.langgraph.callers``'s, as on every route of the door. Errors are the
``{"error", "detail"}`` of docs/http-api.md (``detail`` is what the SDKs show).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from django.http import StreamingHttpResponse
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from doors.common import no_nul
from doors.langgraph import server
from doors.langgraph.bridge import GraphFailed
from doors.langgraph.requests import body_object, no_internal_config
from doors.langgraph.views import LangGraphApi
from threads.errors import BadRequest


class AgentServerApi(LangGraphApi):
    """What the API's routes share: a body read strictly, and who answered (``by``)."""

    signed = False  # reads; the routes that run or resume the graph are signed when a secret is set

    def body(self, request: Request) -> Mapping[str, Any]:
        body = body_object(request.data)
        no_internal_config(body)
        try:
            no_nul(dict(body))
        except serializers.ValidationError as exc:
            raise BadRequest(str(exc.detail[0])) from exc
        return body

    def carry(self, body: Mapping[str, Any], thread: str) -> server.RunDone:
        """The run ``body`` asks for, carried out; a graph that failed is kept as an error run (the 502)."""
        try:
            done = server.run_carry(self.bridge, thread, body, by=self.caller.by, via=self.caller.via,
                                    may_run="run" in self.caller.privileges,
                                    may_answer="answer" in self.caller.privileges)
        except GraphFailed as failed:
            server.run_failed(self.bridge, thread, body, self.caller.by, failed)
            raise
        return done


class InfoApi(AgentServerApi):
    """``GET /info``: what this server is, as the SDKs and Agent Inbox ask it (what it does not serve is off)."""

    def get(self, request: Request) -> Response:
        return Response({"version": server.VERSION, "flags": {"assistants": True, "crons": False,
                                                              "langsmith": False}})


class AssistantSearchApi(AgentServerApi):
    def post(self, request: Request) -> Response:
        return Response(server.assistants_search(self.bridge, self.body(request)))


class AssistantApi(AgentServerApi):
    def get(self, request: Request, assistant: str) -> Response:
        server.assistant_check(self.bridge, assistant)
        return Response(server.assistant_json(self.bridge))


class ThreadCreateApi(AgentServerApi):
    def post(self, request: Request) -> Response:
        return Response(server.thread_create(self.bridge, self.body(request)))


class ThreadApi(AgentServerApi):
    def get(self, request: Request, thread: str) -> Response:
        return Response(server.thread_json(self.bridge, server.thread_of(self.bridge, thread)))


class ThreadSearchApi(AgentServerApi):
    def post(self, request: Request) -> Response:
        return Response(server.threads_search(self.bridge, self.body(request)))


class ThreadStateApi(AgentServerApi):
    def get(self, request: Request, thread: str) -> Response:
        return Response(server.thread_state(self.bridge, thread))


class ThreadHistoryApi(AgentServerApi):
    def get(self, request: Request, thread: str) -> Response:
        return Response(server.thread_history(self.bridge, thread, {"limit": _query_limit(request)}))

    def post(self, request: Request, thread: str) -> Response:
        return Response(server.thread_history(self.bridge, thread, self.body(request)))


class RunCreateApi(AgentServerApi):
    """``POST /threads/{id}/runs``: the run, carried out before the answer; the answer is the run."""

    signed = True

    def post(self, request: Request, thread: str) -> Response:
        return Response(server.run_json(self.carry(self.body(request), thread).run))


class RunWaitApi(AgentServerApi):
    """``POST /threads/{id}/runs/wait``: the thread's values once the run ended."""

    signed = True

    def post(self, request: Request, thread: str) -> Response:
        return Response(self.carry(self.body(request), thread).values)


class RunStreamApi(AgentServerApi):
    """``POST /threads/{id}/runs/stream``: the run's events as server-sent events."""

    signed = True

    def perform_content_negotiation(self, request: Request, force: bool = False) -> Any:
        # The SDKs ask for text/event-stream; an error before the stream starts is still JSON.
        return super().perform_content_negotiation(request, force=True)

    def post(self, request: Request, thread: str) -> Any:
        body = self.body(request)
        modes = server.stream_modes(body.get("stream_mode"))
        done = self.carry(body, thread)
        events = server.stream_events(done, modes)
        response = StreamingHttpResponse(_sse(events), content_type="text/event-stream")
        response["Content-Location"] = f"/threads/{thread}/runs/{done.run.run_id}"
        return response


class RunApi(AgentServerApi):
    def get(self, request: Request, thread: str, run: str) -> Response:
        return Response(server.run_json(server.run_of(self.bridge, thread, run)))


class RunJoinApi(AgentServerApi):
    def get(self, request: Request, thread: str, run: str) -> Response:
        server.run_of(self.bridge, thread, run)  # runs end before they are answered: join reads the thread now
        return Response(server.final_values(self.bridge, thread))


def _sse(events: list[tuple[str, Any]]) -> Iterator[bytes]:
    for event, data in events:
        yield f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False, default=str)}\n\n".encode()


def _query_limit(request: Request) -> int:
    try:
        return int(request.query_params.get("limit", "10"))
    except ValueError as exc:
        raise BadRequest(server.DETAIL_LIMIT) from exc
