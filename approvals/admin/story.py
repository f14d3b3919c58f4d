"""What a pause's page tells beside the call (docs/operating.md, "A pause's page"): who
proposed it (the door and caller its run recorded), what the person wrote when
it is a person's turn (a delegate pause hands it to a model), and after an
answer what the run then did (its replies; a mirrored graph's output)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import get_language

from approvals.admin.answers import language_name, said_after
from approvals.admin.rows import source_words
from approvals.words import proposer_words
from threads.models import Interrupt

PERSON_DOORS = ("widget", "http", "agui", "python")  # a run these doors start is a person's turn


def story_of(pause: Interrupt) -> dict[str, Any]:
    """``proposer``, ``client`` (the MCP client named beside an agent's values), ``turn``,
    ``then``, ``then_graph`` (it is a mirrored graph's output) and ``then_language`` (the reply's
    language, when it is not the console's)."""
    run = pause.run
    person = pause.kind == Interrupt.Kind.DELEGATE or run.proposed_via in PERSON_DOORS
    then = said_after(pause, pause.answered_at) if pause.status == Interrupt.Status.ANSWERED else ""
    graph = bool(pause.payload.get("handback"))
    other = run.language.split("-")[0] != (get_language() or "en").split("-")[0]
    return {
        "proposer": source_words(pause) if not run.proposed_via else proposer_words(run.proposed_via, run.proposed_by),
        "client": run.proposed_by if run.proposed_via == "mcp" else "",
        "turn": run.text if person else "",
        "then": then,
        "then_graph": graph,
        "then_language": language_name(run.language) if then and other and not graph else "",
    }
