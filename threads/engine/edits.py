"""Editing a waiting call before approving it (the console: docs/operating.md, "The console (/admin/)").

An approver changes some argument values of an open ``confirm``. The edited
call is **checked first** (``advance.step_check`` on a copy, writing
nothing): one the check refuses (a value its schema does not take, a
withdrawn tool) leaves the pause open and says why, so one typo by an
approver never cancels the person's call. A call the check takes closes the
old pause like an answer (``pause_close``: status ``edited``, the changed
values kept in ``answer``), the step takes the new values with origin
``staff`` and a new generation, and goes back to the check in the same unit
of work: it pauses again as a new proposal with a new id and token, since a
pause's id and token cover the generation and the arguments. By default
(``STALWART_FOUR_EYES``) whoever edited may not approve that step afterwards
(``decisions.edited_by``).

``replace``: the values given are the call's arguments, all of them (an
AG-UI ``editedArgs``, docs/ag-ui.md): an argument left out is dropped, one
the call did not have is added, and the call is refused, the pause left
open, when it no longer fits its tool (a required argument missing: rule
``arguments``, naming it), before the check would ask for what is missing.
"""

from __future__ import annotations

import copy

from django.utils.translation import gettext_lazy as _

from catalogue import registry
from threads.engine.advance import advance_segment, step_check
from threads.engine.approvals import approval_refused
from threads.engine.decisions import DETAIL_STALE
from threads.engine.execute import Prepared
from threads.engine.lifecycle import run_status_set, step_status_set
from threads.engine.pauses import pause_close, token_for
from threads.engine.progress import Progress
from threads.engine.reads import stale_body, steps_read
from threads.engine.replies import reply_write
from threads.engine.storable import proposal_refusal
from threads.engine.unit import Unit
from threads.errors import InvalidAnswer, Stale
from threads.models import Interrupt, Run, Step
from threads.tokens import token_matches

DETAIL_NOT_EDITABLE = _("Only a call waiting for approval can be edited.")
DETAIL_NOTHING_CHANGED = _("No value changed: approve, skip or cancel it instead.")
DETAIL_EDIT_REFUSED = _("The edited call was not taken, and the pause still waits as it was: {sentence}")


def pause_edit_in(u: Unit, pause: Interrupt, *, token: str, values: dict[str, str], by: str,
                  via: str = Interrupt.Via.CONSOLE, origin: str = "staff",
                  replace: bool = False) -> tuple[Progress, Prepared | None]:
    """Inside ``u`` (the pause read in it, with its step and run): check the
    edited call, then close the old pause as ``edited`` and carry the run on
    to the new proposal (a call to send after the commit, should the check
    let the edited one run). ``replace``: ``values`` are all its arguments."""
    if pause.kind != Interrupt.Kind.CONFIRM or pause.step is None:
        raise InvalidAnswer(DETAIL_NOT_EDITABLE)
    if pause.status != Interrupt.Status.OPEN or not token_matches(token_for(pause), token):
        raise Stale(DETAIL_STALE, **stale_body(pause, pause.thread_id))
    refused = approval_refused(pause, decision="edit", by=by, via=via)  # under a policy's group: its staff only
    if refused is not None:
        raise refused
    step, run = pause.step, pause.run
    agent = registry.get_agent(run.agent)
    selector = registry.selector_for(agent)
    arguments, changed, dropped = [], {}, []
    for arg in step.arguments:
        given = values.get(arg["name"])
        if given is None and replace:
            dropped.append(arg["name"])
            continue
        if given is not None and str(given).strip() != str(arg.get("value")):
            value = selector.typed_answer(step.tool, arg["name"], str(given).strip(), language=run.language)
            changed[arg["name"]] = value
            arg = {"name": arg["name"], "value": value, "origin": origin}
        arguments.append(arg)
    if replace:
        had = {a["name"] for a in step.arguments}
        for name, given in values.items():
            if name not in had:
                changed[name] = selector.typed_answer(step.tool, name, str(given).strip(), language=run.language)
                arguments.append({"name": name, "value": changed[name], "origin": origin})
    if not changed and not dropped:
        raise InvalidAnswer(DETAIL_NOTHING_CHANGED)
    if replace:
        refused = proposal_refusal(agent, step.tool, {a["name"]: a.get("value") for a in arguments})
        if refused is not None:
            raise InvalidAnswer(str(DETAIL_EDIT_REFUSED).format(sentence=refused[1]), rule=refused[0])
    withdrawn = registry.withdrawn_tools(agent)
    trial = copy.copy(step)
    trial.arguments = arguments
    verdict = step_check(run, trial, agent, withdrawn)
    if verdict.action == "refuse":
        raise InvalidAnswer(str(DETAIL_EDIT_REFUSED).format(sentence=verdict.sentence), rule=verdict.rule)
    progress = Progress(run=run, notices=u.notices)
    answer: dict[str, object] = {"arguments": changed, **({"dropped": dropped} if dropped else {})}
    if not pause_close(u, pause, status=Interrupt.Status.EDITED, decision="edit", answer=answer, by=by, via=via,
                       arguments=changed):
        raise Stale(DETAIL_STALE, **stale_body(pause, pause.thread_id))
    step.arguments = arguments
    step.generation += 1
    step_status_set(step, Step.Status.PLANNED)
    run_status_set(run, Run.Status.RUNNING)
    steps = [step if s.pk == step.pk else s for s in steps_read(run, run_too=True)[0]]
    prepared = advance_segment(u, progress, agent, withdrawn, steps)
    if prepared is None:
        reply_write(u, progress)
    return progress, prepared


def successor_of(pause: Interrupt) -> Interrupt | None:
    """The proposal an edited pause became (the step's newest other pause)."""
    if pause.step_id is None:
        return None
    return (Interrupt.objects.filter(step_id=pause.step_id, created_at__gte=pause.created_at)
            .exclude(pk=pause.pk).order_by("-created_at").first())
