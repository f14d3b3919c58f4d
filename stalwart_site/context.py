"""Minting a ``Stalwart-Context`` token, for a team's backend and for tests.

    from stalwart_site.context import context_token
    token = context_token(ctx={"customer": "c-208"}, priv=["refunds"], ttl=900)
    # the widget: <stalwart-chat context-token="..."> sends it as Stalwart-Context

The secret defaults to ``STALWART_CONTEXT_SECRET`` in the environment (this
module does not start Django). The maths is ``threads.context`` (pure).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from typing import Any

from threads.context import DEFAULT_TTL, context_token_mint
from threads.strength import MAKE_ONE, MIN_SECRET_BYTES

SECRET_VARIABLE = "STALWART_CONTEXT_SECRET"
SHORT_SECRET = ("the context secret is {length} bytes; a server refuses to start with one under {minimum} "
                "(make one with {make})")


class ContextArgumentError(ValueError):
    pass


def context_token(
    *,
    ctx: Mapping[str, Any] | Iterable[str] | None = None,
    priv: Iterable[str] = (),
    sub: str | None = None,
    ttl: int = DEFAULT_TTL,
    secret: str | None = None,
    now: float | None = None,
) -> str:
    """A token for ``ctx`` (a mapping, or ``NAME=VALUE`` strings / one JSON object) and ``priv``."""
    secret = secret if secret is not None else os.environ.get(SECRET_VARIABLE, "")
    if not secret:
        raise ContextArgumentError(f"no secret: set {SECRET_VARIABLE} or pass --secret")
    if len(secret.encode()) < MIN_SECRET_BYTES:  # a token no server of ours would accept
        raise ContextArgumentError(SHORT_SECRET.format(length=len(secret.encode()), minimum=MIN_SECRET_BYTES,
                                                       make=MAKE_ONE))
    if ttl <= 0:
        raise ContextArgumentError("--ttl must be a positive number of seconds")
    if isinstance(priv, str):
        raise ContextArgumentError("priv is a list of privilege names, not one string")
    return context_token_mint(secret, ctx=_ctx(ctx), priv=[str(p) for p in priv], sub=sub, ttl=ttl, now=now)


def _ctx(ctx: Mapping[str, Any] | Iterable[str] | None) -> dict[str, Any]:
    if ctx is None:
        return {}
    if isinstance(ctx, Mapping):
        return dict(ctx)
    out: dict[str, Any] = {}
    for item in ctx:
        item = str(item)
        if item.lstrip().startswith("{"):
            try:
                data = json.loads(item)
            except json.JSONDecodeError as exc:
                raise ContextArgumentError(f"--ctx {item!r} is not a JSON object: {exc.msg}") from exc
            if not isinstance(data, dict):
                raise ContextArgumentError(f"--ctx {item!r} is not a JSON object")
            out.update(data)
            continue
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise ContextArgumentError(f"--ctx {item!r}: write NAME=VALUE, e.g. customer=c-208")
        out[name.strip()] = value
    return out


def context_mode() -> str:
    """What ``serve`` says at start about where context comes from."""
    secret = os.environ.get(SECRET_VARIABLE, "")
    if secret:  # a short one was refused at start (stalwart_site.bootstrap)
        return f"Context: signed only (Stalwart-Context header, HS256 under {SECRET_VARIABLE})."
    return (f"Context: UNSIGNED ({SECRET_VARIABLE} is not set). A body `context` is accepted as the person "
            "typing it and gives no privileges; set the secret before anyone else can reach this server.")
