"""The verdict table (docs/http-api.md, "Receipts and verdicts") and the probe's matching, as pure functions."""

from __future__ import annotations

import pytest

from threads import verdicts as V


@pytest.mark.parametrize(("transport", "matches", "mismatch", "expected"), [
    # another request hash or key for the same operation: stop, whatever else is known
    ("ok", 1, True, V.UNSAFE_RETRY),
    (None, None, True, V.UNSAFE_RETRY),
    # the probe decides when it can answer
    ("ok", 2, False, V.DUPLICATE_EFFECT),
    ("timeout", 3, False, V.DUPLICATE_EFFECT),
    ("ok", 1, False, V.VERIFIED_APPLIED),
    ("timeout", 1, False, V.VERIFIED_APPLIED),
    (None, 1, False, V.VERIFIED_APPLIED),
    ("ok", 0, False, V.FALSE_SUCCESS),
    ("timeout", 0, False, V.VERIFIED_NOT_APPLIED),
    ("no_response", 0, False, V.VERIFIED_NOT_APPLIED),
    (None, 0, False, V.VERIFIED_NOT_APPLIED),
    # no probe, or one that could not answer
    ("ok", None, False, V.VERIFIED_APPLIED),
    ("refused", None, False, V.VERIFIED_NOT_APPLIED),
    ("error", None, False, V.VERIFIED_NOT_APPLIED),
    ("timeout", None, False, V.INDETERMINATE),
    ("no_response", None, False, V.INDETERMINATE),
    (None, None, False, V.INDETERMINATE),
])
def test_the_verdict_table(transport, matches, mismatch, expected):
    assert V.verdict(transport=transport, matches=matches, mismatch=mismatch) == expected


def test_there_are_exactly_the_six_verdicts_spec_names():
    assert set(V.VERDICTS) == {"verified_applied", "verified_not_applied", "indeterminate", "duplicate_effect",
                               "false_success", "unsafe_retry"}


PAID = {"tool": "get_order", "arguments": {"order_id": "$args.order_id"}, "match": {"status": "paid"}}


@pytest.mark.parametrize(("verify", "found", "expected"), [
    (PAID, {"order_id": "4411", "status": "paid"}, 1),
    (PAID, {"order_id": "4411", "status": "unpaid"}, 0),
    (PAID, None, 0),
    ({**PAID, "match": {"order_id": "$args.order_id", "total": "$args.amount"}}, {"order_id": 4411, "total": "40.00"}, 1),
    ({**PAID, "match": {"id": "$result.charge_id"}}, [{"id": "ch-4411"}, {"id": "ch-1"}, {"id": "ch-4411"}], 2),
    ({**PAID, "match": {"ref": "$args.order_id"}, "items": "entries"}, {"entries": [{"ref": "4411"}]}, 1),
    ({**PAID, "match": {"ref": "$args.order_id"}, "items": "entries"}, {"entries": []}, 0),
])
def test_a_probe_counts_the_answers_whose_every_match_key_is_equal(verify, found, expected):
    args = {"order_id": "4411", "amount": 40}
    assert V.probe_matches(verify, found, args, {"charge_id": "ch-4411"}) == expected


def test_probe_arguments_resolve_args_and_result_references():
    verify = {"tool": "t", "arguments": {"a": "$args.x", "b": "$result.y.z", "c": 3}}
    assert V.probe_arguments(verify, {"x": 1}, {"y": {"z": "q"}}) == {"a": 1, "b": "q", "c": 3}
