"""An edit that is every argument of the call (``PauseAnswer(replace=True)``,
an AG-UI ``editedArgs``, docs/ag-ui.md): a full replacement, checked again by
the engine's rules before anything changes; the console's edit (only the
values it changes) stays as it was."""

from __future__ import annotations

import pytest

from examples.shop import tools as shop
from tests.threads.builders import make_waiting
from threads.engine import PauseAnswer, pause_edit, pauses_answer
from threads.errors import InvalidAnswer
from threads.models import Interrupt, Run

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _shop(shop_dir):  # type: ignore[no-untyped-def]
    return shop_dir


def replace(pause: dict, values: dict[str, str]):  # type: ignore[no-untyped-def, type-arg]
    return pauses_answer(thread_id="t-1", answers=[PauseAnswer(pause=pause["id"], token=pause["token"], edit=values,
                                                               replace=True)],
                         by="AG-UI client", via=Interrupt.Via.AGUI, covering={pause["id"]}, edit_origin="typed")


@pytest.mark.parametrize(("values", "named"), [
    ({"amount": "10"}, "order_id"),  # a required argument left out: refused, never asked for, never kept
    ({"amount": "10", "order_id": "4411", "approved_by": "ana"}, "approved_by"),  # one the tool does not take
])
def test_a_replacement_that_does_not_fit_the_tool_is_refused_naming_the_argument(values, named):
    pause = make_waiting("charge_card", order_id="4411", amount=40)
    with pytest.raises(InvalidAnswer) as refused:
        replace(pause, values)
    body = refused.value.body()
    assert body["rule"] == "arguments" and named in body["detail"] and "still waits" in body["detail"]
    assert list(Interrupt.objects.values_list("id", "status")) == [(pause["id"], "open")]
    assert Run.objects.get().status == "waiting" and shop.charges() == []


def test_a_replacement_is_exactly_the_arguments_given():
    pause = make_waiting("charge_card", order_id="4411", amount=40)
    answers = replace(pause, {"order_id": "5001", "amount": "10"})
    again = answers.answers[0].to_json()["waiting"][0]
    assert again["id"] != pause["id"]
    assert {a["name"]: (a["value"], a["origin"]) for a in again["arguments"]} == {
        "order_id": ("5001", "typed"), "amount": (10, "typed")}
    closed = Interrupt.objects.get(pk=pause["id"])
    assert (closed.status, closed.answer) == ("edited", {"arguments": {"order_id": "5001", "amount": 10}})


def test_the_consoles_edit_still_changes_only_what_it_names():
    pause = make_waiting("charge_card", order_id="4411", amount=40)
    edited = pause_edit(pause_id=pause["id"], token=pause["token"], values={"amount": "35"}, by="ana").to_json()
    assert {a["name"]: a["value"] for a in edited["waiting"][0]["arguments"]} == {"order_id": "4411", "amount": 35}
