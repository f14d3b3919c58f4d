"""Service tier: the Python API's privileges reach the check and stay on the run."""

from __future__ import annotations

from pathlib import Path

import pytest

from examples.shop import tools as shop
from threads.models import Run

pytestmark = pytest.mark.django_db(transaction=True)

AGENT = """
agents:
  - name: Refunds
    language: en
    tools:
      refund_card:
        python: examples.shop.tools:refund_card
        write: true
        privilege: refunds
"""


@pytest.fixture
def refunds_desk(db: None, shop_dir: Path, tmp_path: Path):  # type: ignore[no-untyped-def]
    from stalwart_site.desk import Desk

    path = tmp_path / "refunds.yaml"
    path.write_text(AGENT, encoding="utf-8")
    return Desk(path)


def test_without_the_privilege_the_call_is_refused_with_its_rule(refunds_desk):
    reply = refunds_desk.say("t-p1", "refund 40 on order 4411", privileges=["reports"])
    assert reply.waiting == [] and reply.refusals[0]["rule"] == "privilege:refunds"
    assert shop.charges() == []


def test_with_it_the_call_pauses_and_the_approval_runs_it_with_the_stored_privileges(refunds_desk):
    reply = refunds_desk.say("t-p2", "refund 40 on order 4411", privileges=["refunds"])
    assert reply.refusals == [] and reply.waiting[0]["tool"] == "refund_card"
    assert Run.objects.get(pk=reply.data["run"]).privileges == ["refunds"]
    done = refunds_desk.confirm("t-p2", "approve")
    assert done.steps[0]["status"] == "succeeded"
    assert [c["kind"] for c in shop.charges("4411")] == ["refund"]


def test_privileges_is_a_list_not_a_string(refunds_desk):
    with pytest.raises(TypeError):
        refunds_desk.say("t-p3", "refund 40 on order 4411", privileges="refunds")


def test_a_context_value_is_checked_like_a_typed_one(desk):
    reply = desk.say("t-ctx", "charge 40 to the order", context={"order_id": "4411"})
    pause = reply.waiting[0]
    assert {"name": "order_id", "value": "4411", "origin": "context"} in pause["arguments"]
    assert pause["reasons"] == ["write"]  # no argument_origin reason: not the model's or the agent's
    assert Run.objects.get(pk=reply.data["run"]).privileges == []
