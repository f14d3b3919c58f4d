"""A shop's own page on another origin embeds the widget (docs/widget.md, "The snippet a shop pastes"):
STALWART_EMBED_ORIGINS lets that origin, and only that one, load the module,
call the API with CORS and frame `/`."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import expect

from tests.web.conftest import ready

pytestmark = pytest.mark.server

SHOP_CSS = "stalwart-chat { --stalwart-accent: #2e7d32; --stalwart-radius: 4px; height: 34rem; max-width: 40rem; }\n" \
           "body { font-family: Georgia, serif; margin: 1rem; }\n"


def shop_page(server_url: str) -> str:
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Our shop</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/shop.css">
<script type="module" src="{server_url}/static/stalwart/index.js"></script>
</head><body>
<h1>Our shop</h1>
<stalwart-chat base="{server_url}"><span slot="footer">Questions? desk@shop.example</span></stalwart-chat>
<iframe src="{server_url}/" title="The shop's assistant" width="420" height="480"></iframe>
</body></html>"""


def test_a_listed_origin_embeds_the_widget_and_approves_a_charge(embed_shop, listed_site, open_page):
    listed_site.put("/shop.css", SHOP_CSS, "text/css")
    w = open_page(listed_site.put("/", shop_page(embed_shop.url)), height=1000)
    ready(w)
    chat = "document.querySelector('stalwart-chat')"
    send = f"{chat}.shadowRoot.querySelector('[part~=composer] button')"
    assert w.css(send, "background-color") == "rgb(46, 125, 50)"  # the shop's accent wins
    assert w.css(send, "border-top-left-radius") == "4px"
    assert w.page.get_by_text("Questions? desk@shop.example").is_visible()  # the footer slot
    w.say("charge 40 to order 4411")
    w.page.get_by_role("button", name="Approve").click()
    w.page.get_by_text("ch-4411").wait_for()
    stored = w.page.evaluate("Object.keys(localStorage)")
    assert f"stalwart:session:{embed_shop.url}/" in stored

    framed = w.page.frame_locator("iframe")
    framed.locator("stalwart-chat textarea:enabled").wait_for()
    expect(framed.locator("stalwart-chat h1")).to_have_text("Shop")
    w.shot("embedded")
    w.assert_clean()


def test_an_origin_not_listed_gets_no_grant(embed_shop, unlisted_site, open_page):
    unlisted_site.put("/shop.css", SHOP_CSS, "text/css")
    w = open_page()
    w.page.goto(unlisted_site.put("/", shop_page(embed_shop.url)))
    w.page.wait_for_load_state("load")
    w.page.wait_for_timeout(500)
    assert w.page.evaluate("customElements.get('stalwart-chat')") is None
    assert any("CORS" in e or "Access-Control-Allow-Origin" in e for e in w.console_errors)
    frame = w.page.frames[1]
    assert frame.url.startswith("chrome-error:") or "stalwart-chat" not in frame.content()


def test_cors_answers_only_the_listed_origin(embed_shop, listed_site, unlisted_site):
    preflight = {
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type,idempotency-key,stalwart-context,stalwart-session,stalwart-client",
    }
    with httpx.Client(base_url=embed_shop.url, timeout=30) as client:
        allowed = client.options("/threads/u-x/messages", headers={"Origin": listed_site.origin, **preflight})
        assert allowed.headers["Access-Control-Allow-Origin"] == listed_site.origin
        granted = {h.strip() for h in allowed.headers["Access-Control-Allow-Headers"].split(",")}
        assert {"content-type", "idempotency-key", "stalwart-context", "stalwart-session", "stalwart-client"} <= granted
        assert "Access-Control-Allow-Credentials" not in allowed.headers

        config = client.get("/config.json", headers={"Origin": listed_site.origin})
        assert config.headers["Access-Control-Allow-Origin"] == listed_site.origin
        turn = client.post("/threads/u-cors/messages", json={"text": "show order 4411"},
                           headers={"Origin": listed_site.origin})
        assert turn.headers["Access-Control-Expose-Headers"] == "Stalwart-Session"
        assert turn.headers["Stalwart-Session"]
        module = client.get("/static/stalwart/index.js", headers={"Origin": listed_site.origin})
        assert module.headers["Access-Control-Allow-Origin"] == listed_site.origin

        for path in ["/config.json", "/static/stalwart/index.js"]:
            refused = client.get(path, headers={"Origin": unlisted_site.origin})
            assert refused.status_code == 200 and "Access-Control-Allow-Origin" not in refused.headers
        refused = client.options("/threads/u-x/messages", headers={"Origin": unlisted_site.origin, **preflight})
        assert "Access-Control-Allow-Origin" not in refused.headers

        page = client.get("/")
        assert f"frame-ancestors {listed_site.origin};" in page.headers["Content-Security-Policy"]
        assert "X-Frame-Options" not in page.headers


def test_with_no_embed_origins_nothing_outside_is_allowed(shop, listed_site):
    with httpx.Client(base_url=shop.url, timeout=30) as client:
        page = client.get("/")
        assert "frame-ancestors 'none';" in page.headers["Content-Security-Policy"]
        assert page.headers["X-Frame-Options"] == "DENY"
        for path in ["/config.json", "/static/stalwart/index.js"]:
            response = client.get(path, headers={"Origin": listed_site.origin})
            assert "Access-Control-Allow-Origin" not in response.headers
        # The stream route is served: /config.json says so, and the widget follows it.
        assert client.get("/config.json").json()["stream"] is True
