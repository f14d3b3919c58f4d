"""The assistant's message for what one call into the engine did (SPEC §10's ``reply``)."""

from __future__ import annotations

from django.db import transaction

from threads.engine.events import EventType, event_append
from threads.engine.lifecycle import Advance, new_id
from threads.models import Message
from threads.texts import text


@transaction.atomic(savepoint=False)
def reply_write(advance: Advance) -> Advance:
    """The reply, inside the transaction of the last change it tells of."""
    run = advance.run
    lines = advance.lines or [text(run.language, "nothing")]
    message = Message.objects.create(
        id=new_id("m"), thread_id=run.thread_id, run=run, role=Message.Role.ASSISTANT,
        text="\n".join(lines), language=run.language,
    )
    event_append(run.thread_id, EventType.REPLY, {"run": run.id, "message": message.id, "text": message.text})
    advance.reply = message
    return advance
