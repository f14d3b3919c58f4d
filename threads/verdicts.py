"""The effect verdict of a write (docs/http-api.md, "Receipts and verdicts"), from its evidence. Pure.

Evidence is what the engine knows once a write was sent (or its worker died):

- ``transport``: what came back: ``ok``, ``refused``, ``error``, ``timeout``,
  ``no_response``, or ``None`` when nothing came back at all (the worker died);
- ``matches``: how many effects the tool's ``verify`` probe found, or
  ``None`` when there is no probe or it could not answer (not authoritative);
- ``mismatch``: the operation was sent before under another request hash or
  idempotency key.

The table, first row that applies:

=====================  =========================================  ======================
mismatch               anything                                   ``unsafe_retry``
probe found 2 or more  anything                                   ``duplicate_effect``
probe found 1          anything                                   ``verified_applied``
probe found none       ``ok``                                     ``false_success``
probe found none       anything else                              ``verified_not_applied``
no probe               ``ok`` (a reply, or a replay's reply)      ``verified_applied``
no probe               ``refused``/``error`` (the tool said no)   ``verified_not_applied``
no probe               ``timeout``/``no_response``/nothing        ``indeterminate``
=====================  =========================================  ======================
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

UNSAFE_RETRY = "unsafe_retry"
DUPLICATE_EFFECT = "duplicate_effect"
VERIFIED_APPLIED = "verified_applied"
VERIFIED_NOT_APPLIED = "verified_not_applied"
FALSE_SUCCESS = "false_success"
INDETERMINATE = "indeterminate"

VERDICTS = (VERIFIED_APPLIED, VERIFIED_NOT_APPLIED, INDETERMINATE, DUPLICATE_EFFECT, FALSE_SUCCESS, UNSAFE_RETRY)
# Verdicts that say the effect exists (its undo is registered).
APPLIED = frozenset({VERIFIED_APPLIED, DUPLICATE_EFFECT})
# Verdicts after which the run is reported unhealthy.
UNHEALTHY = frozenset({DUPLICATE_EFFECT, FALSE_SUCCESS, UNSAFE_RETRY})
REFUSALS = frozenset({"refused", "error"})


def verdict(*, transport: str | None, matches: int | None = None, mismatch: bool = False) -> str:
    """The verdict the table above gives this evidence."""
    if mismatch:
        return UNSAFE_RETRY
    if matches is not None:
        if matches > 1:
            return DUPLICATE_EFFECT
        if matches == 1:
            return VERIFIED_APPLIED
        return FALSE_SUCCESS if transport == "ok" else VERIFIED_NOT_APPLIED
    if transport == "ok":
        return VERIFIED_APPLIED
    if transport in REFUSALS:
        return VERIFIED_NOT_APPLIED
    return INDETERMINATE


def reference(value: Any, args: Mapping[str, Any], result: Any) -> Any:
    """``$args.<name>`` / ``$result.<a.b>`` resolved; any other value as it is."""
    if isinstance(value, str) and value.startswith("$args."):
        return field_of(args, value[len("$args."):])
    if isinstance(value, str) and value.startswith("$result."):
        return field_of(result, value[len("$result."):])
    return value


def field_of(data: Any, name: str) -> Any:
    """``data["a"]["b"]`` for ``"a.b"``; None where any part is missing."""
    for part in name.split("."):
        if not isinstance(data, Mapping):
            return None
        data = data.get(part)
    return data


def probe_arguments(verify: Mapping[str, Any], args: Mapping[str, Any], result: Any) -> dict[str, Any]:
    """The probe's arguments, references resolved."""
    return {str(k): reference(v, args, result) for k, v in dict(verify.get("arguments") or {}).items()}


def probe_matches(verify: Mapping[str, Any], found: Any, args: Mapping[str, Any], result: Any) -> int:
    """How many of the probe's answers match: every key of ``match`` equals
    that field (docs/agent-file.md, "Declarations": ``verify``). A list answer
    (or the list under ``items:``) counts each element; an object answer is one
    candidate."""
    want = {str(k): reference(v, args, result) for k, v in dict(verify.get("match") or {}).items()}
    items_at = verify.get("items")
    if isinstance(items_at, str):
        found = field_of(found, items_at)
    candidates = found if isinstance(found, list) else [found]
    return sum(1 for c in candidates if isinstance(c, Mapping) and all(_same(field_of(c, k), v)
                                                                        for k, v in want.items()))


def _same(have: Any, want: Any) -> bool:
    if have == want:
        return True
    # "40.00" from a store and 40 from the call are the same amount; "4411" and 4411 the same id.
    if isinstance(have, (str, int, float)) and isinstance(want, (str, int, float)) \
            and not isinstance(have, bool) and not isinstance(want, bool):
        try:
            return float(have) == float(want)
        except (TypeError, ValueError):
            return str(have) == str(want)
    return False
