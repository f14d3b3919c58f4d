from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langchain_core")

from langchain_core.tools import BaseTool, tool  # noqa: E402

from catalogue.bindings import invoke  # noqa: E402
from catalogue.langchain import invoke_langchain, tool_catalogue  # noqa: E402
from examples.shop import tools as shop  # noqa: E402

get_order = tool(shop.get_order)
get_order.metadata = {"read": True}
charge_card = tool(shop.charge_card)
charge_card.metadata = {"compensation": {"tool": "refund_card"}, "idempotency": {"argument": "idempotency_key"}}


class Shout(BaseTool):
    name: str = "shout_text"
    description: str = "Shout a text."

    def _run(self, text: str) -> str:
        return text.upper()


def test_base_tools_become_a_catalogue_with_metadata_declarations() -> None:
    tools = {t.name: t for t in tool_catalogue([get_order, charge_card, Shout()], agent="Shop")}
    assert {n: t.kind for n, t in tools.items()} == {"get_order": "read", "charge_card": "write",
                                                      "shout_text": "write"}
    assert tools["charge_card"].compensation == {"tool": "refund_card"} and tools["charge_card"].retry_safe
    assert tools["get_order"].required == ("order_id",)
    assert tools["get_order"].binding == {"python": "examples.shop.tools:get_order"}
    assert invoke(tools["get_order"], {"order_id": "4411"}).result["customer"] == "c-208"
    shout = tools["shout_text"]
    assert shout.binding == {"langchain": {"agent": "Shop", "tool": "shout_text"}}
    assert invoke_langchain(shout, {"text": "hi"}).result == "HI"


def test_something_that_is_not_a_tool_is_refused() -> None:
    from catalogue.importers import SourceError

    obj: Any = object()
    with pytest.raises(SourceError):
        tool_catalogue([obj])
