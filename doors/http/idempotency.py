"""``Idempotency-Key`` on ``POST /threads/{id}/messages`` (the IETF httpapi
draft's semantics), so a client that lost a reply can send the turn again.

A key is a call in the engine's replay journal (door ``http``, its caller
the session): taken with the turn's run, in the turn's own transaction, so of
two requests with one key at once (on any workers) one starts the turn and
the other finds it. The first request keeps its answer on the row once it
has it; a later request with the same key, for ``KEEP`` (24 hours):

- with the same fingerprint (thread id plus canonical body) gets the first
  answer again, whatever happened since, and starts nothing;
- with another fingerprint is ``422 idempotency_mismatch``;
- while the first is still being answered is ``409 idempotency_in_progress``;
- when the first never kept its answer (its worker died, or it failed after
  its turn was stored) gets what that turn became, read now: its run as it
  stands. Nothing is ever "in progress" for ever, and nothing starts twice.

A turn refused before anything was stored (a 4xx) keeps nothing: the same
key may be sent again.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.utils.translation import gettext_lazy as _

from threads.engine import Answer, ReplayKey, replay_keep, replay_release
from threads.errors import BadRequest, IdempotencyInProgress, IdempotencyMismatch

HEADER = "Idempotency-Key"
REPLAYED = {"Idempotent-Replayed": "true"}
KEEP = timedelta(hours=24)
MAX_KEY = 255
DETAIL_BAD_KEY = _("An Idempotency-Key is 1 to 255 visible ASCII characters (optionally in double quotes).")


def key_of(value: str | None) -> str | None:
    """The key a header carries (a structured-field string or a bare token), or None without one."""
    if value is None:
        return None
    key = value[1:-1] if len(value) >= 2 and value[0] == value[-1] == '"' else value
    if not (0 < len(key) <= MAX_KEY and key.isascii() and key.isprintable() and key.strip() == key):
        raise BadRequest(DETAIL_BAD_KEY)
    return key


def replay_key(*, session_hash: str, key: str, thread_id: str, body: Any) -> ReplayKey:
    """The turn as a call of the replay journal: the key names it, the thread and body are what it asks."""
    return ReplayKey(door="http", kind="turn", caller=session_hash, identity=key, key=key,
                     fingerprint=[thread_id, body], keep=KEEP.total_seconds(), held=True)


def answered(answer: Answer, asked: ReplayKey) -> tuple[int, Any, dict[str, str]]:
    """The status, body and headers answering a turn sent with a key: the
    first answer kept, or the earlier one's (see the module's docstring)."""
    earlier = answer.replayed
    if earlier is None:
        body = answer.to_json()
        if answer.replay_id is not None:
            try:
                replay_keep(answer.replay_id, {"status": 200, "body": body})
            except BaseException:
                replay_release(answer.replay_id)  # the same key again gets what the turn became
                raise
        return 200, body, {}
    if not earlier.asked_the_same(asked.fingerprint):
        raise IdempotencyMismatch()
    if isinstance(earlier.result, dict) and "body" in earlier.result:
        return int(earlier.result.get("status") or 200), earlier.result["body"], REPLAYED
    if earlier.in_progress or not earlier.run:
        raise IdempotencyInProgress()
    return 200, answer.to_json(), REPLAYED
