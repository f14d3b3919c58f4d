"""The HTTP API's routes of threads and plans (docs/http-api.md): thin DRF
views over the engine's facade, each answer its typed value as JSON."""

from __future__ import annotations

import logging
import secrets
from typing import Any

from django.conf import settings
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from catalogue import registry
from catalogue.agentfile import LANGUAGES
from catalogue.wording import tool_phrase
from doors.common import MAX_AGENT, MAX_LANGUAGE, SessionApi, StrictCharField, agent_or_404, check_thread_id, no_nul
from doors.http import idempotency
from doors.http import openapi as doc
from doors.http.resume import answered_from
from threads.engine import Proposer, open_pauses, thread_rollback, turn_submit
from threads.errors import BadRequest, Forbidden, OperatorUnauthorized, TooLarge, TooManyTries
from threads.feedback import feedback_give
from threads.keys import thread_key
from threads.limits import Limit, guess_record, guesses_wait, request_client
from threads.selectors import (
    THREAD_KEY_RE,
    context_of,
    session_hash,
    thread_access,
)

DETAIL_TURN_TOO_LONG = _("A turn is at most {limit} characters.")
DETAIL_THREAD_KEY = _("A thread is named here by its key, as the console's thread page shows it: its id, "
                      "then '~' and 16 hex digits.")
DETAIL_NO_OPERATOR_TOKEN = _("Rollback needs an operator token, and none is set: start the server with "
                            "--operator-token TOKEN or set STALWART_OPERATOR_TOKEN.")
DETAIL_OPERATOR = _("Send the operator token as Authorization: Bearer <token>.")
# Wrong operator bearers, per client address, in the database (threads.limits): every worker counts the same.
OPERATOR_LIMIT = Limit(scope="operator", per_client=10)

security = logging.getLogger("stalwart.security")


class TurnSerializer(serializers.Serializer[Any]):
    text = StrictCharField(allow_blank=True)
    language = StrictCharField(required=False, allow_null=True, max_length=MAX_LANGUAGE)
    context = serializers.DictField(required=False, validators=[no_nul])
    agent = StrictCharField(required=False, allow_null=True, max_length=MAX_AGENT)


class ThreadMessageCreateApi(SessionApi):
    """A person's turn. A new turn closes what waited in the thread as
    superseded; with an ``Idempotency-Key``, a retry answers the first
    response again and starts nothing."""

    InputSerializer = TurnSerializer

    @extend_schema(
        operation_id="thread_message_create", summary="A turn: the reply, what waits, refusals, as data",
        request=TurnSerializer, parameters=[doc.THREAD_ID, doc.SESSION, doc.IDEMPOTENCY_KEY],
        responses={200: doc.MESSAGE_ANSWER, **doc.errors(400, 404, 409, 413, 415, 422)},
    )
    def post(self, request: Request, thread_id: str) -> Response:
        check_thread_id(thread_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        context, privileges = context_of(request._request, data.validated_data.get("context"))
        text = data.validated_data["text"]
        if len(text) > settings.STALWART_MAX_TURN:
            raise TooLarge(DETAIL_TURN_TOO_LONG.format(limit=settings.STALWART_MAX_TURN))
        agent_or_404(data.validated_data.get("agent"))  # an unknown agent is a 404 before anything opens
        key = idempotency.key_of(request.headers.get(idempotency.HEADER))
        owner = session_hash(self.session)
        given = {**data.validated_data, "context": context, "privileges": privileges}
        replay = None if key is None else idempotency.replay_key(session_hash=owner, key=key, thread_id=thread_id,
                                                                  body=request.data)
        answer = turn_submit(
            thread_id=thread_key(thread_id, owner),  # this session's thread of that name
            session_hash=owner, text=given["text"], language=given.get("language"), context=given["context"],
            privileges=given["privileges"], agent=given.get("agent"), replay=replay,
            # The widget says it is the widget (a label an approval policy's ``door`` may name; it grants nothing).
            proposer=Proposer(door=answered_from(request)))
        if replay is None:
            return Response(answer.to_json())
        status, body, headers = idempotency.answered(answer, replay)
        return Response(body, status=status, headers=headers)


class ThreadFeedbackCreateApi(SessionApi):
    """``POST /threads/{id}/feedback``: a thumb on a reply this session was shown."""

    class InputSerializer(serializers.Serializer[Any]):
        message = StrictCharField()
        thumb = StrictCharField(allow_blank=True)
        comment = StrictCharField(required=False, allow_blank=True, allow_null=True, trim_whitespace=False)

    @extend_schema(
        operation_id="thread_feedback_create", summary="A thumb on a reply, from the session that was shown it",
        request=InputSerializer, parameters=[doc.THREAD_ID, doc.SESSION],
        responses={200: doc.FEEDBACK_TAKEN, **doc.errors(400, 404, 415)},
    )
    def post(self, request: Request, thread_id: str) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        thread = thread_access(thread_id=thread_id, session=self.session)
        feedback = feedback_give(thread=thread, message_id=data.validated_data["message"],
                                 thumb=data.validated_data["thumb"], comment=data.validated_data.get("comment") or "")
        return Response({"thread": thread.name, "message": feedback.message_id, "thumb": feedback.thumb,
                         "comment": feedback.comment})


class ThreadInterruptListApi(SessionApi):
    """The thread's open pauses, each with its id and token."""

    @extend_schema(
        operation_id="thread_interrupt_list", summary="The open pauses of the thread, each by its id",
        parameters=[doc.THREAD_ID, doc.SESSION], responses={200: doc.INTERRUPTS, **doc.errors(404)},
    )
    def get(self, request: Request, thread_id: str) -> Response:
        thread = thread_access(thread_id=thread_id, session=self.session)
        waiting = [p.to_json() for p in open_pauses(thread.id)]
        return Response({"thread": thread.name, "interrupts": waiting, "waiting": waiting})


def operator_check(request: Request) -> None:
    """The operator's bearer token, compared in constant time (docs/operating.md, "Operator rollback").

    Wrong bearers are limited per client address (``OPERATOR_LIMIT``): past
    it every try from that address is ``429`` unread, the right token too, so
    the limit stops guessing rather than slowing it; other addresses go on."""
    configured = str(getattr(settings, "OPERATOR_TOKEN", "") or "")
    if not configured:
        raise Forbidden(DETAIL_NO_OPERATOR_TOKEN)
    client = request_client(request._request)
    wait = guesses_wait(limit=OPERATOR_LIMIT, client=client)
    if wait:
        security.warning("rollback tries from %s refused for %s s (too many wrong operator tokens)", client, wait)
        raise TooManyTries(wait)
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not secrets.compare_digest(given.strip().encode(), configured.encode()):
        guess_record(limit=OPERATOR_LIMIT, client=client)
        security.warning("a rollback without the operator token (from %s)", client)
        raise OperatorUnauthorized(DETAIL_OPERATOR)


class ThreadRollbackApi(APIView):
    """``POST /threads/{key}/rollback``: an operator undoes a thread's writes
    (docs/http-api.md). Not bound to a session: the thread is named by its
    stored key (the console's thread page shows it), never by a client's name
    alone."""

    @extend_schema(
        operation_id="thread_rollback", summary="An operator's rollback: undo the thread's writes, newest first",
        request=None, parameters=[doc.THREAD_KEY, doc.AUTHORIZATION],
        responses={200: doc.ROLLBACK, **doc.errors(400, 401, 403, 404, 429)},
    )
    def post(self, request: Request, thread_id: str) -> Response:
        operator_check(request)
        if not THREAD_KEY_RE.match(thread_id):
            raise BadRequest(DETAIL_THREAD_KEY)
        done = thread_rollback(thread_id=thread_id, by="operator")
        response = Response(done)
        response["Cache-Control"] = "no-store"
        return response


class PlanApi(SessionApi):
    """What a turn would call, in order, and what it would ask; nothing runs."""

    InputSerializer = TurnSerializer

    @extend_schema(
        operation_id="plan", summary="The plan for a turn; nothing runs",
        request=TurnSerializer, parameters=[doc.SESSION],
        responses={200: doc.PLAN, **doc.errors(400, 404, 413, 415)},
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        context, _ = context_of(request._request, data.validated_data.get("context"))
        text = data.validated_data["text"]
        if len(text) > settings.STALWART_MAX_TURN:
            raise TooLarge(DETAIL_TURN_TOO_LONG.format(limit=settings.STALWART_MAX_TURN))
        agent = agent_or_404(data.validated_data.get("agent"))
        language = registry.choose_language(agent, data.validated_data.get("language"))
        plan = registry.selector_for(agent).plan(
            text, language=language, context=context,
            exclude=registry.withdrawn_tools(agent),
        )
        return Response(plan.to_json())


class HealthApi(APIView):
    """200 while the service answers."""

    @extend_schema(operation_id="healthz", summary="200 while the service answers",
                   responses={200: doc.HEALTH, **doc.errors()})
    def get(self, request: Request) -> Response:
        return Response({"ok": True})


class ConfigApi(APIView):
    """What the interface at ``/`` is configured with (docs/http-api.md, "GET /config.json")."""

    @extend_schema(operation_id="config", summary="The agent's name, purpose, language and what it can do",
                   responses={200: doc.CONFIG, **doc.errors()})
    def get(self, request: Request) -> Response:
        agent = registry.get_agent()
        withdrawn = registry.withdrawn_tools(agent)
        language = registry.choose_language(agent)
        # ``?language=pt-BR``: what it can do, in the words of the page's language.
        asked = request.query_params.get("language")
        words_in = asked if asked in LANGUAGES else language
        return Response({
            "name": agent.name,
            "purpose": agent.said("purpose", words_in),
            "language": language,
            "languages": list(LANGUAGES),
            "base": settings.PUBLIC_URL,
            "greeting": agent.said("greeting", words_in),
            "can": [
                {"tool": t.name, "words": tool_phrase(t.name, words_in, agent.vocabulary, words=t.words),
                 "kind": t.kind, "description": t.description_in(words_in)}
                for t in agent.tools if t.name not in withdrawn
            ],
            "agents": [a.name for a in registry.agent_file().agents],
            # Whether GET /threads/{id}/stream is served (by stalwart_site.asgi's
            # consumer): the widget follows it only then, else reads each answer alone.
            "stream": bool(getattr(request, "scope", {}).get("stalwart_streams")),
        })
