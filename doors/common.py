"""What the doors speaking HTTP and JSON share (the HTTP API, AG-UI, the
LangGraph bridge): strict strings, the ``Stalwart-Session`` header, a thread
id's shape, values a database can store, an agent by name, and the body of
an answer to one pause (docs/http-api.md)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from catalogue import registry
from threads.errors import BadRequest, NotFound
from threads.selectors import SESSION_HEADER, THREAD_ID_RE, session_of

DETAIL_THREAD_ID = _("A thread id is 1 to 128 letters, digits, '-', '_', '.' or ':'.")


class StrictCharField(serializers.CharField):
    """A string, and only a string: DRF's CharField would take 12 as "12".

    Never trimmed: a decision, kind or token is matched exactly, so
    ``"\tapprove\n"`` is not ``approve`` (docs/http-api.md)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("trim_whitespace", False)
        super().__init__(**kwargs)

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


DETAIL_NUL = _("This holds a NUL character (\\u0000), which cannot be stored.")


def no_nul(value: Any) -> None:
    """Refuse a NUL in any key or string of a JSON value: PostgreSQL stores
    neither a NUL in text nor ``\\u0000`` in jsonb, so it would fail after the
    fact as a 500 (strings of the turn itself read a NUL as a space instead)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                raise serializers.ValidationError(DETAIL_NUL)
        elif isinstance(item, dict):
            if any("\x00" in key for key in item):
                raise serializers.ValidationError(DETAIL_NUL)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


MAX_LANGUAGE = 8  # the column's width (Run.language, Message.language)
MAX_AGENT = 200


def agent_or_404(name: str | None) -> Any:
    from catalogue.agentfile import AgentFileError

    try:
        return registry.get_agent(name)
    except AgentFileError as exc:
        raise NotFound(exc.reason) from exc



@extend_schema_field({"type": ["object", "array", "string", "number", "boolean"], "description": "For an `ask` pause: {\"kind\": \"choice\", \"index\": N} or "
                                     "{\"kind\": \"open\", \"text\": ...}."})
class AnswerField(serializers.JSONField):
    """Any JSON value; the pause's kind decides what it must be (docs/http-api.md)."""


class ResumeSerializer(serializers.Serializer[Any]):
    interrupt_id = StrictCharField(max_length=128)
    decision = StrictCharField(max_length=32)
    token = StrictCharField(allow_blank=True, max_length=256)
    answer = AnswerField(required=False, allow_null=True, validators=[no_nul])


