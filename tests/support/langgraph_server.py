"""A team's own server mounting ``stalwart_site.langgraph.make_app`` (docs/langgraph.md):
``python -m tests.support.langgraph_server MODULE:FACTORY PORT``, the graph made by
``FACTORY()`` (with its checkpointer), served by daphne on the loopback; with
``STALWART_TEST_BRIDGE_SECRET`` set, ``make_app(graph, secret=...)`` (signed answers);
with ``STALWART_TEST_BRIDGE_POLICIES`` (a YAML file's path), ``make_app(graph, policies=...)``."""

from __future__ import annotations

import importlib
import os
import sys


def main(target: str, port: int) -> None:
    from daphne.server import Server

    from stalwart_site.langgraph import make_app

    module, _, factory = target.partition(":")
    graph = getattr(importlib.import_module(module), factory)()
    secret = os.environ.get("STALWART_TEST_BRIDGE_SECRET") or None
    policies = os.environ.get("STALWART_TEST_BRIDGE_POLICIES") or None
    Server(application=make_app(graph, secret=secret, policies=policies), endpoints=[f"tcp:port={port}:interface=127.0.0.1"],
           signal_handlers=True, verbosity=0).run()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
