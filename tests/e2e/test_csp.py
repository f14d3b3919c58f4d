"""One Content-Security-Policy on every HTML page, the admin included, set by
``ContentSecurityPolicyMiddleware`` (issue 14)."""

from __future__ import annotations

import httpx
import pytest

from stalwart_site.middleware import CSP

pytestmark = pytest.mark.server


def test_every_html_page_sends_the_strict_policy(server):
    with httpx.Client(base_url=server.url) as client:
        pages = ["/", "/pair/", "/admin/login/", "/admin/"]
        for path in pages:
            response = client.get(path, follow_redirects=False)
            assert response.headers["Content-Security-Policy"] == CSP, path
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
