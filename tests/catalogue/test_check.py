"""Pure tier: the check (SPEC §6)."""

from __future__ import annotations

import pytest

from catalogue.check import SENTENCE_UNKNOWN, SENTENCE_WITHDRAWN, check_call
from catalogue.plan import Argument
from catalogue.tools import Tool

SCHEMA = {"type": "object", "properties": {"order_id": {"type": "string"}, "amount": {"type": "number"}},
          "required": ["order_id", "amount"]}


def make_tool(**overrides: object) -> Tool:
    fields: dict[str, object] = {"name": "charge_card", "kind": "write", "input_schema": SCHEMA}
    fields.update(overrides)
    return Tool(**fields)  # type: ignore[arg-type]


def args(origin: str = "typed") -> list[Argument]:
    return [Argument("amount", 40, origin), Argument("order_id", "4411", "typed")]


def test_a_write_waits_with_reason_write():
    verdict = check_call(name="charge_card", tool=make_tool(), arguments=args())
    assert (verdict.action, verdict.reasons, verdict.irreversible) == ("confirm", ("write",), False)


def test_a_read_runs():
    assert check_call(name="get", tool=make_tool(name="get", kind="read"), arguments=args()).action == "run"


def test_withdrawn_comes_before_everything_even_an_unknown_tool():
    verdict = check_call(name="charge_card", tool=None, arguments=args(), withdrawn={"charge_card"})
    assert (verdict.action, verdict.rule) == ("refuse", "withdrawn")
    assert verdict.sentence == SENTENCE_WITHDRAWN.format(tool="charge_card")


def test_an_unknown_tool_is_refused():
    verdict = check_call(name="nope", tool=None, arguments=[])
    assert (verdict.rule, verdict.sentence) == ("unknown_tool", SENTENCE_UNKNOWN.format(tool="nope"))


def test_a_missing_privilege_is_refused_with_its_name():
    verdict = check_call(name="charge_card", tool=make_tool(privilege="billing"), arguments=args())
    assert verdict.rule == "privilege:billing"
    allowed = check_call(name="charge_card", tool=make_tool(privilege="billing"), arguments=args(),
                         privileges={"billing"})
    assert allowed.action == "confirm"


@pytest.mark.parametrize("bad", [[Argument("order_id", "4411")], [Argument("amount", "forty"),
                                                                    Argument("order_id", "4411")]])
def test_arguments_that_fail_the_schema_are_refused(bad):
    verdict = check_call(name="charge_card", tool=make_tool(), arguments=bad)
    assert verdict.action == "refuse" and verdict.rule == "arguments" and "charge_card" in verdict.sentence


@pytest.mark.parametrize("origin", ["model", "agent"])
def test_untrusted_origins_are_reasons(origin):
    verdict = check_call(name="charge_card", tool=make_tool(), arguments=args(origin))
    assert verdict.reasons == ("write", "argument_origin: amount")


def test_a_result_of_an_untrusted_read_is_a_reason_and_taint_is_named():
    verdict = check_call(name="charge_card", tool=make_tool(), arguments=args("result:1"),
                         tainted_by=["read_inbox"], untrusted_steps={1})
    assert verdict.reasons == ("write", "argument_origin: amount", "tainted_call: untrusted:read_inbox")


def test_an_egress_read_confirms_only_when_tainted():
    tool = make_tool(name="fetch", kind="read", egress=True)
    assert check_call(name="fetch", tool=tool, arguments=args()).action == "run"
    assert check_call(name="fetch", tool=tool, arguments=args(), tainted_by=["read_inbox"]).action == "confirm"


def test_irreversible_is_a_flag_not_a_reason():
    verdict = check_call(name="charge_card", tool=make_tool(irreversible=True), arguments=args())
    assert verdict.irreversible is True and verdict.reasons == ("write",)
