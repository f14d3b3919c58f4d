"""Approval policies, pure (docs/policies.md): read from the agent file with the place of each mistake,
matched against a call, combined, and linted by ``stalwart verify``."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
import yaml

from catalogue.agentfile import AgentFileError
from catalogue.agentfile.policies import policy_entries
from catalogue.check import check_call
from catalogue.commands import verify_main
from catalogue.plan import Argument
from catalogue.policies import Call, policy_lints, rules_for
from catalogue.tools import Tool

ROOT = Path(__file__).resolve().parents[2]
HERE = Path("agent.yaml")
CHARGE = Tool(name="charge_card", kind="write", input_schema={
    "type": "object", "properties": {"order_id": {"type": "string"}, "amount": {"type": "number"}},
    "required": ["order_id", "amount"]})
REFUND = Tool(name="refund_card", kind="write", irreversible=True, input_schema=CHARGE.input_schema)
SEARCH = Tool(name="search_orders", kind="read", input_schema={
    "type": "object", "properties": {"customer": {"type": "string"}}})
SEND = Tool(name="send_receipt", kind="write", egress=True, input_schema={
    "type": "object", "properties": {"order_id": {"type": "string"}}})
TOOLS = [CHARGE, REFUND, SEARCH, SEND]


def policies(text: str) -> Any:
    return policy_entries(HERE, "agents[0].policies", yaml.safe_load(text))


def args(**values: Any) -> list[Argument]:
    return [Argument(name=k, value=v, origin="typed") for k, v in values.items()]


def verdict(text: str, tool: Tool = CHARGE, arguments: list[Argument] | None = None, **kw: Any):  # type: ignore[no-untyped-def]
    arguments = arguments if arguments is not None else args(order_id="4411", amount=600)
    return check_call(name=tool.name, tool=tool, arguments=arguments, policies=policies(text), **kw)


SHOP = """
- name: big-charges
  when: {tool: charge_card, args: {amount: {gt: 500}}}
  approvers: {quorum: 2, group: finance}
  deadline: 3600
  on_timeout: refuse
  remind_before: 600
- name: huge
  when: {tool: [charge_card, refund_card], args: {amount: {gt: 5000}}}
  refuse: {en: 'Over 5,000 goes through finance.', pt-BR: 'Acima de 5.000 passa pelo financeiro.'}
- name: model-searches
  when: {tool: search_orders, origin: {customer: [model, agent]}}
  confirm: true
"""


def test_a_charge_over_the_threshold_waits_for_two_of_finance_with_the_policy_as_a_reason():
    v = verdict(SHOP)
    assert v.action == "confirm" and v.reasons == ("write", "policy:big-charges")
    assert (v.rules.quorum, v.rules.groups, v.rules.deadline, v.rules.on_timeout, v.rules.remind_before) == (
        2, ("finance",), 3600.0, "refuse", 600.0)
    assert v.rules.approvals() == {"needed": 2, "given": [], "group": "finance"}


def test_a_charge_at_the_threshold_is_not_covered_and_waits_as_any_write():
    v = verdict(SHOP, arguments=args(order_id="4411", amount=500))
    assert v.action == "confirm" and v.reasons == ("write",) and v.rules.names == ()


def test_over_the_ceiling_the_policy_refuses_in_the_run_language_and_the_refusal_wins():
    v = verdict(SHOP, arguments=args(order_id="4411", amount=6000), language="pt-BR")
    assert (v.action, v.rule, v.sentence) == ("refuse", "policy:huge", "Acima de 5.000 passa pelo financeiro.")
    assert verdict(SHOP, arguments=args(order_id="4411", amount=6000)).sentence == "Over 5,000 goes through finance."


def test_a_refund_over_the_ceiling_is_refused_too_and_one_under_it_only_waits():
    assert verdict(SHOP, tool=REFUND, arguments=args(order_id="1", amount=5001)).action == "refuse"
    under = verdict(SHOP, tool=REFUND, arguments=args(order_id="1", amount=4999))
    assert under.action == "confirm" and under.reasons == ("write",)


def test_a_read_with_a_model_written_argument_waits_and_one_typed_runs():
    model = [Argument(name="customer", value="c-208", origin="model")]
    v = verdict(SHOP, tool=SEARCH, arguments=model)
    assert (v.action, v.reasons) == ("confirm", ("policy:model-searches",))
    assert verdict(SHOP, tool=SEARCH, arguments=args(customer="c-208")).action == "run"


def test_a_withdrawn_tool_is_still_refused_as_withdrawn_before_any_policy():
    v = verdict(SHOP, withdrawn={"charge_card"}, arguments=args(order_id="4411", amount=6000))
    assert v.rule == "withdrawn"


def test_several_policies_combine_the_largest_quorum_every_group_and_the_shortest_deadline():
    v = verdict("""
- {name: a, when: {tool: charge_card}, approvers: {quorum: 3, group: finance}, deadline: 900, on_timeout: keep}
- {name: b, when: {kind: write}, approvers: {quorum: 2, group: audit}, deadline: 600, on_timeout: refuse,
   remind_before: 60}
""")
    assert v.reasons == ("write", "policy:a", "policy:b")
    assert (v.rules.quorum, v.rules.groups, v.rules.deadline, v.rules.on_timeout, v.rules.remind_before) == (
        3, ("finance", "audit"), 600.0, "refuse", 60.0)
    assert v.rules.approvals()["group"] == ["finance", "audit"]
    assert v.rules.timing()["rule"] == "policy:b"


@pytest.mark.parametrize(("when", "call", "covered"), [
    ({"tool": "refund_*"}, {"tool": REFUND}, True),
    ({"tool": "refund_*"}, {"tool": CHARGE}, False),
    ({"declared": "irreversible"}, {"tool": REFUND}, True),
    ({"declared": ["irreversible", "egress"]}, {"tool": REFUND}, False),
    ({"declared": "egress"}, {"tool": SEND}, True),
    ({"kind": "read"}, {"tool": CHARGE}, False),
    ({"tainted": True}, {"tool": CHARGE, "tainted": True}, True),
    ({"tainted": True}, {"tool": CHARGE}, False),
    ({"door": "widget"}, {"tool": CHARGE, "door": "widget"}, True),
    ({"door": ["mcp", "agui"]}, {"tool": CHARGE, "door": "http"}, False),
    ({"door": "langgraph"}, {"tool": CHARGE, "door": "langchain"}, True),
    ({"args": {"amount": {"ge": 600, "le": 600}}}, {"tool": CHARGE}, True),
    ({"args": {"amount": {"lt": 600}}}, {"tool": CHARGE}, False),
    ({"args": {"amount": {"eq": 600}}}, {"tool": CHARGE, "amount": "600.00"}, True),
    ({"args": {"amount": {"gt": 500}}}, {"tool": CHARGE, "amount": "a lot"}, False),
    ({"args": {"order_id": {"in": ["4411", "4412"]}}}, {"tool": CHARGE}, True),
    ({"args": {"order_id": {"ne": "4411"}}}, {"tool": CHARGE}, False),
    ({"args": {"order_id": {"matches": "^44"}}}, {"tool": CHARGE}, True),
    ({"args": {"order_id": {"eq": 4411}}}, {"tool": CHARGE}, True),
    ({"args": {"missing": {"ne": "x"}}}, {"tool": CHARGE}, False),
    ({"origin": {"amount": ["result"]}}, {"tool": CHARGE, "origin": "result:1"}, True),
    ({"origin": {"amount": ["model"]}}, {"tool": CHARGE}, False),
])
def test_each_condition_of_when_holds_only_when_it_should(when, call, covered):
    tool = call["tool"]
    arguments = [Argument(name="order_id", value="4411", origin="typed"),
                 Argument(name="amount", value=call.get("amount", 600), origin=call.get("origin", "typed"))]
    found = rules_for(policies(yaml.safe_dump([{"name": "p", "when": when, "confirm": True}])),
                      Call(tool=tool, arguments=arguments, tainted=call.get("tainted", False),
                           door=call.get("door", "")))
    assert (found.names == ("p",)) is covered


@pytest.mark.parametrize(("text", "place", "reason"), [
    ("{name: p}", "agents[0].policies", "must be a list"),
    ("[{when: {tool: x}, confirm: true}]", "agents[0].policies[0].name", "every policy needs a name"),
    ("[{name: p, confirm: true}]", "agents[0].policies[0].when", "must say which calls"),
    ("[{name: p, when: {tool: x}}]", "agents[0].policies[0]", "the policy asks nothing"),
    ("[{name: p, when: {tool: x}, approve: true}]", "agents[0].policies[0].approve", "unknown key 'approve'"),
    ("[{name: p, when: {tol: x}, confirm: true}]", "agents[0].policies[0].when.tol", "unknown key 'tol'"),
    ("[{name: p, when: {tool: x}, approvers: {quorum: 0}}]", "agents[0].policies[0].approvers.quorum", "from 1 to 5"),
    ("[{name: p, when: {tool: x}, approvers: {quorum: 6}}]", "agents[0].policies[0].approvers.quorum", "from 1 to 5"),
    ("[{name: p, when: {tool: x}, approvers: {quorum: true}}]", "agents[0].policies[0].approvers.quorum",
     "from 1 to 5"),
    ("[{name: p, when: {tool: x}, approvers: {group: ''}}]", "agents[0].policies[0].approvers.group",
     "must name a staff group"),
    ("[{name: p, when: {args: {amount: {gte: 5}}}, confirm: true}]", "agents[0].policies[0].when.args.amount.gte",
     "'gte' is not one of"),
    ("[{name: p, when: {args: {amount: {gt: lots}}}, confirm: true}]", "agents[0].policies[0].when.args.amount.gt",
     "compares with a number"),
    ("[{name: p, when: {args: {id: {matches: '('}}}, confirm: true}]", "agents[0].policies[0].when.args.id.matches",
     "is not a regular expression"),
    ("[{name: p, when: {door: email}, confirm: true}]", "agents[0].policies[0].when.door", "'email' is not one of"),
    ("[{name: p, when: {declared: fast}, confirm: true}]", "agents[0].policies[0].when.declared",
     "'fast' is not one of"),
    ("[{name: p, when: {tool: x}, deadline: 0}]", "agents[0].policies[0].deadline", "positive number"),
    ("[{name: p, when: {tool: x}, confirm: true, on_timeout: refuse}]", "agents[0].policies[0].on_timeout",
     "give a deadline"),
    ("[{name: p, when: {tool: x}, deadline: 60, on_timeout: run}]", "agents[0].policies[0].on_timeout",
     "'run' is not one of"),
    ("[{name: p, when: {tool: x}, deadline: 60, remind_before: 60}]", "agents[0].policies[0].remind_before",
     "must come before a deadline"),
    ("[{name: p, when: {tool: x}, refuse: ''}]", "agents[0].policies[0]", "the policy asks nothing"),
    ("[{name: p, when: {tool: x}, refuse: {fr: non}}]", "agents[0].policies[0].refuse", "'fr' is not a language"),
    ("[{name: p, when: {tool: x}, confirm: yes please}]", "agents[0].policies[0].confirm", "true or false"),
    ("[{name: p, when: {tool: x}, confirm: true}, {name: p, when: {tool: y}, confirm: true}]",
     "agents[0].policies[1].name", "another policy is called 'p'"),
])
def test_a_policy_that_cannot_be_read_is_refused_with_its_place_and_reason(text, place, reason):
    with pytest.raises(AgentFileError) as refused:
        policies(text)
    assert refused.value.place == place and reason in refused.value.reason


def test_a_well_formed_policy_is_read_and_shown_as_written():
    (big, huge, searches) = policies(SHOP)
    assert big.to_json() == {"name": "big-charges", "when": {"tool": ["charge_card"], "args": {"amount": {"gt": 500}}},
                             "approvers": {"quorum": 2, "group": "finance"}, "deadline": 3600.0,
                             "on_timeout": "refuse", "remind_before": 600.0}
    assert huge.refusal("en") == "Over 5,000 goes through finance."
    assert searches.to_json()["when"] == {"tool": ["search_orders"], "origin": {"customer": ["agent", "model"]}}


def test_verify_lints_unknown_tools_unknown_arguments_and_comparisons_that_do_not_fit():
    found = policy_lints(policies("""
- {name: typo, when: {tool: [charge_cards, refund_*]}, confirm: true}
- {name: arg, when: {tool: charge_card, args: {amout: {gt: 5}}}, confirm: true}
- {name: misfit, when: {tool: charge_card, args: {order_id: {gt: 3}, amount: {matches: '^1', eq: x}}}, confirm: true}
- {name: fine, when: {tool: charge_card, args: {amount: {gt: 500}, order_id: {in: ['1']}}}, confirm: true}
"""), TOOLS)
    assert [(f.code, f.policy, f.message) for f in found] == [
        ("policy_unknown_tool", "typo", "'charge_cards' names no tool of this agent"),
        ("policy_unknown_argument", "arg", "no tool it covers takes an argument 'amout'"),
        ("policy_comparison_misfit", "misfit", "amount matches: matches text against an argument of type number "
                                               "(charge_card)"),
        ("policy_comparison_misfit", "misfit", "amount eq: 'x' does not fit an argument of type number (charge_card)"),
        ("policy_comparison_misfit", "misfit", "order_id gt: compares a number with an argument of type string "
                                               "(charge_card)"),
    ]


def test_stalwart_verify_prints_policy_errors_and_exits_1_and_the_shop_has_none(tmp_path):
    shop = (ROOT / "examples/shop/agent.yaml").read_text(encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert verify_main([str(ROOT / "examples/shop/agent.yaml")], out=out, err=err) == 0
    assert "policy" not in out.getvalue()
    bad = tmp_path / "agent.yaml"
    bad.write_text(shop.replace("vocabulary: vocabulary.yaml", f"vocabulary: {ROOT / 'examples/shop/vocabulary.yaml'}")
                   .replace("when: {tool: charge_card, args: {amount: {gt: 500}}}",
                            "when: {tool: charge_crad, args: {amount: {gt: 500}}}"), encoding="utf-8")
    out = io.StringIO()
    assert verify_main([str(bad)], out=out, err=err) == 1
    assert "error policy_unknown_tool policy:big-charges: 'charge_crad' names no tool of this agent" in out.getvalue()
