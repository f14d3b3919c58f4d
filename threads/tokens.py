"""Pause identity and tokens (docs/http-api.md, "The pause"), pure.

A pause id is *derived*, never random: the same call, paused for the same
reason at the same point of the same run, has the same id on every worker.
It hashes the run, the step, the pause's kind, the step's generation (bumped
whenever the call must be decided again) and the exact arguments, so a call
whose arguments changed pauses again under a new id.

A token is an HMAC-SHA256, under the server's key, of the pause id, the tool,
the exact arguments (canonical JSON) and the point of the run. Callers pass
the key (as Django's ``signing`` does); comparisons are constant-time.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any


def canonical(value: Any) -> str:
    """Canonical JSON: sorted keys, no spaces, UTF-8 kept."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def pause_id(*, run_id: str, step: int | None, kind: str, generation: int, arguments: Any) -> str:
    material = canonical([run_id, step, kind, generation, arguments])
    return "p-" + hashlib.sha256(material.encode()).hexdigest()[:32]


def pause_token(key: str | bytes, *, pause: str, tool: str, arguments: Any, run_id: str, step: int | None) -> str:
    if isinstance(key, str):
        key = key.encode()
    message = canonical(["stalwart.pause", pause, tool, arguments, run_id, step]).encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def token_matches(expected: str, given: Any) -> bool:
    if not isinstance(given, str):
        return False
    return hmac.compare_digest(expected.encode(), given.encode())


def request_hash(tool: str, arguments: dict[str, Any], secret: frozenset[str] = frozenset()) -> str:
    """SHA-256 of the canonical intent (docs/http-api.md, "Receipts and verdicts"): tool plus arguments, secrets
    left out."""
    kept = {k: v for k, v in arguments.items() if k not in secret}
    return hashlib.sha256(canonical([tool, kept]).encode()).hexdigest()
