"""An agent's ``policies:`` read from its agent file (docs/policies.md), each
mistake an ``AgentFileError`` with its place; what they mean is
``catalogue.policies``."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from catalogue.agentfile.spec import AgentFileError, refuse_unknown_keys
from catalogue.policies import (
    APPROVER_KEYS,
    COMPARISONS,
    DECLARED,
    DOORS,
    KINDS,
    NAME,
    ON_TIMEOUT,
    ORDERED,
    POLICY_KEYS,
    QUORUM_MAX,
    QUORUM_MIN,
    WHEN_KEYS,
    Comparison,
    Policy,
    When,
    number,
)
from catalogue.wording import wording_problem


def policy_entries(path: Path, place: str, raw: Any) -> tuple[Policy, ...]:
    """An agent's ``policies:``: a list of policies, each checked (an ``AgentFileError`` names the place)."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise AgentFileError(path, place, "must be a list of policies, each with a name, when and what it asks")
    policies: list[Policy] = []
    seen: set[str] = set()
    for i, entry in enumerate(raw):
        policy = _policy(path, f"{place}[{i}]", entry)
        if policy.name in seen:
            raise AgentFileError(path, f"{place}[{i}].name", f"another policy is called '{policy.name}'")
        seen.add(policy.name)
        policies.append(policy)
    return tuple(policies)


def _policy(path: Path, place: str, raw: Any) -> Policy:
    if not isinstance(raw, Mapping):
        raise AgentFileError(path, place, "a policy must be a mapping: {name, when, and refuse, confirm, "
                                          "approvers or deadline}")
    refuse_unknown_keys(path, place, raw, POLICY_KEYS)
    name = raw.get("name")
    if not isinstance(name, str) or not NAME.match(name):
        raise AgentFileError(path, f"{place}.name", "every policy needs a name of letters, digits, '-', '_' or '.' "
                                                    "(at most 64)")
    when = _when(path, f"{place}.when", raw.get("when"))
    refuse = raw.get("refuse", "")
    if refuse != "" and wording_problem(refuse):
        raise AgentFileError(path, f"{place}.refuse", f"is the sentence the refusal says: {wording_problem(refuse)}")
    confirm = raw.get("confirm", False)
    if not isinstance(confirm, bool):
        raise AgentFileError(path, f"{place}.confirm", "must be true or false")
    quorum, group = _approvers(path, f"{place}.approvers", raw.get("approvers"))
    deadline = _seconds(path, f"{place}.deadline", raw.get("deadline"))
    on_timeout = raw.get("on_timeout")
    if on_timeout is not None:
        if deadline is None:
            raise AgentFileError(path, f"{place}.on_timeout", "says what a deadline's end does: give a deadline")
        if on_timeout not in ON_TIMEOUT:
            raise AgentFileError(path, f"{place}.on_timeout", f"'{on_timeout}' is not one of: {', '.join(ON_TIMEOUT)}")
    remind = _seconds(path, f"{place}.remind_before", raw.get("remind_before"))
    if remind is not None and (deadline is None or remind >= deadline):
        raise AgentFileError(path, f"{place}.remind_before", "must come before a deadline (fewer seconds than it)")
    if not (refuse or confirm or quorum or deadline is not None):
        raise AgentFileError(path, place, "the policy asks nothing: give refuse, confirm, approvers or deadline")
    if isinstance(refuse, Mapping):
        refuse = {str(k): str(v).strip() for k, v in refuse.items()}
    return Policy(name=name, when=when, refuse=refuse.strip() if isinstance(refuse, str) else refuse, confirm=confirm, quorum=quorum,
                  group=group, deadline=deadline, on_timeout=str(on_timeout or "expire"), remind_before=remind)


def _names(path: Path, place: str, raw: Any, allowed: Sequence[str] | None = None) -> tuple[str, ...]:
    items = [raw] if isinstance(raw, str) else raw
    if not isinstance(items, list) or not items or not all(isinstance(i, str) and i for i in items):
        raise AgentFileError(path, place, "must be a name or a list of names")
    if allowed is not None:
        for item in items:
            if item not in allowed:
                raise AgentFileError(path, place, f"'{item}' is not one of: {', '.join(allowed)}")
    return tuple(dict.fromkeys(items))


def _when(path: Path, place: str, raw: Any) -> When:
    if not isinstance(raw, Mapping) or not raw:
        raise AgentFileError(path, place, "must say which calls the policy covers, e.g. {tool: charge_card}")
    refuse_unknown_keys(path, place, raw, WHEN_KEYS)
    kind = raw.get("kind", "")
    if kind and kind not in KINDS:
        raise AgentFileError(path, f"{place}.kind", f"'{kind}' is not one of: read, write")
    tainted = raw.get("tainted", False)
    if tainted is not False and tainted is not True:
        raise AgentFileError(path, f"{place}.tainted", "must be true (or left out)")
    return When(
        tools=_names(path, f"{place}.tool", raw["tool"]) if "tool" in raw else (),
        kind=str(kind),
        declared=_names(path, f"{place}.declared", raw["declared"], DECLARED) if "declared" in raw else (),
        args=_args(path, f"{place}.args", raw.get("args")),
        origin=_origins(path, f"{place}.origin", raw.get("origin")),
        tainted=bool(tainted),
        doors=frozenset(_names(path, f"{place}.door", raw["door"], DOORS)) if "door" in raw else frozenset(),
    )


def _args(path: Path, place: str, raw: Any) -> dict[str, tuple[Comparison, ...]]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping) or not raw:
        raise AgentFileError(path, place, "must map an argument to comparisons, e.g. {amount: {gt: 500}}")
    out: dict[str, tuple[Comparison, ...]] = {}
    for arg, tests in raw.items():
        where = f"{place}.{arg}"
        if not isinstance(tests, Mapping) or not tests:
            raise AgentFileError(path, where, f"must be comparisons ({', '.join(COMPARISONS)}), e.g. {{gt: 500}}")
        comparisons = []
        for op, value in tests.items():
            if op not in COMPARISONS:
                raise AgentFileError(path, f"{where}.{op}", f"'{op}' is not one of: {', '.join(COMPARISONS)}")
            comparisons.append(Comparison(str(op), _operand(path, f"{where}.{op}", str(op), value)))
        out[str(arg)] = tuple(comparisons)
    return out


def _operand(path: Path, place: str, op: str, value: Any) -> Any:
    if op in ORDERED and number(value) is None:
        raise AgentFileError(path, place, "compares with a number")
    if op == "in" and (not isinstance(value, list) or not value):
        raise AgentFileError(path, place, "must be a list of values")
    if op == "matches":
        if not isinstance(value, str):
            raise AgentFileError(path, place, "must be a regular expression")
        try:
            re.compile(value)
        except re.error as exc:
            raise AgentFileError(path, place, f"is not a regular expression ({exc})") from exc
    if op in ("eq", "ne") and not isinstance(value, (str, int, float, bool)):
        raise AgentFileError(path, place, "compares with text, a number or true/false")
    return value


def _origins(path: Path, place: str, raw: Any) -> dict[str, frozenset[str]]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping) or not raw:
        raise AgentFileError(path, place, "must map an argument to origins, e.g. {customer: [model, agent]}")
    return {str(arg): frozenset(_names(path, f"{place}.{arg}", origins)) for arg, origins in raw.items()}


def _approvers(path: Path, place: str, raw: Any) -> tuple[int, str]:
    if raw is None:
        return 0, ""
    if not isinstance(raw, Mapping):
        raise AgentFileError(path, place, "must be {quorum: N, group: NAME}")
    refuse_unknown_keys(path, place, raw, APPROVER_KEYS)
    quorum = raw.get("quorum", 1)
    if isinstance(quorum, bool) or not isinstance(quorum, int) or not QUORUM_MIN <= quorum <= QUORUM_MAX:
        raise AgentFileError(path, f"{place}.quorum", f"must be a whole number from {QUORUM_MIN} to {QUORUM_MAX}")
    group = raw.get("group", "")
    if "group" in raw and (not isinstance(group, str) or not group.strip()):
        raise AgentFileError(path, f"{place}.group", "must name a staff group")
    return quorum, group.strip() if group else ""


def _seconds(path: Path, place: str, raw: Any) -> float | None:
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, (int, float)) or raw <= 0 or raw != raw:
        raise AgentFileError(path, place, "must be a positive number of seconds")
    return float(raw)


