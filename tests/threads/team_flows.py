"""Steps functions and counting tools for the team-steps tests (docs/agent-file.md, "Team steps (steps:)").

Every send of a tool here is written to ``sends.txt`` in the data folder, so a
test (in this process or against a server) can tell a call sent twice from a
call answered from the journal.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from examples.shop import tools as shop

AGENT = """
agents:
  - name: Team
    language: en
    steps: {steps}
    tools:
      get_order:
        python: tests.threads.team_flows:get_order
        read: true
      charge_card:
        python: tests.threads.team_flows:charge_card
        write: true
        idempotency: {{argument: idempotency_key}}
      slow_charge:
        python: tests.threads.team_flows:slow_charge
        write: true
      plain_charge:
        python: tests.threads.team_flows:plain_charge
        write: true
      refund_card:
        python: tests.threads.team_flows:refund_card
        write: true
        privilege: refunds
    {extra}
"""


def agent_yaml(steps: str, extra: str = "") -> str:
    return AGENT.format(steps=f"tests.threads.team_flows:{steps}", extra=extra)


def sends_path() -> Path:
    return Path(os.environ.get("STALWART_DATA_DIR") or ".stalwart") / "sends.txt"


def sends() -> list[str]:
    path = sends_path()
    return path.read_text(encoding="utf-8").split() if path.exists() else []


def _sent(name: str) -> None:
    with sends_path().open("a", encoding="utf-8") as f:
        f.write(name + "\n")


def get_order(order_id: str) -> dict[str, Any]:
    """Show an order."""
    _sent(f"get_order:{order_id}")
    return shop.get_order(order_id)


def charge_card(order_id: str, amount: float, idempotency_key: str | None = None) -> dict[str, Any]:
    """Charge an order's card."""
    _sent(f"charge_card:{order_id}")
    return shop.charge_card(order_id, amount, idempotency_key)


def slow_charge(order_id: str, amount: float) -> dict[str, Any]:
    """Charge an order's card, slowly (so two answers overlap)."""
    import time

    time.sleep(0.4)
    return charge_card(order_id, amount)


def plain_charge(order_id: str, amount: float) -> dict[str, Any]:
    """Charge an order's card (no idempotency key: never resent by itself)."""
    return charge_card(order_id, amount)


def refund_card(order_id: str, amount: float) -> dict[str, Any]:
    """Refund an order's card."""
    _sent(f"refund_card:{order_id}")
    return shop.refund_card(order_id, amount)


def _id(result: Any) -> str:
    return result["charge_id"] if result else "skipped"


def two_charges(run: Any, turn: Any) -> str:
    first, second = run.call_all([
        ("charge_card", {"order_id": "4411", "amount": 40}),
        ("charge_card", {"order_id": "5001", "amount": 99.9}),
    ])
    return f"charged {_id(first)} and {_id(second)}"


def read_then_charge(run: Any, turn: Any) -> str:
    order = run.call("get_order", order_id=turn.context.get("order", "4411"))
    charged = run.call("charge_card", order_id=order["order_id"], amount=float(order["total"]))
    return f"{turn.language}: {order['order_id']} {_id(charged)}"


def refund_one(run: Any, turn: Any) -> str:
    refunded = run.call("refund_card", order_id="4411", amount=40)
    return "refunded" if refunded else "not refunded"


CHANGING = {"runs": 0}


def changes_its_mind(run: Any, turn: Any) -> str:
    """Not deterministic: calls another order on its second run."""
    CHANGING["runs"] += 1
    order_id = "4411" if CHANGING["runs"] == 1 else "5001"
    charged = run.call("charge_card", order_id=order_id, amount=40)
    return _id(charged)


def swallows_everything(run: Any, turn: Any) -> str:
    """A team's blanket except cannot swallow the wait."""
    try:
        charged = run.call("charge_card", order_id="4411", amount=40)
    except Exception:  # noqa: BLE001 - the point of the test
        return "swallowed"
    return _id(charged)


def breaks(run: Any, turn: Any) -> str:
    run.call("get_order", order_id="4411")
    raise ValueError("no such thing")



def two_slow_charges(run: Any, turn: Any) -> str:
    first, second = run.call_all([
        ("slow_charge", {"order_id": "4411", "amount": 40}),
        ("slow_charge", {"order_id": "5001", "amount": 99.9}),
    ])
    return f"charged {_id(first)} and {_id(second)}"


def charge_then_read(run: Any, turn: Any) -> str:
    charged = run.call("plain_charge", order_id="4411", amount=40)
    order = run.call("get_order", order_id="4411")
    return f"{'charged' if charged else 'not charged'}; {order['status']}"


def thinks_then_charges(run: Any, turn: Any) -> str:
    """The first run of it thinks for two minutes (a worker killed meanwhile
    holds the run's lease); every later run goes straight on."""
    import time

    marker = sends_path().parent / "thinking"
    if not marker.exists():
        marker.write_text("thinking", encoding="utf-8")
        time.sleep(120)
    charged = run.call("charge_card", order_id="4411", amount=40)
    return f"charged {_id(charged)}"
