"""The web components in a real Chromium (Debian's, driven through Playwright)
against real `stalwart serve` processes.

Never `playwright install`: the browser is the system's /usr/bin/chromium
(`.ci/run` installs Debian's package where it is missing). Every page a test
opens is watched for console errors, page errors and CSP violations.
Screenshots of each state go to tests/web/screenshots/ (ignored by git), to be
looked at by a person.
"""

from __future__ import annotations

import http.server
import json
import os
import shutil
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.server import ROOT, SHOP, Server, free_port

CHROMIUM = os.environ.get("STALWART_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
HERE = Path(__file__).resolve().parent
SHOTS = HERE / "screenshots"
AXE = HERE / "node_modules" / "axe-core" / "axe.min.js"

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - the test extra installs it
    sync_playwright = None

pytestmark = pytest.mark.server


def _skip_without_browser() -> None:
    if sync_playwright is None:
        pytest.skip("the playwright package is missing: pip install -e '.[test]'")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}: apt-get install -y chromium")


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """One Chromium per module, never per session: Playwright's sync API runs
    an asyncio loop in this thread for as long as it is started, so a test of
    another module run while it lives fails on its own ``asyncio.run()``
    ("cannot be called from a running event loop") or its own Playwright.
    Module-scoped, it stops before pytest moves on to another module."""
    _skip_without_browser()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        browser.close()


# --- servers -------------------------------------------------------------------------


def variant_agent(folder: Path, *, language: str = "en", refunds_need_privilege: bool = False) -> Path:
    """The shop's agent file with another language (and refunds behind a
    privilege nobody has, so that a refusal can be seen)."""
    text = SHOP.read_text(encoding="utf-8")
    text = text.replace("vocabulary: vocabulary.yaml", f"vocabulary: {SHOP.parent / 'vocabulary.yaml'}")
    text = text.replace("    language: en\n", f"    language: {language}\n")
    if refunds_need_privilege:
        text = text.replace("      refund_card:\n", "      refund_card:\n        privilege: refunds\n")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"agent-{language}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _server(tmp_path_factory: pytest.TempPathFactory, name: str, **kwargs: Any) -> Iterator[Server]:
    data = tmp_path_factory.mktemp(name)
    server = Server(data, **kwargs)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """examples/shop/agent.yaml as `stalwart serve` runs it, with nothing embedded."""
    _skip_without_browser()
    yield from _server(tmp_path_factory, "shop")


@pytest.fixture(scope="session")
def strict_shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The shop with refunds behind a privilege: "refund 40 on order 4411" is refused."""
    _skip_without_browser()
    agent = variant_agent(tmp_path_factory.mktemp("strict-agent"), refunds_need_privilege=True)
    yield from _server(tmp_path_factory, "strict", agent_file=agent)


@pytest.fixture(scope="session")
def shop_pt(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The shop's agent in Brazilian Portuguese (refunds behind a privilege too)."""
    _skip_without_browser()
    agent = variant_agent(tmp_path_factory.mktemp("pt-agent"), language="pt-BR", refunds_need_privilege=True)
    yield from _server(tmp_path_factory, "shop-pt", agent_file=agent)


class Site:
    """Another origin on this machine: a shop's own pages, served from memory."""

    def __init__(self) -> None:
        self.pages: dict[str, tuple[str, bytes]] = {}
        site = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the standard library's name
                found = site.pages.get(self.path.split("?")[0])
                if found is None:
                    self.send_error(404)
                    return
                kind, body = found
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.port = free_port()
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def put(self, path: str, body: str, kind: str = "text/html; charset=utf-8") -> str:
        self.pages[path] = (kind, body.encode("utf-8"))
        return self.origin + path

    def __enter__(self) -> Site:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="session")
def listed_site() -> Iterator[Site]:
    with Site() as site:
        yield site


@pytest.fixture(scope="session")
def unlisted_site() -> Iterator[Site]:
    with Site() as site:
        yield site


@pytest.fixture(scope="session")
def embed_shop(tmp_path_factory: pytest.TempPathFactory, listed_site: Site) -> Iterator[Server]:
    """The shop, with the listed site's origin in STALWART_EMBED_ORIGINS."""
    _skip_without_browser()
    yield from _server(tmp_path_factory, "embed", env={"STALWART_EMBED_ORIGINS": listed_site.origin})


# --- pages -----------------------------------------------------------------------------

WATCH = """
window.__stalwartCsp = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__stalwartCsp.push(`${e.violatedDirective} ${e.blockedURI}`);
});
"""

# Every text a person meets, through open shadow roots: visible text nodes,
# and the placeholder and aria-label of visible elements.
VISIBLE_TEXT = """
(start) => {
  const out = [];
  const seen = (el) => el.checkVisibility({ visibilityProperty: true });
  const walk = (root) => {
    for (const node of root.childNodes) {
      if (node.nodeType === Node.TEXT_NODE) {
        const parent = node.parentElement;
        if (node.textContent.trim() && parent && seen(parent)) out.push(node.textContent.trim());
      } else if (node.nodeType === Node.ELEMENT_NODE) {
        if (seen(node)) {
          for (const attr of ["placeholder", "aria-label"]) {
            if (node.getAttribute(attr)) out.push(node.getAttribute(attr));
          }
        }
        if (node.shadowRoot) walk(node.shadowRoot);
        if (node.localName === "slot") continue;
        walk(node);
      }
    }
  };
  const from = start || document.body;
  if (from.shadowRoot) walk(from.shadowRoot);
  walk(from);
  return out.join("\\n");
}
"""


class Watched:
    """A page with what went wrong on it: console errors, page errors, CSP violations."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.console_errors: list[str] = []
        self.page_errors: list[str] = []
        page.on("console", lambda m: self.console_errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.page_errors.append(str(e)))

    def csp_violations(self) -> list[str]:
        return list(self.page.evaluate("window.__stalwartCsp || []"))

    def assert_clean(self, allow: Callable[[str], bool] = lambda text: False) -> None:
        assert self.page_errors == []
        assert [e for e in self.console_errors if not allow(e)] == []
        assert self.csp_violations() == []

    def text(self, locator: Any = None) -> str:
        """What a person reads on the page (or in one element), through shadow roots."""
        if locator is not None:
            return str(locator.evaluate(VISIBLE_TEXT))
        return str(self.page.evaluate(VISIBLE_TEXT, None))

    def shot(self, name: str) -> Path:
        SHOTS.mkdir(exist_ok=True)
        path = SHOTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=False)
        return path

    def chat(self) -> Any:
        return self.page.locator("stalwart-chat")

    def say(self, text: str) -> None:
        box = self.page.locator("stalwart-chat textarea")
        box.fill(text)
        box.press("Enter")

    def css(self, selector_js: str, prop: str) -> str:
        """A computed style: `selector_js` is an expression for the element."""
        return str(self.page.evaluate(f"getComputedStyle({selector_js}).getPropertyValue({json.dumps(prop)}).trim()"))


@pytest.fixture
def open_page(chromium: Any) -> Iterator[Callable[..., Watched]]:
    """open_page(url, width=..., height=..., color_scheme=..., axe=..., locale=...) -> a watched page in a fresh context."""
    contexts: list[Any] = []

    def open_(url: str | None = None, *, width: int = 900, height: int = 760, color_scheme: str = "light",
              axe: bool = False, context: Any = None, locale: str | None = None) -> Watched:
        if context is None:
            # ``locale``: the browser's language (its Accept-Language), which GET / honours.
            extra = {"locale": locale} if locale else {}
            context = chromium.new_context(viewport={"width": width, "height": height}, color_scheme=color_scheme,
                                           reduced_motion="reduce", **extra)
            contexts.append(context)
        context.add_init_script(WATCH)
        if axe:
            if not AXE.exists():
                pytest.skip("axe-core is not installed: npm is missing (scripts/test runs `npm ci` in tests/web)")
            context.add_init_script(path=str(AXE))
        watched = Watched(context.new_page())
        if url:
            watched.page.goto(url)
        return watched

    yield open_
    for context in contexts:
        context.close()


def ready(watched: Watched) -> None:
    """Wait until the composer takes a turn (the chat has its words)."""
    watched.page.locator("stalwart-chat textarea:enabled").wait_for()


def axe_serious(watched: Watched, context: str = "document") -> list[dict[str, Any]]:
    """axe-core's serious and critical violations on the page as it is now."""
    result = watched.page.evaluate(
        f"async () => (await axe.run({context}, {{ resultTypes: ['violations'] }})).violations"
        ".filter(v => ['serious', 'critical'].includes(v.impact))"
        ".map(v => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => n.target) }))"
    )
    return list(result)


def have_npm() -> bool:
    return shutil.which("npm") is not None


__all__ = ["ROOT", "Site", "Watched", "axe_serious", "have_npm", "ready", "variant_agent"]
