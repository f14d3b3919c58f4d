"""Approval from another channel: signed pause deliveries and signed resumes
(docs/operating.md, "Webhooks"; docs/http-api.md, "Signed resumes").

Two signatures travel on each delivery, over the same body:

- ``Stalwart-Signature: t=<unix time>,v1=<hex>``, the hex being HMAC-SHA256
  of ``"<t>.<body>"`` under the shared secret;
- the Standard Webhooks headers ``webhook-id`` (one per delivery, the same on
  every retry, so a receiver can drop a duplicate), ``webhook-timestamp`` and
  ``webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">``,
  so receivers can verify with the standard's own libraries. Its key is the
  secret's UTF-8 bytes, or, for a secret written ``whsec_<base64>``, those
  decoded bytes (the standard's own secret format).

A receiver accepts either only within ``tolerance`` seconds of its own clock
(so a captured delivery cannot be replayed later), compares in constant time,
and accepts several signatures (``v1=`` values, or space-separated ``v1,...``
values) so a secret can be rotated. Pure apart from ``Webhook``, which posts
with httpx.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Callable, Mapping
from typing import Any

import httpx

from threads.strength import MAKE_ONE, MIN_SECRET_BYTES

HEADER = "Stalwart-Signature"
STANDARD_ID = "webhook-id"
STANDARD_TIMESTAMP = "webhook-timestamp"
STANDARD_SIGNATURE = "webhook-signature"
DEFAULT_TOLERANCE = 300
STANDARD_PREFIX = "whsec_"
MAX_HEADER = 4096  # room for a few v1= values during a rotation; longer is refused unread
BLANK_SECRET = "A webhook needs a secret to sign with: a blank one would let anyone forge its deliveries."
SHORT_SECRET = ("A webhook's secret must be at least {minimum} bytes ({length} given): one delivery is enough to "
                "search a shorter one offline. Make one with: {make}")
_STAMP_DIGITS = 12  # seconds since 1970 fit in 12 digits for the next 30,000 years


def _ascii_digits(value: str) -> bool:
    # str.isdigit() takes "٣" and int() would then parse it; and int() of
    # 5,000 digits raises. Only a short run of ASCII digits is a stamp.
    return 0 < len(value) <= _STAMP_DIGITS and value.isascii() and value.isdigit()


def sign(body: bytes, secret: str, *, now: Callable[[], float] = time.time) -> str:
    t = int(now())
    digest = hmac.new(secret.encode(), f"{t}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={t},v1={digest}"


def standard_key(secret: str) -> bytes:
    """The Standard Webhooks HMAC key of ``secret``."""
    if secret.startswith(STANDARD_PREFIX):
        try:
            return base64.b64decode(secret[len(STANDARD_PREFIX):] + "==")
        except (binascii.Error, ValueError):
            return secret.encode()
    return secret.encode()


def standard_sign(msg_id: str, timestamp: int, body: bytes, secret: str) -> str:
    signed = f"{msg_id}.{timestamp}.".encode() + body
    return "v1," + base64.b64encode(hmac.new(standard_key(secret), signed, hashlib.sha256).digest()).decode()


def standard_headers(msg_id: str, body: bytes, secret: str, *, now: Callable[[], float] = time.time) -> dict[str, str]:
    t = int(now())
    return {STANDARD_ID: msg_id, STANDARD_TIMESTAMP: str(t), STANDARD_SIGNATURE: standard_sign(msg_id, t, body, secret)}


def new_message_id() -> str:
    return "msg_" + secrets.token_hex(16)


def _fresh(stamp: str | None, tolerance: int, now: Callable[[], float]) -> bool:
    if stamp is None or not _ascii_digits(stamp):
        return False
    return abs(now() - int(stamp)) <= tolerance


def _readable(header: str) -> bool:
    """Short ASCII only: a signature header longer or odder is refused unread."""
    return len(header) <= MAX_HEADER and header.isascii()


def _verify_stalwart(header: str, body: bytes, secret: str, tolerance: int, now: Callable[[], float]) -> bool:
    if not _readable(header):
        return False
    stamp, candidates = None, []
    for part in header.split(","):
        key, _, value = part.strip().partition("=")
        if key == "t":
            stamp = value
        elif key == "v1":
            candidates.append(value)
    if not candidates or not _fresh(stamp, tolerance, now):
        return False
    expected = hmac.new(secret.encode(), f"{stamp}.".encode() + body, hashlib.sha256).hexdigest()
    # Every candidate is compared, so the time taken does not say which one matched.
    matches = [hmac.compare_digest(expected.encode(), c.encode()) for c in candidates]
    return any(matches)


def _verify_standard(header: str, msg_id: str | None, stamp: str | None, body: bytes, secret: str,
                     tolerance: int, now: Callable[[], float]) -> bool:
    if not msg_id or not _readable(header) or not _readable(msg_id) or not _fresh(stamp, tolerance, now):
        return False
    expected = standard_sign(msg_id, int(str(stamp)), body, secret)
    candidates = [c for c in header.split(" ") if c.startswith("v1,")]
    matches = [hmac.compare_digest(expected.encode(), c.encode()) for c in candidates]
    return any(matches)


def verify(header: str | Mapping[str, str] | None, body: bytes, secret: str, tolerance: int = DEFAULT_TOLERANCE, *,
           now: Callable[[], float] = time.time, msg_id: str | None = None, timestamp: str | None = None) -> bool:
    """True only for a valid signature made within ``tolerance`` seconds.

    ``header`` is a ``Stalwart-Signature`` value, a ``webhook-signature``
    value (then pass ``msg_id`` and ``timestamp`` from ``webhook-id`` and
    ``webhook-timestamp``), or a request's whole headers, from which either
    signature is taken.
    """
    if not header or not secret:
        return False
    if isinstance(header, Mapping):
        headers = {str(k).lower(): str(v) for k, v in header.items()}
        if HEADER.lower() in headers:
            return _verify_stalwart(headers[HEADER.lower()], body, secret, tolerance, now)
        if STANDARD_SIGNATURE in headers:
            return _verify_standard(headers[STANDARD_SIGNATURE], headers.get(STANDARD_ID),
                                    headers.get(STANDARD_TIMESTAMP), body, secret, tolerance, now)
        return False
    if header.startswith("v1,"):
        return _verify_standard(header, msg_id, timestamp, body, secret, tolerance, now)
    return _verify_stalwart(header, body, secret, tolerance, now)


def delivery_body(type_: str, thread: str, interrupt: dict[str, Any]) -> bytes:
    """What a delivery posts: ``{"type", "thread", "interrupt"}`` as compact JSON."""
    return json.dumps({"type": type_, "thread": thread, "interrupt": interrupt}, separators=(",", ":")).encode()


class Webhook:
    """An ``on_interrupt`` callable: POSTs each new pause as signed JSON.

    Under ``stalwart serve`` deliveries leave from the outbox
    (``approvals.outbox``), which calls ``send`` with the delivery's stable
    id and reads the answer (410, 429/503 with Retry-After); called directly,
    a failure raises.
    """

    def __init__(self, url: str, secret: str, *, timeout: float = 5.0) -> None:
        if not isinstance(secret, str) or not secret.strip():
            raise ValueError(BLANK_SECRET)
        length = len(standard_key(secret)) if secret.startswith(STANDARD_PREFIX) else len(secret.encode())
        if length < MIN_SECRET_BYTES:
            raise ValueError(SHORT_SECRET.format(minimum=MIN_SECRET_BYTES, length=length, make=MAKE_ONE))
        self.url = url
        self.secret = secret
        self.timeout = timeout

    @property
    def key(self) -> str:
        """Who this is, across processes: the outbox stores it with each delivery."""
        return "webhook:" + self.url

    def send(self, body: bytes, *, msg_id: str, now: Callable[[], float] = time.time) -> httpx.Response:
        headers = {"Content-Type": "application/json", HEADER: sign(body, self.secret, now=now),
                   **standard_headers(msg_id, body, self.secret, now=now)}
        return httpx.post(self.url, content=body, timeout=self.timeout, headers=headers)

    def __call__(self, thread: str, interrupt: dict[str, Any], *, type_: str = "waiting") -> None:
        response = self.send(delivery_body(type_, thread, interrupt), msg_id=new_message_id())
        response.raise_for_status()

    def __repr__(self) -> str:
        return f"Webhook({self.url!r})"
