"""Why a plan is what it is (issue 13): ``Plan.explain`` and ``stalwart plan --explain``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from catalogue.plan import Explanation, Plan
from stalwart_site.cli import main
from tests.selector.builders import (
    COURIER_WORDS,
    FLEET_WORDS,
    courier_plan,
    courier_tools,
    fleet_tools,
    plan_of,
)

UNSEEN = Path(__file__).resolve().parent / "unseen"


def rules(plan: Plan) -> dict[tuple[int | None, str | None], str]:
    return {(e.step, e.argument): e.rule for e in plan.explain}


@pytest.mark.parametrize(("language", "text", "context", "step", "argument", "rule"), [
    ("en", "show parcel TRK-1", {}, 1, "tracking_code",
     "typed: after the thing noun (identifier, described as its identifier)"),
    ("en", "send a notice for parcel TRK-1 to ana@example.com", {}, 1, "tracking_code",
     "typed: after 'parcel' (its identifier in the catalogue)"),
    ("en", "send a notice for parcel TRK-1 to ana@example.com", {}, 1, "email",
     "typed: e-mail to the e-mail argument"),
    ("en", "find products named Lamp", {}, 1, "name", "typed: named by 'named'"),
    ("pt-BR", "busque produtos chamados Abajur", {}, 1, "name", "typed: named by 'chamados'"),
    ("en", "move parcel TRK-1 from depot D-1 to depot D-2", {}, 1, "to_depot",
     "typed: after 'depot', direction 'to'"),
    ("en", "return parcel TRK-1: customer refused it", {}, 1, "reason",
     "typed: free text after ':'"),
    ("en", "pack parcel TRK-1 in three boxes", {}, 1, "quantity", "typed: a count of 'boxes'"),
    ("en", "list my parcels", {"customer_id": "c-9"}, 1, "customer_id", "context: my"),
    ("en", "show parcel TRK-1 and then return it", {}, 2, "tracking_code",
     "typed: carried from step 1 via 'it'"),
    ("en", "show parcel TRK-1 and then show its depot", {}, 2, "depot_code", "result:1 via 'its'"),
    ("en", "move parcel TRK-1 to depot D-2", {}, 1, "from_depot",
     "asked: required, and the turn does not give it"),
])
def test_each_argument_says_which_rule_bound_it(language: str, text: str, context: dict[str, str],
                                               step: int, argument: str, rule: str) -> None:
    got = courier_plan(text, language, context=context)
    assert rules(got)[(step, argument)] == rule


def test_each_step_says_why_it_has_its_tool() -> None:
    got = plan_of(fleet_tools(), "mostre a locação r-88 e depois mostre o veículo dela", "pt-BR",
                  FLEET_WORDS)
    assert rules(got)[(2, None)] == (
        "tool get_vehicle: 'show' and 'veículo' (action 'get', thing 'vehicle')")
    assert rules(got)[(2, "vin")] == "result:1 via 'dela' (the field that identifies it)"


@pytest.mark.parametrize(("language", "text", "why"), [
    ("en", "deal with parcel TRK-1", "unread: could not place 'deal' (clause 1 'deal with parcel TRK-1')"),
    ("en", "return parcel TRK-1 Souza", "unread: could not place 'Souza'"),
    ("en", "return parcel", None),
    ("en", "show parcel TRK-1 and then show its manual", "unread: no tool takes clause 2"),
    ("en", "return all parcels", "return_parcel: a write, and the turn asks a question or says 'all'"),
    ("en", "find products named", "unread: could not place 'named'"),
    ("en", "move parcel TRK-1 depot D-1 depot D-2",
     "move_parcel: 'D-1' after 'depot' fits no one argument"),
    ("es", "muestra el paquete TRK-1", "unread: the selector reads en and pt-BR, not 'es'"),
])
def test_an_unread_turn_says_why(language: str, text: str, why: str | None) -> None:
    got = plan_of(courier_tools(), text, language, COURIER_WORDS)
    if why is None:
        assert got.read
        return
    assert not got.read
    (only,) = got.explain
    assert only.step is None and only.argument is None and why in only.rule


def test_the_default_json_has_no_explanation() -> None:
    got = courier_plan("show parcel TRK-1")
    assert "explain" not in got.to_json()
    assert got.to_json(explain=True)["explain"][1] == {
        "step": 1, "argument": "tracking_code",
        "rule": "typed: after the thing noun (identifier, described as its identifier)"}
    # Explanations are not part of a plan's identity.
    assert Plan.unread("en", "why") == Plan.unread("en")
    assert Plan.unread("en", "why").explain == (Explanation(None, None, "unread: why"),)


def test_stalwart_plan_explain(capsys: pytest.CaptureFixture[str]) -> None:
    agent = str(UNSEEN / "fleet" / "agent.yaml")
    assert main(["plan", agent, "show rental r-88 and then show its vehicle", "--language", "en",
                 "--explain"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["calls"][1]["tool"] == "get_vehicle"
    assert {"step": 2, "argument": "vin",
            "rule": "result:1 via 'its' (the field that identifies it)"} in out["explain"]
    assert main(["plan", agent, "lave o carro 9BWZZZ377VT004251", "--explain"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["read"] is False
    assert out["explain"] == [{"step": None, "argument": None, "rule": (
        "unread: could not place 'lave' (clause 1 'lave o carro 9BWZZZ377VT004251')")}]
    assert main(["plan", agent, "show rental r-88", "--language", "en"]) == 0
    assert "explain" not in json.loads(capsys.readouterr().out)
