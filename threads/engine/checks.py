"""The check as the engine calls it (``catalogue.check``), for the run's own
steps (``advance``) and a team's (``teamsteps``) alike: the agent's policies
and the door the run came through passed in, and the pause a confirm opens
described once (docs/policies.md). ``mirror_policy``: the same policies over
a call a graph's own interrupt asks about (``threads.engine.handback``)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from catalogue.agentfile import AgentSpec
from catalogue.agentfile.policies import policy_entries
from catalogue.check import Verdict, check_call
from catalogue.plan import Argument
from catalogue.policies import Call, rules_for
from catalogue.tools import Tool
from threads.engine.approvals import groups_of
from threads.engine.values import shown
from threads.models import Run, Step
from threads.texts import labels_of, question_of, text


def call_check(run: Run, step: Step, agent: AgentSpec, arguments: Sequence[Argument], withdrawn: Collection[str],
               untrusted_steps: Collection[int] = ()) -> Verdict:
    """``catalogue.check.check_call`` for ``step`` of ``run``."""
    return check_call(name=step.tool, tool=agent.tool(step.tool), arguments=arguments, withdrawn=withdrawn,
                      privileges=run.privileges, tainted_by=run.tainted_by, untrusted_steps=untrusted_steps,
                      policies=agent.policies, door=run.proposed_via, language=run.language or "en")


def confirm_payload(run: Run, tool: Tool, step: Step, verdict: Verdict) -> dict[str, Any]:
    """What a ``confirm`` pause shows (``step``'s arguments resolved), and, under a policy, the approvals it
    needs and the deadline it got (``pauses.pause_open`` reads them)."""
    payload: dict[str, Any] = {
        "question": question_of(run, tool),
        "arguments": shown(step.arguments, tool),
        "labels": labels_of(run, tool, step.arguments),
        "reasons": list(verdict.reasons),
        "irreversible": verdict.irreversible,
    }
    if verdict.rules.names:
        payload["approvals"] = verdict.rules.approvals()
        payload["policy"] = {"names": list(verdict.rules.names), **verdict.rules.timing()}
    return payload


def confirm_line(run: Run, payload: dict[str, Any], question: str) -> str:
    """The reply's line for a confirm that waits: for the person's approval, or, under a policy, for the
    approvers it names (the person in the chat may not be one of them)."""
    approvals = payload.get("approvals") or {}
    groups = groups_of(approvals)
    if groups:
        return text(run.language, "waiting_group", question=question, group=", ".join(groups))
    if int(approvals.get("needed") or 1) > 1:
        return text(run.language, "waiting_quorum", question=question, needed=approvals["needed"])
    return text(run.language, "waiting_confirm", question=question)


def mirror_policy(source: Mapping[str, Any], tool: str, arguments: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """What the policies a bridge gave its mirrors (``source["policies"]``, kept on the mirrored run's plan, in
    the agent file's form) make of the call ``tool`` with ``arguments`` (``{"name", "value", "origin"}`` each)
    a graph's interrupt asks about: its pause's ``approvals`` and ``policy`` (as ``confirm_payload`` gives
    them) and the reasons to add; ``{}`` when none covers it. An edit asks again with its new arguments."""
    raw = source.get("policies")
    if not raw or not tool:
        return {}
    policies = policy_entries(Path(str(source.get("graph") or "langgraph")), "policies", raw)
    call = Call(tool=Tool(name=tool, kind="write"), door=str(source.get("source") or ""), arguments=[
        Argument(name=str(a["name"]), value=a.get("value"), origin=str(a.get("origin") or "model")) for a in arguments])
    rules = rules_for(policies, call)
    if not rules.names:
        return {}
    return {"reasons": list(rules.reasons), "approvals": rules.approvals(),
            "policy": {"names": list(rules.names), **rules.timing()}}
