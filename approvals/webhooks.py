"""Approval from another channel (SPEC §11): signed pause deliveries and
signed resumes.

A signature header reads ``Stalwart-Signature: t=<unix time>,v1=<hex>``, the
hex being HMAC-SHA256 of ``"<t>.<body>"`` under the shared secret. A receiver
accepts it only within ``tolerance`` seconds of its own clock (so a captured
delivery cannot be replayed later), compares in constant time, and accepts
several ``v1=`` values (so a secret can be rotated). Pure apart from
``Webhook``, which posts with httpx.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections.abc import Callable
from typing import Any

import httpx

HEADER = "Stalwart-Signature"
DEFAULT_TOLERANCE = 300
MAX_HEADER = 4096  # room for a few v1= values during a rotation; longer is refused unread
BLANK_SECRET = "A webhook needs a secret to sign with: a blank one would let anyone forge its deliveries."
_STAMP_DIGITS = 12  # seconds since 1970 fit in 12 digits for the next 30,000 years


def _ascii_digits(value: str) -> bool:
    # str.isdigit() takes "٣" and int() would then parse it; and int() of
    # 5,000 digits raises. Only a short run of ASCII digits is a stamp.
    return 0 < len(value) <= _STAMP_DIGITS and value.isascii() and value.isdigit()


def sign(body: bytes, secret: str, *, now: Callable[[], float] = time.time) -> str:
    t = int(now())
    digest = hmac.new(secret.encode(), f"{t}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={t},v1={digest}"


def verify(header: str | None, body: bytes, secret: str, tolerance: int = DEFAULT_TOLERANCE, *,
           now: Callable[[], float] = time.time) -> bool:
    """True only for a valid signature made within ``tolerance`` seconds."""
    if not header or not secret or len(header) > MAX_HEADER or not header.isascii():
        return False
    stamp, candidates = None, []
    for part in header.split(","):
        key, _, value = part.strip().partition("=")
        if key == "t":
            stamp = value
        elif key == "v1":
            candidates.append(value)
    if stamp is None or not _ascii_digits(stamp) or not candidates:
        return False
    if abs(now() - int(stamp)) > tolerance:
        return False
    expected = hmac.new(secret.encode(), f"{stamp}.".encode() + body, hashlib.sha256).hexdigest()
    # Every candidate is compared, so the time taken does not say which one matched.
    matches = [hmac.compare_digest(expected.encode(), c.encode()) for c in candidates]
    return any(matches)


class Webhook:
    """An ``on_interrupt`` callable: POSTs each new pause as signed JSON.

    A failure raises, and the caller (``approvals.notify``) lists it under
    ``not_notified``: a failed post never fails the turn.
    """

    def __init__(self, url: str, secret: str, *, timeout: float = 5.0) -> None:
        if not isinstance(secret, str) or not secret.strip():
            raise ValueError(BLANK_SECRET)
        self.url = url
        self.secret = secret
        self.timeout = timeout

    def __call__(self, thread: str, interrupt: dict[str, Any]) -> None:
        body = json.dumps({"thread": thread, "interrupt": interrupt}, separators=(",", ":")).encode()
        response = httpx.post(self.url, content=body, timeout=self.timeout, headers={
            "Content-Type": "application/json", HEADER: sign(body, self.secret)})
        response.raise_for_status()

    def __repr__(self) -> str:
        return f"Webhook({self.url!r})"
