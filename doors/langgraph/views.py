"""The bridge's routes (docs/langgraph.md): thin views over the bridge this
process serves (``bridges.served``).

| route | does |
|---|---|
| ``GET /threads/{id}/interrupts`` | the graph thread's pending interrupts, mirrored, as pauses |
| ``POST /threads/{id}/resume`` | ``{"interrupt_id", "decision", "token", "answer"?}``, as Stalwart's own |
| ``POST /threads/{id}/sync`` | mirrors what a graph run elsewhere waits on |

and the Agent Server API's (``doors.langgraph.api``, ``POST /threads/{id}/runs`` among them).

``{id}`` is the graph's ``thread_id``. Bodies are read by the project's
strict JSON parser; errors are the ``{"error", "detail"}`` of
docs/http-api.md; a graph that fails is ``502 graph_failed``. A ``config``
holding a key that begins with ``__`` is ``400 bad_request`` on every route,
before anything runs. Who may call is ``doors.langgraph.callers``'s: a key,
or this machine with none in force; with a secret set, each route that can
run or resume a graph takes a valid ``Stalwart-Signature`` over its body (or
a key), else ``401 signature_invalid``, and signed answers are recorded as
the signed channel's.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.utils.translation import gettext_lazy as _
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from approvals.errors import SignatureInvalid
from approvals.webhooks import HEADER, verify
from doors.common import ResumeSerializer
from doors.langgraph import answers, bridges
from doors.langgraph.bridge import Bridge
from doors.langgraph.callers import DETAIL_MAY_NOT_ANSWER, SIGNED, KeyMayNot, caller_of
from doors.langgraph.requests import body_object, no_internal_config
from threads.errors import NotFound

security = logging.getLogger("stalwart.security")
DETAIL_SIGNATURE = _("This server takes answers and runs only with a valid Stalwart-Signature.")
DETAIL_NO_GRAPH = _("This server serves no LangGraph graph.")


class LangGraphApi(APIView):
    """What the bridge's routes share: the bridge served and, for a route that
    can run or resume a graph, the signature its secret asks for."""

    signed = True
    # Not in the HTTP API's OpenAPI document: the bridge's routes are the graph's, in
    # docs/langgraph.md (the document describes the routes every Stalwart serves).
    schema = None

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)
        bridge = bridges.served()
        if bridge is None:
            raise NotFound(DETAIL_NO_GRAPH)
        self.bridge: Bridge = bridge
        self.secret = bridge.secret or getattr(settings, "STALWART_RESUME_SECRET", "")
        if self.signed and self.secret:
            # The body is read raw before the parser reads it: the signature covers the bytes sent.
            if verify(request.headers, request.body, self.secret):
                self.caller = SIGNED
                return
            if not request.headers.get("x-api-key"):
                # One generic answer: never say whether the time or the HMAC was wrong.
                security.warning("a LangGraph %s without a valid %s", request.path, HEADER)
                raise SignatureInvalid(DETAIL_SIGNATURE)
        self.caller = caller_of(request)

    def finalize_response(self, request: Request, response: Response, *args: Any, **kwargs: Any) -> Response:
        response = super().finalize_response(request, response, *args, **kwargs)
        response["Cache-Control"] = "no-store"
        return response


class LangGraphInterruptListApi(LangGraphApi):
    """The graph thread's pending interrupts, mirrored as pauses."""

    signed = False  # a read: it mirrors what waits, and runs nothing

    def get(self, request: Request, thread: str) -> Response:
        return Response(self.bridge.sync(thread))


class LangGraphSyncApi(LangGraphApi):
    """Mirror what a graph run elsewhere (over the same checkpointer) waits on."""

    def post(self, request: Request, thread: str) -> Response:
        no_internal_config(body_object(request.data))
        return Response(self.bridge.sync(thread))


class LangGraphResumeApi(LangGraphApi):
    """Answer one mirrored pause; the graph resumes once nothing of its interrupts waits."""

    def post(self, request: Request, thread: str) -> Response:
        body = body_object(request.data)
        no_internal_config(body)
        data = ResumeSerializer(data=body)
        data.is_valid(raise_exception=True)
        if "answer" not in self.caller.privileges:
            raise KeyMayNot(DETAIL_MAY_NOT_ANSWER)
        outcome = answers.resume(self.bridge, thread, data.validated_data, by=self.caller.by, via=self.caller.via)
        outcome.pop("stream", None)  # what the graph streamed: the Agent Server API's runs show it
        return Response(outcome)
