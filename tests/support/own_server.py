"""A team's own server mounting ``stalwart_site.serve.make_app`` (docs/getting-started.md, "Mounting: make_app"):
``python -m tests.support.own_server AGENT_FILE PORT``. It starts nothing of
``stalwart serve``'s own: whatever recovers a dead worker's calls must come
from ``make_app`` itself."""

from __future__ import annotations

import sys


def main(agent_file: str, port: int) -> None:
    from daphne.server import Server

    from stalwart_site.serve import make_app

    application = make_app(agent_file)
    Server(application=application, endpoints=[f"tcp:port={port}:interface=127.0.0.1"], signal_handlers=True,
           verbosity=0).run()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
