"""The assistant's message for what one call into the engine did (the answer's ``reply``: docs/http-api.md)."""

from __future__ import annotations

from threads.engine.progress import Progress, new_id
from threads.engine.unit import Unit
from threads.models import Event, Message
from threads.texts import text


def reply_write(u: Unit, progress: Progress) -> Progress:
    """The reply, inside the unit of the last change it tells of."""
    run = progress.run
    lines = progress.lines or [text(run.language, "nothing")]
    message = Message.objects.create(
        id=new_id("m"), thread_id=run.thread_id, run=run, role=Message.Role.ASSISTANT,
        text="\n".join(lines), language=run.language,
    )
    u.event(Event.Type.REPLY, {"run": run.id, "message": message.id, "text": message.text})
    progress.reply = message
    return progress
