"""Signatures of SPEC §11, pure: sign, verify, tolerance, rotation."""

from __future__ import annotations

import pytest

from approvals.webhooks import sign, verify

BODY = b'{"interrupt_id":"p-1"}'
NOW = 1_800_000_000.0


def at(t: float):  # noqa: ANN201 - a clock for the test
    return lambda: t


def test_a_fresh_signature_verifies():
    assert verify(sign(BODY, "s", now=at(NOW)), BODY, "s", now=at(NOW + 10))


@pytest.mark.parametrize(
    ("header", "body", "secret", "clock"),
    [
        (None, BODY, "s", NOW),
        ("", BODY, "s", NOW),
        ("garbage", BODY, "s", NOW),
        ("t=abc,v1=00", BODY, "s", NOW),
        ("PLACEHOLDER", BODY + b" ", "s", NOW),          # the body changed
        ("PLACEHOLDER", BODY, "other", NOW),             # another secret
        ("PLACEHOLDER", BODY, "s", NOW + 301),           # too old: a replay
        ("PLACEHOLDER", BODY, "s", NOW - 301),           # from the future
        ("PLACEHOLDER", BODY, "", NOW),                  # no secret configured
    ],
)
def test_what_does_not_verify(header, body, secret, clock):
    if header == "PLACEHOLDER":
        header = sign(BODY, "s", now=at(NOW))
    assert not verify(header, body, secret, now=at(clock))


def test_several_v1_values_allow_rotating_the_secret():
    old = sign(BODY, "old", now=at(NOW))
    new = sign(BODY, "new", now=at(NOW))
    both = f"{new},v1={old.split('v1=')[1]}"
    assert verify(both, BODY, "old", now=at(NOW)) and verify(both, BODY, "new", now=at(NOW))
