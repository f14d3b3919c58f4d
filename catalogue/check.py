"""The check, pure: decide one planned call (docs/agent-file.md, "Declarations";
the refusal rules of docs/http-api.md, "POST /threads/{id}/messages").

Order: withdrawn -> refuse (rule ``withdrawn``); unknown tool -> refuse
(``unknown_tool``); missing privilege -> refuse (``privilege:<name>``);
arguments that fail the input schema, or a value that would change the
address an HTTP tool is called at (``catalogue.addresses``: ``..`` as an
order id) -> refuse (``arguments``); a policy that refuses -> refuse
(``policy:<name>``, docs/policies.md); then a read
runs (unless it has ``egress`` and the run is tainted: confirm), and a write
waits for a person (``confirm``) with its reasons.

Reasons a write gives: ``write``; ``argument_origin: <arg>`` for each argument
whose origin is ``model``, ``agent`` or a result of an untrusted read;
``tainted_call: untrusted:<tool>`` for each tool with ``reads_outside`` that
ran earlier in the run. ``irreversible`` is a flag, not a reason.

Policies (``catalogue.policies``) only make this stricter: they add
``policy:<name>`` reasons, make a read wait, or refuse; the verdict carries
their combined ``Rules`` (approvers, deadline) for the pause it opens.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import jsonschema

from catalogue.addresses import address_problem
from catalogue.plan import Argument
from catalogue.policies import Call, Policy, Rules, rules_for
from catalogue.tools import Tool
from catalogue.wording import gettext_noop

Action = Literal["run", "confirm", "refuse"]

# Each refusal's sentence is a message id with ``{name}`` placeholders; a
# Verdict carries it with its values, and the edge that shows it to a person
# translates it into the thread's language (gettext) and fills it, the tool
# named in words. ``Verdict.sentence`` is the English one, filled, for callers
# with no translations (``stalwart plan``, tests).
SENTENCE_WITHDRAWN = gettext_noop("{tool} has been withdrawn by an operator, so I won't use it.")
SENTENCE_UNKNOWN = gettext_noop("I have no tool called {tool}.")
SENTENCE_PRIVILEGE = gettext_noop("{tool} needs the '{privilege}' privilege, which this conversation does not have.")
SENTENCE_ARGUMENTS = gettext_noop("The values for {tool} do not fit what it takes: {detail}.")
SENTENCE_POLICY = "{sentence}"  # the agent file's own sentence, as written there

UNTRUSTED_ORIGINS = frozenset({"model", "agent"})


@dataclass(frozen=True)
class Verdict:
    action: Action
    reasons: tuple[str, ...] = ()
    irreversible: bool = False
    rule: str = ""
    sentence: str = ""
    message: str = ""  # the sentence's message id (SENTENCE_*), untranslated and unfilled
    params: Mapping[str, str] = field(default_factory=dict)
    rules: Rules = field(default_factory=Rules)  # the policies that covered the call, combined


def refuse(rule: str, message: str, **params: str) -> Verdict:
    return Verdict("refuse", rule=rule, sentence=message.format(**params), message=message, params=params)


def check_call(
    *,
    name: str,
    tool: Tool | None,
    arguments: Sequence[Argument],
    withdrawn: Collection[str] = (),
    privileges: Collection[str] = (),
    tainted_by: Sequence[str] = (),
    untrusted_steps: Collection[int] = (),
    policies: Sequence[Policy] = (),
    door: str = "",
    language: str = "en",
) -> Verdict:
    """Decide one call. ``tainted_by`` names the ``reads_outside`` tools that
    ran earlier in the run; ``untrusted_steps`` the steps whose results came
    from them; ``policies`` the agent's, ``door`` the one the run came through,
    ``language`` the one a policy's refusal is said in."""
    if name in withdrawn:
        return refuse("withdrawn", SENTENCE_WITHDRAWN, tool=name)
    if tool is None:
        return refuse("unknown_tool", SENTENCE_UNKNOWN, tool=name)
    if tool.privilege and tool.privilege not in privileges:
        return refuse(f"privilege:{tool.privilege}", SENTENCE_PRIVILEGE, tool=name, privilege=tool.privilege)
    values = {a.name: a.value for a in arguments}
    problem = argument_problem(tool, values) or address_problem(tool, values)
    if problem:
        return refuse("arguments", SENTENCE_ARGUMENTS, tool=name, detail=problem)

    rules = rules_for(policies, Call(tool=tool, arguments=arguments, tainted=bool(tainted_by), door=door))
    if rules.refusal is not None:
        said = rules.refusal.refusal(language)
        return Verdict("refuse", rule=rules.refusal.rule, sentence=said, message=SENTENCE_POLICY,
                       params={"sentence": said}, rules=rules)
    taint = tuple(f"tainted_call: untrusted:{t}" for t in dict.fromkeys(tainted_by))
    if not tool.is_write:
        if tool.egress and taint:
            return Verdict("confirm", reasons=("egress", *taint, *rules.reasons), irreversible=tool.irreversible,
                           rules=rules)
        if rules.waits:
            return Verdict("confirm", reasons=rules.reasons, irreversible=tool.irreversible, rules=rules)
        return Verdict("run")
    reasons = ["write"]
    for arg in sorted(arguments, key=lambda a: a.name):
        if arg.origin in UNTRUSTED_ORIGINS or _untrusted_result(arg.origin, untrusted_steps):
            reasons.append(f"argument_origin: {arg.name}")
    reasons.extend(taint)
    reasons.extend(rules.reasons)
    return Verdict("confirm", reasons=tuple(reasons), irreversible=tool.irreversible, rules=rules)


def _untrusted_result(origin: str, untrusted_steps: Collection[int]) -> bool:
    if not origin.startswith("result:"):
        return False
    try:
        return int(origin.split(":", 1)[1]) in untrusted_steps
    except ValueError:
        return True


def argument_problem(tool: Tool, values: Mapping[str, Any]) -> str:
    """One sentence naming what is wrong with ``values``, or ``""``: a value the
    schema does not take, a required one missing, or one it does not name."""
    named = (tool.input_schema or {}).get("properties")
    if isinstance(named, Mapping):
        unnamed = sorted(str(k) for k in values if k not in named)
        if unnamed:
            return f"{unnamed[0]!r} is not one of its arguments"
    validator = jsonschema.Draft202012Validator(dict(tool.input_schema))
    errors = sorted(validator.iter_errors(dict(values)), key=lambda e: list(e.path))
    if not errors:
        return ""
    err = errors[0]
    where = ".".join(str(p) for p in err.path)
    return f"{where}: {err.message}" if where else err.message
