"""The docs' example page (examples/agui) in Debian's Chromium: built as its
README says (esbuild, with tests/agui's ``@ag-ui/client``), served from
another origin (as a team's app would be, with ``STALWART_EMBED_ORIGINS``),
a charge approved end to end through ``HttpAgent``, a reload in between
that still shows what waits. Screenshots go to tests/web/screenshots/."""

from __future__ import annotations

import functools
import http.server
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from examples.shop import tools as shop
from tests.e2e.conftest import fresh_shop
from tests.support.server import ROOT, Server, free_port
from tests.web.conftest import ARGS, CHROMIUM, SHOTS, _skip_without_browser, sync_playwright

pytestmark = [pytest.mark.server, pytest.mark.browser]

HERE = Path(__file__).resolve().parent
EXAMPLE = ROOT / "examples" / "agui"


@pytest.fixture(scope="module")
def page_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The example page, bundled as its README says, on its own origin."""
    esbuild = HERE / "node_modules" / ".bin" / "esbuild"
    if not esbuild.exists():
        pytest.skip("needs tests/agui's node packages (./scripts/test installs them with npm ci)")
    folder = tmp_path_factory.mktemp("agui-page")
    subprocess.run([str(esbuild), str(EXAMPLE / "app.js"), "--bundle", "--format=esm",
                    f"--outfile={folder / 'app.bundle.js'}", "--log-level=warning"],
                   check=True, env={"NODE_PATH": str(HERE / "node_modules"), "PATH": "/usr/bin:/bin"}, timeout=120)
    for name in ("index.html", "page.css"):
        shutil.copy(EXAMPLE / name, folder / name)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    handler.log_message = lambda *a: None  # type: ignore[attr-defined]
    site = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{site.server_address[1]}"
    site.shutdown()


@pytest.fixture(scope="module")
def stalwart(tmp_path_factory: pytest.TempPathFactory, page_site: str) -> Iterator[Server]:
    with Server(tmp_path_factory.mktemp("agui-page-server"), env={"STALWART_EMBED_ORIGINS": page_site}) as s:
        yield s


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    _skip_without_browser()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        browser.close()


CASES = {  # what a person of each language types, and what the card then says
    "en": ("charge 40 to order 4411", "This waits for your approval", "Charge the card?", ["Amount", "Order"],
           "40 (you typed it)"),
    "pt-BR": ("cobre 40,5 no pedido 4411", "Isto espera a sua aprovação", "Cobrar no cartão?", ["Valor", "Pedido"],
              "40,5 (você digitou)"),
}


@pytest.mark.parametrize(("language", "scheme", "approve"), [("en", "light", "Approve"),
                                                               ("pt-BR", "dark", "Aprovar")])
def test_the_example_page_approves_a_charge_through_http_agent(chromium, stalwart, page_site, monkeypatch,
                                                               language, scheme, approve):
    turn, heading, question, labels, amount = CASES[language]
    fresh_shop(stalwart, monkeypatch)
    SHOTS.mkdir(parents=True, exist_ok=True)
    context = chromium.new_context(color_scheme=scheme, viewport={"width": 900, "height": 700})
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto(f"{page_site}/?base={stalwart.url}&lang={language}")
    expect(page.locator("#send")).not_to_have_text("", timeout=30_000)
    sent: list[Any] = []
    page.on("request", lambda r: sent.append(r.post_data_json) if r.method == "POST" and "/agui/" in r.url else None)
    page.fill("#text", turn)
    page.click("#send")
    card = page.locator(".card")
    card.wait_for(timeout=30_000)
    # The page's language went with the turn, so a Portuguese turn was read, not handed to a model.
    assert sent and sent[0]["forwardedProps"] == {"language": language}
    expect(card.locator("h2")).to_have_text(heading)
    shown = card.inner_text()
    assert question in shown and "4411" in shown and amount in shown
    assert card.locator("dt").all_inner_texts() == labels
    for raw in ["charge_card", "order_id", "amount", "tool_call", "confirmation", "Waiting for you"]:
        assert raw not in shown
    page.screenshot(path=str(SHOTS / f"agui-waiting-{language}-{scheme}.png"), full_page=True)

    page.reload()  # what waits is the server's, not the page's
    page.locator(".card").wait_for(timeout=30_000)
    assert shop.charges("4411") == []
    page.screenshot(path=str(SHOTS / f"agui-reloaded-{language}-{scheme}.png"), full_page=True)

    page.get_by_role("button", name=approve).click()
    page.locator(".card").wait_for(state="detached", timeout=30_000)
    expect(page.locator("#log")).to_contain_text("ch-4411", timeout=30_000)
    assert len(shop.charges("4411")) == 1
    page.screenshot(path=str(SHOTS / f"agui-approved-{language}-{scheme}.png"), full_page=True)
    context.close()
    assert problems == []
