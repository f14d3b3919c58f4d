"""HTTP routes of threads and plans (SPEC §10): thin DRF views over the services."""

from __future__ import annotations

import logging
import secrets
from typing import Any

from django.conf import settings
from django.urls import Resolver404, resolve
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from catalogue import registry
from catalogue.agentfile import LANGUAGES
from threads.engine import open_pauses, run_rollback, take_failures, turn_submit
from threads.errors import BadRequest, Forbidden, NotFound, OperatorUnauthorized, TooLarge
from threads.feedback import feedback_give
from threads.selectors import (
    SESSION_HEADER,
    THREAD_ID_RE,
    answer_view,
    context_of,
    session_hash,
    session_of,
    thread_access,
)

DETAIL_TURN_TOO_LONG = "A turn is at most {limit} characters."
DETAIL_THREAD_ID = "A thread id is 1 to 128 letters, digits, '-', '_', '.' or ':'."
DETAIL_NO_OPERATOR_TOKEN = ("Rollback needs an operator token, and none is set: start the server with "
                            "--operator-token TOKEN or set QLS_OPERATOR_TOKEN.")
DETAIL_OPERATOR = "Send the operator token as Authorization: Bearer <token>."

security = logging.getLogger("stalwart.security")


class StrictCharField(serializers.CharField):
    """A string, and only a string: DRF's CharField would take 12 as "12"."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        # A NUL in a turn is noise, not a reason to refuse it: read as a space.
        return str(super().to_internal_value(data.replace("\x00", " ")))


class SessionApi(APIView):
    """Hands out and reads back the ``Stalwart-Session`` header."""

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)
        self.session, self.session_new = session_of(request._request)

    def finalize_response(self, request: Request, response: Response, *args: Any, **kwargs: Any) -> Response:
        response = super().finalize_response(request, response, *args, **kwargs)
        session = getattr(self, "session", None)
        if session:
            response[SESSION_HEADER] = session
            response["Access-Control-Expose-Headers"] = SESSION_HEADER
        response["Cache-Control"] = "no-store"
        return response


def check_thread_id(thread_id: str) -> None:
    if not THREAD_ID_RE.match(thread_id):
        raise BadRequest(DETAIL_THREAD_ID)


class ThreadMessageCreateApi(SessionApi):
    class InputSerializer(serializers.Serializer[Any]):
        text = StrictCharField(allow_blank=True, trim_whitespace=False)
        language = StrictCharField(required=False, allow_null=True)
        context = serializers.DictField(required=False, allow_null=True)
        agent = serializers.CharField(required=False, allow_null=True)

    def post(self, request: Request, thread_id: str) -> Response:
        check_thread_id(thread_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        context, privileges = context_of(request._request, data.validated_data.get("context"))
        text = data.validated_data["text"]
        if len(text) > settings.STALWART_MAX_TURN:
            raise TooLarge(DETAIL_TURN_TOO_LONG.format(limit=settings.STALWART_MAX_TURN))
        take_failures()
        advance = turn_submit(
            thread_id=thread_id,
            session_hash=session_hash(self.session),
            text_=text,
            language=data.validated_data.get("language"),
            context=context,
            privileges=privileges,
            agent_name=data.validated_data.get("agent"),
        )
        return Response(answer_view(advance, not_notified=take_failures()))


class ThreadFeedbackCreateApi(SessionApi):
    """``POST /threads/{id}/feedback``: a thumb on a reply this session was shown."""

    class InputSerializer(serializers.Serializer[Any]):
        message = StrictCharField()
        thumb = StrictCharField(allow_blank=True)
        comment = StrictCharField(required=False, allow_blank=True, allow_null=True, trim_whitespace=False)

    def post(self, request: Request, thread_id: str) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        thread = thread_access(thread_id=thread_id, session=self.session)
        feedback = feedback_give(thread=thread, message_id=data.validated_data["message"],
                                 thumb=data.validated_data["thumb"], comment=data.validated_data.get("comment") or "")
        return Response({"thread": thread.id, "message": feedback.message_id, "thumb": feedback.thumb,
                         "comment": feedback.comment})


class ThreadInterruptListApi(SessionApi):
    def get(self, request: Request, thread_id: str) -> Response:
        thread = thread_access(thread_id=thread_id, session=self.session)
        waiting = open_pauses(thread.id)
        return Response({"thread": thread.id, "interrupts": waiting, "waiting": waiting})


def operator_check(authorization: str) -> None:
    """The operator's bearer token, compared in constant time (SPEC §8)."""
    configured = str(getattr(settings, "OPERATOR_TOKEN", "") or "")
    if not configured:
        raise Forbidden(DETAIL_NO_OPERATOR_TOKEN)
    scheme, _, given = authorization.partition(" ")
    if scheme.lower() != "bearer" or not secrets.compare_digest(given.strip().encode(), configured.encode()):
        security.warning("a rollback without the operator token")
        raise OperatorUnauthorized(DETAIL_OPERATOR)


class ThreadRollbackApi(APIView):
    """``POST /threads/{id}/rollback``: an operator undoes a thread's writes
    (SPEC §8). Not bound to the thread's session."""

    def post(self, request: Request, thread_id: str) -> Response:
        operator_check(request.headers.get("Authorization", ""))
        check_thread_id(thread_id)
        done = run_rollback(thread_id=thread_id, by="operator")
        response = Response(done)
        response["Cache-Control"] = "no-store"
        return response


class PlanApi(SessionApi):
    class InputSerializer(serializers.Serializer[Any]):
        text = StrictCharField(allow_blank=True, trim_whitespace=False)
        language = StrictCharField(required=False, allow_null=True)
        agent = serializers.CharField(required=False, allow_null=True)
        context = serializers.DictField(required=False, allow_null=True)

    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        context, _ = context_of(request._request, data.validated_data.get("context"))
        text = data.validated_data["text"]
        if len(text) > settings.STALWART_MAX_TURN:
            raise TooLarge(DETAIL_TURN_TOO_LONG.format(limit=settings.STALWART_MAX_TURN))
        agent = _agent(data.validated_data.get("agent"))
        language = registry.choose_language(agent, data.validated_data.get("language"))
        plan = registry.selector_for(agent).plan(
            text, language=language, context=context,
            exclude=registry.withdrawn_tools(agent),
        )
        return Response(plan.to_json())


def _agent(name: str | None) -> Any:
    from catalogue.agentfile import AgentFileError

    try:
        return registry.get_agent(name)
    except AgentFileError as exc:
        raise NotFound(exc.reason) from exc


class HealthApi(APIView):
    def get(self, request: Request) -> Response:
        return Response({"ok": True})


class ConfigApi(APIView):
    """What the interface at ``/`` is configured with (SPEC §10)."""

    def get(self, request: Request) -> Response:
        agent = registry.get_agent()
        withdrawn = registry.withdrawn_tools(agent)
        language = registry.choose_language(agent)
        return Response({
            "name": agent.name,
            "purpose": agent.purpose,
            "language": language,
            "languages": list(LANGUAGES),
            "base": settings.PUBLIC_URL,
            "greeting": agent.greeting,
            "can": [
                {"tool": t.name, "words": t.words, "kind": t.kind, "description": t.description}
                for t in agent.tools if t.name not in withdrawn
            ],
            "agents": [a.name for a in registry.agent_file().agents],
            # Whether GET /threads/{id}/stream is served: the widget follows it
            # only then, and otherwise reads each request's answer alone.
            "stream": _has_route("/threads/_/stream"),
        })


def _has_route(path: str) -> bool:
    try:
        resolve(path)
    except Resolver404:
        return False
    return True
