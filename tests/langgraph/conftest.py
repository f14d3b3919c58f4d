"""The LangGraph door's tests: each starts and ends with no bridge registered in this process."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture
def bridges_forgotten(shop_dir: Any) -> Iterator[None]:
    from doors.langgraph import bridges

    for bridge in bridges.registered():
        bridges.bridge_forget(bridge.name)
    yield
    for bridge in bridges.registered():
        bridges.bridge_forget(bridge.name)
