"""``POST /threads/{id}/resume``: a person's answer to one pause (docs/http-api.md)."""

from __future__ import annotations

import logging

from django.conf import settings
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from approvals.errors import SignatureInvalid
from approvals.webhooks import HEADER, verify
from doors.common import ResumeSerializer, SessionApi
from doors.http import openapi as doc
from threads.engine import Via, pause_answer
from threads.errors import NotFound
from threads.keys import thread_key
from threads.selectors import session_hash, thread_access, thread_by_key

security = logging.getLogger("stalwart.security")
DETAIL_SIGNATURE = _("This server takes answers only with a valid Stalwart-Signature.")


def answered_from(request: Request) -> str:
    """The widget says it is the widget (``Stalwart-Client: widget``); any other client is HTTP. A label for
    the decisions page only: it grants nothing, so a client that claims it gains nothing."""
    return Via.WIDGET if request.headers.get("Stalwart-Client") == "widget" else Via.HTTP


class ThreadResumeApi(SessionApi):
    """A person's answer to one pause, checked against the token shown and
    claimed once (docs/http-api.md); the thread's other pauses stay open."""

    InputSerializer = ResumeSerializer

    @extend_schema(
        operation_id="thread_resume", summary="Answer one pause; the others stay open",
        request=ResumeSerializer, parameters=[doc.THREAD_ID, doc.SESSION, doc.SIGNATURE, doc.CLIENT],
        responses={200: doc.MESSAGE_ANSWER,
                   202: OpenApiResponse(response=doc.APPROVAL_RECORDED, description=doc.APPROVAL_RECORDED_WHEN),
                   **doc.errors(400, 401, 403, 404, 409, 413, 415, 422, e403=doc.RESUME_403)},
    )
    def post(self, request: Request, thread_id: str) -> Response:
        secret = getattr(settings, "STALWART_RESUME_SECRET", "")
        if secret and not verify(request.headers, request.body, secret):  # either signature (docs/http-api.md)
            # One generic answer: never say whether the time or the HMAC was wrong.
            security.warning("a resume without a valid %s (thread %s)", HEADER, thread_id)
            raise SignatureInvalid(DETAIL_SIGNATURE)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        owner = None
        if secret:  # the signed channel may answer any thread's pauses, named by their key (docs/http-api.md)
            key = thread_by_key(thread_id).id
        elif not self.session:
            key = thread_access(thread_id=thread_id, session=self.session).id  # its 404
        else:  # the session's thread: checked in the answer's own read of the pause
            owner = session_hash(self.session)
            key = thread_key(thread_id, owner)
        try:
            return Response(pause_answer(
                thread_id=key,
                pause_id=data.validated_data["interrupt_id"],
                decision=data.validated_data["decision"],
                token=data.validated_data["token"],
                answer=data.validated_data.get("answer"),
                by="signed channel" if secret else "session",
                via=Via.SIGNED_CHANNEL if secret else answered_from(request),
                session_hash=owner,
            ).to_json())
        except NotFound:
            if owner is not None:
                thread_access(thread_id=thread_id, session=self.session)  # a thread not this session's: its 404
            raise
