"""HTTP routes of threads and plans (SPEC §10): thin DRF views over the services."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.translation import gettext_lazy as _
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from catalogue import registry
from catalogue.agentfile import LANGUAGES
from threads.engine import open_pauses, take_failures, turn_submit
from threads.errors import BadRequest, NotFound, TooLarge
from threads.selectors import (
    SESSION_HEADER,
    THREAD_ID_RE,
    answer_view,
    session_hash,
    session_of,
    thread_access,
)

DETAIL_TURN_TOO_LONG = _("A turn is at most {limit} characters.")
DETAIL_THREAD_ID = _("A thread id is 1 to 128 letters, digits, '-', '_', '.' or ':'.")


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
        context = serializers.DictField(required=False)
        agent = serializers.CharField(required=False, allow_null=True)

    def post(self, request: Request, thread_id: str) -> Response:
        check_thread_id(thread_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        text = data.validated_data["text"]
        if len(text) > settings.STALWART_MAX_TURN:
            raise TooLarge(DETAIL_TURN_TOO_LONG.format(limit=settings.STALWART_MAX_TURN))
        take_failures()
        advance = turn_submit(
            thread_id=thread_id,
            session_hash=session_hash(self.session),
            text_=text,
            language=data.validated_data.get("language"),
            context=data.validated_data.get("context"),
            agent_name=data.validated_data.get("agent"),
        )
        return Response(answer_view(advance, not_notified=take_failures()))


class ThreadInterruptListApi(SessionApi):
    def get(self, request: Request, thread_id: str) -> Response:
        thread = thread_access(thread_id=thread_id, session=self.session)
        waiting = open_pauses(thread.id)
        return Response({"thread": thread.id, "interrupts": waiting, "waiting": waiting})


class PlanApi(SessionApi):
    class InputSerializer(serializers.Serializer[Any]):
        text = StrictCharField(allow_blank=True, trim_whitespace=False)
        language = StrictCharField(required=False, allow_null=True)
        agent = serializers.CharField(required=False, allow_null=True)
        context = serializers.DictField(required=False)

    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        text = data.validated_data["text"]
        if len(text) > settings.STALWART_MAX_TURN:
            raise TooLarge(DETAIL_TURN_TOO_LONG.format(limit=settings.STALWART_MAX_TURN))
        agent = _agent(data.validated_data.get("agent"))
        language = registry.choose_language(agent, data.validated_data.get("language"))
        plan = registry.selector_for(agent).plan(
            text, language=language, context=data.validated_data.get("context") or {},
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
        })
