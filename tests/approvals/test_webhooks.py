"""Signatures of webhooks and signed resumes (docs/operating.md, "Webhooks"), pure: sign, verify, tolerance,
rotation."""

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


def standard(msg_id: str, t: float, secret: str = "s") -> dict[str, str]:
    from approvals.webhooks import standard_headers

    return standard_headers(msg_id, BODY, secret, now=at(t))


def test_a_standard_webhooks_signature_verifies_from_headers_or_from_its_parts():
    headers = standard("msg_1", NOW)
    assert verify(headers, BODY, "s", now=at(NOW + 10))
    assert verify(headers["webhook-signature"], BODY, "s", now=at(NOW), msg_id="msg_1",
                  timestamp=headers["webhook-timestamp"])
    # Several signatures, space-separated: a rotated secret still verifies.
    rotated = {**headers, "webhook-signature": standard("msg_1", NOW, "new")["webhook-signature"] + " "
               + headers["webhook-signature"]}
    assert verify(rotated, BODY, "s", now=at(NOW)) and verify(rotated, BODY, "new", now=at(NOW))


@pytest.mark.parametrize(
    ("change", "clock"),
    [
        ({"webhook-id": "msg_2"}, NOW),           # the signature covers the id
        ({"webhook-timestamp": str(int(NOW) + 1)}, NOW),
        ({}, NOW + 301),                          # too old
        ({"webhook-timestamp": "soon"}, NOW),
        ({"webhook-signature": "v1,AAAA"}, NOW),
        ({"webhook-signature": "v2,garbage"}, NOW),
    ],
)
def test_what_standard_signatures_do_not_verify(change, clock):
    headers = {**standard("msg_1", NOW), **change}
    assert not verify(headers, BODY, "s", now=at(clock))
    assert not verify({}, BODY, "s", now=at(NOW))


def test_a_webhook_needs_a_secret():
    from approvals.webhooks import Webhook

    with pytest.raises(ValueError):
        Webhook("http://127.0.0.1:9/hook", "  ")
