"""The one-process channel layer: Channels' in-memory layer, made to fan out.

Channels' ``InMemoryChannelLayer`` sweeps every channel and group for expired
messages on each ``receive`` and each ``group_send``, and sends to a group
through one task per member. With N open streams each event costs N sweeps
of N channels: at 1,000 streams a turn's events took over two seconds to
reach the last stream (bench/streams.py). Here the sweep runs at most once a
second and a group send puts the message on each member's queue directly.
Semantics are the layer's own: capacity per channel (a full one drops the
message, which a stream reads back from the database), expiry, groups.
"""

from __future__ import annotations

import asyncio
import time
from copy import deepcopy
from typing import Any

from channels.layers import InMemoryChannelLayer as ChannelsInMemoryChannelLayer

SWEEP_EVERY = 1.0


class InMemoryChannelLayer(ChannelsInMemoryChannelLayer):  # type: ignore[misc]
    _swept = 0.0

    def _clean_expired(self) -> None:
        now = time.monotonic()
        if now - self._swept < SWEEP_EVERY:
            return
        self._swept = now
        super()._clean_expired()

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        assert isinstance(message, dict), "Message is not a dict"
        self.require_valid_group_name(group)
        self._clean_expired()
        for channel in list(self.groups.get(group, {})):
            queue = self.channels.setdefault(channel, asyncio.Queue(maxsize=self.get_capacity(channel)))
            try:
                queue.put_nowait((time.time() + self.expiry, deepcopy(message)))
            except asyncio.QueueFull:
                pass  # as Channels' own layer: a full channel misses it (ChannelFull is swallowed there too)
