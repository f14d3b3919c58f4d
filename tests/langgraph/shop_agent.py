"""A create_agent agent over the example shop's tools, with StalwartMiddleware (its tests and example)."""

from __future__ import annotations

from typing import Any

from langchain.agents import create_agent
from langchain_core.tools import StructuredTool
from langgraph.checkpoint.memory import InMemorySaver

from examples.shop import tools as shop
from stalwart_site.langgraph import StalwartMiddleware
from tests.langgraph.graphs import ScriptedModel

TOOLS = [
    StructuredTool.from_function(shop.get_order, description="Look an order up.", metadata={"read": True}),
    StructuredTool.from_function(shop.charge_card, description="Charge an order's card.",
                                 metadata={"write": True, "idempotency": {"argument": "idempotency_key"}}),
    StructuredTool.from_function(shop.refund_card, description="Refund an order.",
                                 metadata={"write": True, "privilege": "refunds", "irreversible": True}),
]


def shop_agent(checkpointer: Any = None, **middleware: Any) -> Any:
    return create_agent(ScriptedModel(), tools=TOOLS, name="shop-agent",
                        middleware=[StalwartMiddleware(TOOLS, agent="ShopAgent", **middleware)],
                        checkpointer=checkpointer or InMemorySaver())
