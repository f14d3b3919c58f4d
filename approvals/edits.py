"""Editing a waiting call before approving it (SPEC §7.3, the console only).

An approver changes some argument values of an open ``confirm``. The old
pause is **claimed** like an answer (one conditional UPDATE, status
``edited``, who and what changed kept in ``answer``), the step takes the new
values with origin ``staff`` and a new generation, and goes back to the
check. It then pauses again as a new proposal with a new id and token, since
a pause's id and token cover the generation and the arguments. By default
(``STALWART_FOUR_EYES``) whoever edited may not approve that step afterwards
(``approvals.edits.edited_by``).
"""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from approvals.answers import DETAIL_STALE, stale_body
from approvals.errors import InvalidAnswer, Stale
from catalogue import registry
from threads.engine import (
    Advance,
    EventType,
    event_append,
    run_advance,
    run_status_set,
    step_status_set,
    token_for,
)
from threads.errors import NotFound
from threads.models import Interrupt, Run, Step
from threads.tokens import token_matches

DETAIL_NOT_EDITABLE = _("Only a call waiting for approval can be edited.")
DETAIL_NOTHING_CHANGED = _("No value changed: approve, skip or cancel it instead.")
DETAIL_FOUR_EYES = _("You edited this call, so another person approves it.")


def interrupt_edit(*, pause_id: str, token: str, values: dict[str, str], edited_by: str) -> Advance:
    """Change argument values of an open confirm; the call is checked again."""
    pause = Interrupt.objects.select_related("step", "run").filter(pk=pause_id).first()
    if pause is None:
        raise NotFound()
    if pause.kind != Interrupt.Kind.CONFIRM or pause.step is None:
        raise InvalidAnswer(str(DETAIL_NOT_EDITABLE))
    if pause.status != Interrupt.Status.OPEN or not token_matches(token_for(pause), token):
        raise Stale(str(DETAIL_STALE), **stale_body(pause, pause.thread_id))
    step, run = pause.step, pause.run
    selector = registry.selector_for(registry.get_agent(run.agent))
    arguments, changed = [], {}
    for arg in step.arguments:
        given = values.get(arg["name"])
        if given is not None and str(given).strip() != str(arg.get("value")):
            value = selector.typed_answer(step.tool, arg["name"], str(given).strip(), language=run.language)
            changed[arg["name"]] = value
            arg = {"name": arg["name"], "value": value, "origin": "staff"}
        arguments.append(arg)
    if not changed:
        raise InvalidAnswer(str(DETAIL_NOTHING_CHANGED))
    with transaction.atomic():
        claimed = Interrupt.objects.filter(pk=pause.pk, status=Interrupt.Status.OPEN).update(
            status=Interrupt.Status.EDITED, decision="edit", answer={"arguments": changed},
            answered_by=edited_by[:200], answered_at=timezone.now(),
        ) == 1
        if claimed:
            event_append(run.thread_id, EventType.ANSWERED, {"interrupt": pause.id, "status": "edited",
                                                             "by": edited_by or None, "arguments": changed})
            step.arguments = arguments
            step.generation += 1
            step.save(update_fields=["generation", "updated_at"])
            step_status_set(step, Step.Status.PLANNED)
            run_status_set(run, Run.Status.RUNNING)
    if not claimed:
        raise Stale(str(DETAIL_STALE), **stale_body(pause, pause.thread_id))
    return run_advance(run.id)


def edited_by(step_id: int | None) -> set[str]:
    """Who edited this step's call in the console (four eyes: they may not approve it)."""
    if step_id is None or not settings.STALWART_FOUR_EYES:
        return set()
    return set(Interrupt.objects.filter(step_id=step_id, status=Interrupt.Status.EDITED)
               .values_list("answered_by", flat=True))


def four_eyes_check(*, pause: Interrupt, decision: str, username: str) -> None:
    if pause.kind == Interrupt.Kind.CONFIRM and decision == "approve" and username in edited_by(pause.step_id):
        raise InvalidAnswer(str(DETAIL_FOUR_EYES))

