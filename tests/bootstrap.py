"""Loaded with ``-p tests.bootstrap`` (pyproject's addopts), before pytest-django
reads Django's settings: the test session starts the way every entry point
does, through ``stalwart_site.bootstrap.prepare``, with a throw-away data
folder and the example shop as the agent file."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from stalwart_site.bootstrap import prepare

SHOP = Path(__file__).resolve().parent.parent / "examples" / "shop" / "agent.yaml"

os.environ.setdefault("STALWART_DATA_DIR", tempfile.mkdtemp(prefix="stalwart-tests-"))
os.environ.pop("STALWART_SHOP_FAULTS", None)
prepare(agent_file=SHOP)
