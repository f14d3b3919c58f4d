"""One Content-Security-Policy on every HTML page, the admin included, set by
``ContentSecurityPolicyMiddleware`` (issue 14)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from stalwart_site.middleware import CSP
from tests.support.server import Server

pytestmark = pytest.mark.server

CHROMIUM = "/usr/bin/chromium"


@pytest.fixture
def server(shared_server: Server) -> Server:
    """One server for the module's tests: they only read pages and headers."""
    return shared_server


def test_every_html_page_sends_the_strict_policy(server):
    with httpx.Client(base_url=server.url) as client:
        pages = ["/", "/admin/login/", "/admin/"]
        for path in pages:
            response = client.get(path, follow_redirects=False)
            assert response.headers["Content-Security-Policy"] == CSP, path
        # /pair/ is there only under --dev-pair (tests/e2e/test_commands.py sees it styled, under the policy).
        assert client.get("/pair/").status_code == 404
        # The admin's own pages, after a redirect to its login.
        login = client.get("/admin/threads/interrupt/", follow_redirects=True)
        assert login.headers["Content-Type"].startswith("text/html")
        assert login.headers["Content-Security-Policy"] == CSP
    for directive in ("default-src 'self'", "script-src 'self'", "object-src 'none'", "frame-ancestors 'none'"):
        assert directive in CSP
    assert "unsafe-inline" not in CSP and "unsafe-eval" not in CSP


def test_json_answers_carry_no_page_policy_but_a_request_id(server):
    response = httpx.get(f"{server.url}/healthz")
    assert "Content-Security-Policy" not in response.headers
    assert len(response.headers["X-Request-Id"]) == 32


def test_the_docs_page_and_the_admin_work_in_a_browser_with_no_policy_violation(server):
    """Chromium loads /api/docs/ (Swagger UI renders every operation) and the
    admin's login under the policy, and reports no violation."""
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is not installed")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            for path, ready in (("/api/docs/", ".opblock"), ("/admin/login/", "#login-form")):
                page = browser.new_page()
                said: list[str] = []
                page.on("console", lambda message, said=said: said.append(message.text))
                page.goto(server.url + path)
                page.wait_for_selector(ready)
                if path == "/api/docs/":
                    page.locator(".opblock").nth(5).wait_for()
                page.wait_for_timeout(500)
                assert [m for m in said if "Content Security Policy" in m] == [], path
                page.close()
        finally:
            browser.close()
