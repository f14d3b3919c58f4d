"""A pronoun or possessive points back to the previous call (issue 13, rule one).

"show rental r-88 and then show its vehicle" was planned as ``search_vehicles()``
(every vehicle): a wrong call. "its" now takes the previous result's field
that identifies the thing named, or the turn is unread.
"""

from __future__ import annotations

import pytest

from tests.selector.builders import FLEET_WORDS, S, calls, fleet_tools, make_tool, plan_of


@pytest.mark.parametrize(("language", "text"), [
    ("en", "show rental r-88 and then show its vehicle"),
    ("en", "get rental r-88, then display its vehicle"),
    ("pt-BR", "mostre a locação r-88 e depois mostre o veículo dela"),
    ("pt-BR", "mostre a locação r-88 e mostre o carro dela"),
])
def test_its_thing_is_the_result_field_that_identifies_it(language: str, text: str) -> None:
    got = plan_of(fleet_tools(), text, language, FLEET_WORDS)
    assert calls(got) == [("get_rental", {"rental_id": "r-88"}),
                          ("get_vehicle", {"vin": "result:1.vin"})]


@pytest.mark.parametrize(("language", "text"), [
    ("en", "show rental r-88 and then show its vehicle"),
    ("pt-BR", "mostre a locação r-88 e depois mostre o veículo dela"),
])
def test_a_possessive_never_plans_a_call_that_takes_nothing_back(language: str, text: str) -> None:
    # The same catalogue, but the rental's result has no vin: nothing tells which
    # vehicle, so the turn is unread rather than a list of every vehicle.
    tools = [t for t in fleet_tools() if t.name != "get_rental"]
    tools.append(make_tool("get_rental", rental_id=S, result=("rental_id", "total")))
    assert not plan_of(tools, text, language, FLEET_WORDS).read


@pytest.mark.parametrize(("language", "text", "want"), [
    ("en", "show rental r-88 and extend it by 3 days",
     [("get_rental", {"rental_id": "r-88"}), ("extend_rental", {"rental_id": "r-88", "days": 3})]),
    ("pt-BR", "mostre a locação r-88 e prorrogue ela por 3 dias",
     [("get_rental", {"rental_id": "r-88"}), ("extend_rental", {"rental_id": "r-88", "days": 3})]),
])
def test_a_pronoun_still_carries_the_value_typed(language: str, text: str,
                                                 want: list[object]) -> None:
    words = FLEET_WORDS
    if language == "pt-BR":
        words = type(FLEET_WORDS)(words={"pt-BR": {**FLEET_WORDS.words["pt-BR"],
                                                   "prorrogar": "extend"}})
    assert calls(plan_of(fleet_tools(), text, language, words)) == want
