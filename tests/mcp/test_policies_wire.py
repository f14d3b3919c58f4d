"""The MCP gateway under an approval policy over the wire (docs/mcp.md): a real
``stalwart serve`` and the MCP SDK's own client with form elicitation, its
agent ``mcp: {approver: client}``. The client approving its own call is not an
approver (it proposed it): the call is held and answered waiting, saying why,
with the pause's approvals ("0 of 2"); no error, nothing charged."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp.types as types
import pytest

from examples.shop import tools as shop
from tests.support.mcp import keys_revoked, mcp_session
from tests.support.quorum import QUORUM, agent_file
from tests.support.server import Server

pytestmark = pytest.mark.server


@pytest.fixture
def gateway(shop_dir: Path, tmp_path: Path) -> Iterator[Server]:
    # No client key in force: on PostgreSQL the suite's servers share one database, and a key another
    # test made would have the gateway refuse this loopback client (401) at its handshake.
    keys_revoked(shop_dir)
    with Server(shop_dir, agent_file=agent_file(tmp_path, QUORUM)) as s:
        yield s


def test_the_clients_own_approval_under_a_policy_leaves_the_call_waiting_with_its_approvals(gateway):
    asked: list[Any] = []

    async def approve(ctx: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params)
        return types.ElicitResult(action="accept", content={"decision": "approve"})

    async def scenario() -> tuple[Any, Any]:
        async with mcp_session(f"{gateway.url}/mcp/Shop/", elicit=approve, name="quorum-client") as session:
            held = await session.call_tool("charge_card", {"order_id": "4411", "amount": 600})
            status = await session.call_tool("stalwart_pause_status",
                                             {"pause_id": held.structured_content["pause"]["id"]})
            return held, status

    held, status = asyncio.run(scenario())
    assert len(asked) == 1 and not held.is_error
    body = held.structured_content
    assert body["status"] == "waiting" and body["not_an_approver"]
    assert body["pause"]["approvals"] == {"needed": 2, "given": [], "group": None}
    assert "0 of 2" in held.content[0].text
    assert status.structured_content["pause"]["approvals"]["needed"] == 2
    assert shop.charges() == []
