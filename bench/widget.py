"""The web components' weight and how soon a person can type.

    python bench/widget.py [--loads 5] [--no-browser]

Prints one JSON object:
- ``size``: the entry module (static/stalwart/index.js) and every module it
  imports, in bytes raw and gzipped (each file gzipped on its own, as it is
  served; and all of them in one stream, for comparison); the limit is 40 KB
  gzipped for all five elements;
- ``interactive_ms``: from navigation to a composer that takes a turn, in
  Debian's Chromium against a real `stalwart serve` of the example shop (the
  element marks ``stalwart:composer-ready`` when its composer is enabled);
  the median of ``--loads`` loads, each in a fresh browser context (no cache).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

ENTRY = ROOT / "static" / "stalwart" / "index.js"
LIMIT_GZIP = 40 * 1024
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
IMPORT = re.compile(r"""^\s*(?:import|export)\s[^;]*?from\s+["'](\.[^"']+)["']""", re.M | re.S)


def module_graph(entry: Path = ENTRY) -> list[Path]:
    seen: list[Path] = []
    todo = [entry]
    while todo:
        path = todo.pop(0)
        if path in seen:
            continue
        seen.append(path)
        todo.extend((path.parent / f).resolve() for f in IMPORT.findall(path.read_text(encoding="utf-8")))
    return seen


def size() -> dict[str, Any]:
    files = module_graph()
    raw = {str(p.relative_to(ENTRY.parent)): p.read_bytes() for p in files}
    each = {name: len(gzip.compress(body, 9)) for name, body in raw.items()}
    gz = sum(each.values())
    return {
        "modules": len(files),
        "raw_bytes": sum(len(b) for b in raw.values()),
        "gzip_bytes": gz,
        "gzip_bytes_one_stream": len(gzip.compress(b"".join(raw.values()), 9)),
        "gzip_limit_bytes": LIMIT_GZIP,
        "under_limit": gz < LIMIT_GZIP,
        "per_module_gzip": each,
    }


def interactive(loads: int) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    from tests.support.server import SHOP, Server

    times: list[float] = []
    with tempfile.TemporaryDirectory() as data, Server(Path(data), agent_file=SHOP) as server, \
            sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            for _ in range(loads + 1):  # the first load warms the server up and is not counted
                context = browser.new_context()
                page = context.new_page()
                page.goto(server.url + "/", wait_until="commit")
                # A promise, not wait_for_function: the page's CSP forbids the eval that one uses.
                ready = page.evaluate("""() => new Promise((done) => {
                  const look = () => {
                    const [mark] = performance.getEntriesByName('stalwart:composer-ready');
                    if (mark) done(mark.startTime); else setTimeout(look, 5);
                  };
                  look();
                })""")
                enabled = page.evaluate(
                    "!document.querySelector('stalwart-chat').shadowRoot.querySelector('textarea').disabled")
                assert enabled, "the mark came before the composer was enabled"
                times.append(float(ready))
                context.close()
        finally:
            browser.close()
    counted = times[1:]
    return {"loads": len(counted), "median_ms": round(statistics.median(counted), 1),
            "min_ms": round(min(counted), 1), "max_ms": round(max(counted), 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, default=5)
    parser.add_argument("--no-browser", action="store_true", help="only the size")
    args = parser.parse_args()
    out: dict[str, Any] = {"size": size()}
    if not args.no_browser:
        out["interactive_ms"] = interactive(args.loads)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
