"""Signed context (docs/http-api.md, "Signed context (Stalwart-Context)"), pure: the ``Stalwart-Context``
token's maths.

The embedding site's backend mints an HS256 JWT under
``STALWART_CONTEXT_SECRET``; Stalwart reads it. Claims::

    exp   required: the Unix time it stops being accepted
    ctx   optional: an object of context values, e.g. {"customer": "c-208"}
    priv  optional: a list of privilege names, e.g. ["refunds"]
    sub   optional: who the site says the person is (a string)

``context_read`` accepts only HS256 (never ``none``, never another
algorithm), a valid signature, an ``exp`` in the future (with ``leeway``
seconds of clock slack) and claims of the right shapes: an absent ``ctx`` or
``priv`` reads as empty (no context, no privilege), but one that is present
must have its shape (``"priv": "refunds"`` is refused, never read as a
privilege). Anything else raises ``ContextTokenError`` whose ``reason`` is
for the log, never for the client.
Callers pass the secret and the clock (as Django's ``signing`` does).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import jwt

ALGORITHM = "HS256"
HEADER = "Stalwart-Context"
DEFAULT_TTL = 3600


class ContextTokenError(ValueError):
    """A token that is not accepted; ``reason`` says why, for the log only."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class SignedContext:
    ctx: Mapping[str, Any] = field(default_factory=dict)
    priv: tuple[str, ...] = ()
    sub: str | None = None
    exp: int = 0


def context_token_mint(
    secret: str,
    *,
    ctx: Mapping[str, Any] | None = None,
    priv: Sequence[str] = (),
    sub: str | None = None,
    ttl: int = DEFAULT_TTL,
    now: float | None = None,
) -> str:
    """A ``Stalwart-Context`` token valid for ``ttl`` seconds from ``now``."""
    if not secret:
        raise ValueError("a context token needs a secret (STALWART_CONTEXT_SECRET)")
    if isinstance(priv, str):
        raise TypeError("priv is a list of privilege names, not one string")
    issued = int(time.time() if now is None else now)
    claims: dict[str, Any] = {"exp": issued + int(ttl), "iat": issued, "ctx": dict(ctx or {}),
                              "priv": [str(p) for p in priv]}
    if sub is not None:
        claims["sub"] = str(sub)
    return jwt.encode(claims, secret, algorithm=ALGORITHM)


def context_read(token: str, secret: str, *, now: float | None = None, leeway: int = 0) -> SignedContext:
    """The claims of a valid token; ``ContextTokenError`` for any other."""
    if not isinstance(token, str) or not token.strip():
        raise ContextTokenError("empty")
    clock = time.time() if now is None else now
    try:
        # The clock is checked below with the caller's ``now``, so tests can fix it.
        claims = jwt.decode(token.strip(), secret, algorithms=[ALGORITHM],
                            options={"require": ["exp"], "verify_exp": False, "verify_iat": False})
    except jwt.InvalidSignatureError as exc:
        raise ContextTokenError("bad signature") from exc
    except jwt.MissingRequiredClaimError as exc:
        raise ContextTokenError("no exp claim") from exc
    except jwt.PyJWTError as exc:
        raise ContextTokenError(f"malformed ({exc.__class__.__name__})") from exc
    exp = claims.get("exp")
    if not isinstance(exp, (int, float)) or isinstance(exp, bool):
        raise ContextTokenError("exp is not a number")
    if exp <= clock - leeway:
        raise ContextTokenError("expired")
    ctx = claims.get("ctx", {})
    if not isinstance(ctx, dict):
        raise ContextTokenError("ctx is not an object")
    priv = claims.get("priv", [])
    if not isinstance(priv, list) or not all(isinstance(p, str) and p for p in priv):
        raise ContextTokenError("priv is not a list of names")
    sub = claims.get("sub")
    if sub is not None and not isinstance(sub, str):
        raise ContextTokenError("sub is not a string")
    return SignedContext(ctx=dict(ctx), priv=tuple(dict.fromkeys(priv)), sub=sub, exp=int(exp))
