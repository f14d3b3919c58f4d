"""A held call's outcome counts as delivered once it went out (``doors.mcp.wire.Deliveries``). A client
that has read its result may close the stream at once, and the MCP SDK then cancels what is sending:
the record of the delivery must be stored all the same, or the client's next identical call would be
handed the same outcome again instead of being a new call."""

from __future__ import annotations

import asyncio
import threading
import time

from doors.mcp import calls
from doors.mcp.wire import Deliveries


def test_a_delivery_is_recorded_though_the_send_that_made_it_is_cancelled_halfway(monkeypatch):
    stored: list[int] = []
    first_started, go_on = threading.Event(), threading.Event()

    def delivered(replay_id: int) -> None:  # the store, slow on a loaded machine
        if replay_id == 1:
            first_started.set()
            go_on.wait(10)
        stored.append(replay_id)

    monkeypatch.setattr(calls, "delivered", delivered)

    async def scenario() -> bool:
        deliveries = Deliveries()
        sending = asyncio.ensure_future(deliveries.record([1, 2]))  # two outcomes in one response
        while not first_started.is_set():
            await asyncio.sleep(0.01)
        sending.cancel()  # the client has its result and closed the stream
        go_on.set()
        deadline = time.monotonic() + 10
        while len(stored) < 2 and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        try:
            await sending
        except asyncio.CancelledError:
            return True
        return False

    assert asyncio.run(scenario())  # the send itself was cancelled, as the SDK does
    assert stored == [1, 2]  # and both outcomes count as delivered
