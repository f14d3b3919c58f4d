"""The example shop's OpenAPI service, recording every request line it is sent.

``LoggingShop`` runs ``examples.shop.openapi_service`` on a free loopback port
and keeps each request's method and raw target (``/orders/4411``, exactly as
it came over the wire, before any decoding), so a test can say which path a
tool call reached, or that nothing reached the service at all.
"""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path
from typing import Any

from examples.shop.openapi_service import ShopHandler
from examples.shop.openapi_service import make_server as make_shop_server

SHOP_DIR = Path(__file__).resolve().parents[2] / "examples" / "shop"


class LoggingShop:
    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []
        seen, lock = self.seen, threading.Lock()

        class Handler(ShopHandler):
            def _handle(self, method: str) -> None:
                if self.path != "/openapi.json":
                    with lock:
                        seen.append((method, self.path))
                super()._handle(method)

        self.server = make_shop_server("127.0.0.1", 0)
        self.server.RequestHandlerClass = Handler

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def agent_folder(self, folder: Path) -> Path:
        """The shop's OpenAPI agent file in ``folder``, its catalogue pointed at this service."""
        catalogue: dict[str, Any] = json.loads((SHOP_DIR / "catalogue-openapi.json").read_text())
        for tool in catalogue["tools"]:
            tool["binding"]["http"]["base_url"] = self.url
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "catalogue-openapi.json").write_text(json.dumps(catalogue))
        shutil.copy(SHOP_DIR / "agent-openapi.yaml", folder / "agent.yaml")
        shutil.copy(SHOP_DIR / "vocabulary.yaml", folder / "vocabulary.yaml")
        return folder / "agent.yaml"

    def __enter__(self) -> LoggingShop:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
