"""Agent files with approval policies (docs/policies.md) for the doors' tests:
``QUORUM`` asks two distinct approvals of a charge over 500 and names no
group, so a door's caller may give one and a console user the other;
``GROUPED`` names the staff group ``finance``, so no door's caller may answer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

TOOLS = """
    tools:
      get_order:
        python: examples.shop.tools:get_order
        read: true
      search_orders:
        python: examples.shop.tools:search_orders
        read: true
      charge_card:
        python: examples.shop.tools:charge_card
        write: true
        idempotency: {argument: idempotency_key}
"""

QUORUM = """
agents:
  - name: Shop
    language: en
    mcp: {approver: client, wait: 1}
""" + TOOLS + """
    policies:
      - name: two-people
        when: {tool: charge_card, args: {amount: {gt: 500}}}
        approvers: {quorum: 2}
"""

GROUPED = """
agents:
  - name: Shop
    language: en
    mcp: {approver: client, wait: 1}
""" + TOOLS + """
    policies:
      - name: finance-only
        when: {tool: charge_card, args: {amount: {gt: 500}}}
        approvers: {quorum: 2, group: finance}
"""


def agent_file(folder: Path, text: str) -> Path:
    path = folder / "policy-agent.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def serve(folder: Path, text: str) -> Path:
    """Serve ``text`` in this process from now on (the tests' autouse fixture serves the shop again)."""
    from catalogue import registry, stored

    path = agent_file(folder, text)
    registry.use(str(path))
    stored.forget()
    return path


def console_approve(thread_key: str, pause: dict[str, Any], by: str = "ana", decision: str = "approve") -> Any:
    """A console staff member's answer, through the engine as the console gives it."""
    from threads.engine import Via, pause_answer

    return pause_answer(thread_id=thread_key, pause_id=pause["id"], decision=decision, token=pause["token"],
                        by=by, via=Via.CONSOLE)


def both() -> str:
    """``QUORUM`` as the agent ``Shop`` and ``GROUPED`` as the agent ``Finance``, in one file (for one server)."""
    import yaml

    shop = yaml.safe_load(QUORUM)["agents"][0]
    finance = {**yaml.safe_load(GROUPED)["agents"][0], "name": "Finance"}
    return yaml.safe_dump({"agents": [shop, finance]}, sort_keys=False)
