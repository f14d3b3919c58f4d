"""Who calls the LangGraph door (docs/langgraph.md, "Keys"), on every route of it.

- A request with a valid ``Stalwart-Signature`` (the bridge's secret set) is the signed channel's.
- A request with ``x-api-key`` is its key's caller (``LangGraphKey``, made by an operator in the
  console), with the key's privileges (``run``: start runs; ``answer``: resume interrupts); a
  wrong, revoked or unknown key is ``401``, and too many wrong keys from one address ``429``.
- Otherwise: with a secret set, a route that runs or resumes the graph is ``401
  signature_invalid``; with a key in force, ``401``; with none, only this machine (loopback) may
  call, with both privileges.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.conf import settings
from django.utils.translation import gettext_lazy as _
from rest_framework.request import Request

from doors.keys import key_owner, keys_in_force
from doors.langgraph.models import LangGraphKey
from threads.engine import Via
from threads.errors import StalwartError, TooManyTries, Unauthorized
from threads.forwarded import peer_of
from threads.limits import Limit, guess_record, guesses_wait

security = logging.getLogger("stalwart.security")

PRIVILEGES = ("run", "answer")
KEY_LIMIT = Limit(scope="langgraph_key", per_client=10)  # wrong keys a minute from one address
DETAIL_KEY = _("This server takes calls with a valid x-api-key (an operator makes keys in the console: "
               "LangGraph keys).")
DETAIL_LOOPBACK = _("No LangGraph key is set up, so this server answers this machine (loopback) only; "
                    "an operator makes keys in the console (LangGraph keys).")


@dataclass(frozen=True)
class Caller:
    """Who calls: a key's name (empty: this machine, or the signed channel) and what it may do."""

    name: str
    privileges: frozenset[str]
    signed: bool = False

    @property
    def by(self) -> str:
        """Who answered, as the audit and the console say it."""
        if self.signed:
            return "signed channel"
        return f"LangGraph key {self.name}" if self.name else "langgraph bridge"

    @property
    def via(self) -> str:
        return Via.SIGNED_CHANNEL if self.signed else Via.LANGGRAPH


SIGNED = Caller(name="", privileges=frozenset(("run", "answer")), signed=True)


def caller_of(request: Request) -> Caller:
    """Who calls (see the module's docstring), or the 401/429 that refuses the request."""
    peer = peer_of(request.META.get("REMOTE_ADDR", ""), request.headers, settings.STALWART_TRUSTED_PROXIES)
    key = request.headers.get("x-api-key", "").strip()
    if key:
        wait = guesses_wait(limit=KEY_LIMIT, client=peer.address)
        if wait:  # refused unread, the right key too: else the limit would only slow a guesser down
            raise TooManyTries(wait)
        found = key_owner(LangGraphKey, key, door="LangGraph")
        if found is None:
            guess_record(limit=KEY_LIMIT, client=peer.address)
            raise Unauthorized(DETAIL_KEY)
        return Caller(name=found.name, privileges=frozenset(found.privileges))
    if keys_in_force(LangGraphKey):
        security.warning("a LangGraph call without a key from %s", peer.address)
        raise Unauthorized(DETAIL_KEY)
    if not peer.loopback:
        security.warning("a LangGraph call from %s, not this machine (or forwarded), and no key is set up",
                         peer.address)
        raise Unauthorized(DETAIL_LOOPBACK)
    return Caller(name="", privileges=frozenset(PRIVILEGES))


DETAIL_MAY_NOT_RUN = _("This key may not start runs (it lacks the privilege run).")
DETAIL_MAY_NOT_ANSWER = _("This key may not answer interrupts (it lacks the privilege answer).")


class KeyMayNot(StalwartError):
    """A key without the privilege a request needs: 403, and nothing runs."""

    code = "forbidden"
    http_status = 403
