"""The model hand-off of an unread turn, once a person said ``approve``.

The model's calls come back through the check with origin ``model`` (so a
write pauses with ``argument_origin`` reasons). With no model configured the
reply says the bot needs an AI key.
"""

from __future__ import annotations

from catalogue import registry
from threads.models import Run
from threads.services import Advance, reply_write
from threads.texts import text


def delegate_run(run: Run, advance: Advance) -> Advance:
    agent = registry.get_agent(run.agent)
    if agent.model is None:
        Run.objects.filter(pk=run.id).update(status=Run.Status.DONE)
        advance.lines.append(text(run.language, "no_model"))
        return reply_write(advance)
    Run.objects.filter(pk=run.id).update(status=Run.Status.DONE)
    advance.lines.append(text(run.language, "no_model"))
    return reply_write(advance)
