"""The console's queue at 1280 px, in both languages: every column in view, the
Thread one too, when a thread's name has no place to break (an MCP session's
hex digits) and a heading is long ("Tempo restante")."""

from __future__ import annotations

import uuid

import pytest

from examples.shop import tools as shop
from tests.e2e.test_console_browser import chromium, createstaff, sign_in  # noqa: F401 (a fixture)
from tests.support.server import Browser

pytestmark = [pytest.mark.server, pytest.mark.browser]


@pytest.mark.parametrize(("locale", "scheme"), [("en-US", "light"), ("pt-BR", "dark")])
def test_the_queue_keeps_the_thread_column_in_view_at_1280_px(server, data_dir, chromium, locale, scheme):  # noqa: F811
    shop.reset()
    customer = Browser(server.url)
    thread = f"mcp-local-{uuid.uuid4().hex}{uuid.uuid4().hex[:8]}"  # 50 characters, one break after "local-"
    customer.say(thread, "charge 40 to order 4411")
    name = f"w{uuid.uuid4().hex[:6]}"
    password = createstaff(data_dir, name, operator=True)
    context = chromium.new_context(locale=locale, color_scheme=scheme, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    sign_in(page, server.url, name, password)
    # Searched by its thread: the shared server's queue may hold other tests' pauses, oldest first.
    page.goto(f"{server.url}/admin/threads/interrupt/?q={thread}")
    link = page.locator("#result_list td.field-thread_link a", has_text=thread[:16]).first
    link.wait_for()
    # Read in one go, in the page: the live queue may redraw its rows between two reads.
    seen = page.evaluate("""name => {
        const results = document.querySelector("#changelist .results");
        const link = [...results.querySelectorAll("td.field-thread_link a")].find(a => a.textContent.includes(name));
        return {fits: results.scrollWidth <= results.clientWidth, edge: results.getBoundingClientRect().right,
                right: link ? link.getBoundingClientRect().right : null};
    }""", thread[:16])
    assert seen["fits"], "the queue's table is wider than its box"
    assert seen["right"] is not None and seen["right"] <= seen["edge"] + 1, seen
    context.close()
    customer.close()
