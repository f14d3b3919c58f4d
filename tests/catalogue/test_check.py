"""Pure tier: the check (catalogue/check.py; docs/agent-file.md, "Declarations")."""

from __future__ import annotations

import pytest

from catalogue.check import SENTENCE_ARGUMENTS, SENTENCE_UNKNOWN, SENTENCE_WITHDRAWN, check_call
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


# Values that would change the address an HTTP tool is called at (issue 26):
# refused by the check, rule `arguments`, with a sentence naming the argument.
HTTP_PLACES = {"order_id": {"in": "path", "name": "order_id"}, "q": {"in": "query", "name": "q"},
               "tenant": {"in": "header", "name": "X-Tenant"}, "note": {"in": "body", "name": "note"}}
HTTP_SCHEMA = {"type": "object", "required": ["order_id"], "properties": {
    "order_id": {"type": "string"}, "q": {"type": "string"}, "tenant": {"type": "string"}, "note": {"type": "string"}}}


def http_tool(kind: str = "read") -> Tool:
    return make_tool(name="get_order", kind=kind, input_schema=HTTP_SCHEMA, binding={"http": {
        "base_url": "http://shop.test", "method": "GET", "path": "/orders/{order_id}", "arguments": HTTP_PLACES}})


def values(**given: str) -> list[Argument]:
    return [Argument(name, value, "reply") for name, value in {"order_id": "4411", **given}.items()]


@pytest.mark.parametrize(("given", "named", "why"), [
    ({"order_id": ".."}, "order_id", "'..' would send the call to another address"),
    ({"order_id": "."}, "order_id", "'.' would send the call to another address"),
    ({"order_id": "4411/../refund"}, "order_id", "a '/' would send the call to another address"),
    ({"order_id": "/"}, "order_id", "a '/' would send the call to another address"),
    ({"order_id": ""}, "order_id", "an empty value would send the call to another address"),
    ({"q": ".."}, "q", "'..' would send the call to another address"),
    ({"tenant": "."}, "tenant", "'.' would send the call to another address"),
    ({"tenant": "t1\r\nX-Admin: yes"}, "tenant", "a header value must be printable ASCII, with no line break"),
])
@pytest.mark.parametrize("kind", ["read", "write"])
def test_a_value_that_would_steer_an_http_call_is_refused_naming_it(given, named, why, kind):
    verdict = check_call(name="get_order", tool=http_tool(kind), arguments=values(**given))
    assert (verdict.action, verdict.rule) == ("refuse", "arguments")
    assert verdict.sentence == SENTENCE_ARGUMENTS.format(tool="get_order", detail=f"{named}: {why}")


@pytest.mark.parametrize("given", [
    {"order_id": "4411"}, {"order_id": "..4411"}, {"order_id": "%2e%2e"}, {"order_id": "a b?c#d"},
    {"q": "a/b"}, {"q": "..."}, {"tenant": "t-1"}, {"note": ".."}, {"note": "a/b"},
])
def test_the_twin_every_other_value_goes_on_to_run(given):
    # The same tool and set-up: only the value changes. A `/` in the query or
    # a `..` in the body is data, encoded (or sent as JSON), never an address.
    assert check_call(name="get_order", tool=http_tool(), arguments=values(**given)).action == "run"


@pytest.mark.parametrize("binding", [{"python": "tools:get_order"}, {"mcp": {"server": "python s.py"}}])
def test_no_value_of_a_python_or_mcp_tool_is_an_address(binding):
    # Their values travel as Python values or JSON, never in a path: `..` is data.
    tool = make_tool(name="get_order", kind="read", input_schema=HTTP_SCHEMA, binding=binding)
    assert check_call(name="get_order", tool=tool, arguments=values(order_id="..")).action == "run"
