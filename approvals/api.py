"""``POST /threads/{id}/resume``: a person's answer to one pause (SPEC §7, §10)."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.utils.translation import gettext_lazy as _
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from approvals.answers import interrupt_answer
from approvals.errors import SignatureInvalid
from approvals.webhooks import HEADER, verify
from threads.api import SessionApi, StrictCharField
from threads.engine import take_failures
from threads.errors import NotFound
from threads.models import Thread
from threads.selectors import answer_view, thread_access

security = logging.getLogger("stalwart.security")
DETAIL_SIGNATURE = _("This server takes answers only with a valid Stalwart-Signature.")


class ThreadResumeApi(SessionApi):
    class InputSerializer(serializers.Serializer[Any]):
        interrupt_id = StrictCharField()
        decision = StrictCharField()
        token = StrictCharField(allow_blank=True)
        answer = serializers.JSONField(required=False, allow_null=True)

    def post(self, request: Request, thread_id: str) -> Response:
        secret = getattr(settings, "STALWART_RESUME_SECRET", "")
        if secret and not verify(request.headers.get(HEADER), request.body, secret):
            # One generic answer: never say whether the time or the HMAC was wrong.
            security.warning("a resume without a valid %s (thread %s)", HEADER, thread_id)
            raise SignatureInvalid(DETAIL_SIGNATURE)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        if secret:  # the signed channel may answer any thread's pauses (SPEC §10)
            thread = Thread.objects.filter(pk=thread_id).first()
            if thread is None:
                raise NotFound()
        else:
            thread = thread_access(thread_id=thread_id, session=self.session)
        take_failures()
        advance = interrupt_answer(
            thread=thread,
            interrupt_id=data.validated_data["interrupt_id"],
            decision=data.validated_data["decision"],
            token=data.validated_data["token"],
            answer=data.validated_data.get("answer"),
            answered_by="signed channel" if secret else "session",
        )
        return Response(answer_view(advance, not_notified=take_failures()))
