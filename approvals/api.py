"""``POST /threads/{id}/resume``: a person's answer to one pause (SPEC §7, §10)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from threads.api import SessionApi
from threads.pauses import interrupt_resume
from threads.selectors import answer_view, thread_access


class ThreadResumeApi(SessionApi):
    class InputSerializer(serializers.Serializer[Any]):
        interrupt_id = serializers.CharField()
        decision = serializers.CharField()
        token = serializers.CharField(allow_blank=True)
        answer = serializers.JSONField(required=False, allow_null=True)

    def post(self, request: Request, thread_id: str) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        thread = thread_access(thread_id=thread_id, session=self.session)
        advance = interrupt_resume(
            thread=thread,
            interrupt_id=data.validated_data["interrupt_id"],
            decision=data.validated_data["decision"],
            token=data.validated_data["token"],
            answer=data.validated_data.get("answer"),
            answered_by="session",
        )
        return Response(answer_view(advance))
