"""The demo page in Portuguese, in a real Chromium against a real `stalwart serve`
(issue 25's "Done means"): the page's language switch sets the widget's
language, which it remembers for the browser's session; "cobre 40 no pedido
4411" waits on a card titled in Portuguese with Portuguese labels, and
approving it charges; a tool withdrawn while its call waited is refused in
Portuguese, in the widget and in the console's thread page."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_console_browser import createstaff, sign_in
from tests.support.server import Server, session_key
from tests.support.workers import database_of_its_own
from tests.web.conftest import Watched, _server, _skip_without_browser, ready

pytestmark = pytest.mark.server

SHOTS = Path(os.environ.get("STALWART_SCREENSHOTS_WORDS", "/tmp/shots-h9"))
WITHDRAWN_PT = "Cobrar cartão foi retirada por um operador, então não vou usá-la."


@pytest.fixture
def words_shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A shop of each test's own: one test withdraws a tool, which no other test may see, in
    whatever order they run (a withdrawal is the server's state, not the shop's): on
    PostgreSQL, a database of its own, since the worker's database outlives the server."""
    _skip_without_browser()
    with database_of_its_own(os.environ):
        yield from _server(tmp_path_factory, "words")


def shot(w: Watched, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    w.page.screenshot(path=str(SHOTS / f"{name}.png"))


def card_text(w: Watched) -> str:
    return w.text(w.page.locator("stalwart-confirm").last)


def switch_to_portuguese(w: Watched) -> None:
    w.page.get_by_role("link", name="Português").click()
    w.page.wait_for_url("**/?language=pt-BR")
    ready(w)


def test_the_switch_sets_the_widgets_language_and_a_portuguese_charge_is_worded_in_portuguese(words_shop, open_page):
    w = open_page(words_shop.url + "/")
    ready(w)
    assert w.page.get_by_role("link", name="English").get_attribute("aria-current") == "true"
    assert w.page.get_by_role("button", name="Send").is_visible()
    switch_to_portuguese(w)
    assert w.page.evaluate("document.documentElement.lang") == "pt-BR"
    assert w.page.get_by_role("link", name="Português").get_attribute("aria-current") == "true"
    assert w.page.get_by_role("button", name="Enviar").is_visible()
    assert w.page.get_by_role("navigation", name="Idioma").is_visible()
    sent: list[Any] = []
    w.page.on("request", lambda r: sent.append(r.post_data_json) if r.url.endswith("/messages") else None)
    shot(w, "pt-BR-light-empty")

    w.say("cobre 40 no pedido 4411")
    card = w.page.locator("stalwart-confirm")
    card.get_by_role("heading", name="Cobrar no cartão?").wait_for()
    assert sent == [{"text": "cobre 40 no pedido 4411", "language": "pt-BR"}]
    shown = card_text(w)
    assert card.locator("dt").all_inner_texts() == ["Valor", "Pedido"]
    for raw in ["order_id", "amount", "charge_card", "Charge"]:
        assert raw not in shown
    assert card.locator("h2").count() == 1  # one title
    assert w.page.get_by_text("Cobrar no cartão? Espera a sua aprovação.").is_visible()
    shot(w, "pt-BR-light-waiting")

    # The switch is kept for the browser's session: a reload still reads Portuguese.
    w.page.goto(words_shop.url + "/")
    ready(w)
    assert w.page.get_by_role("button", name="Enviar").is_visible()
    card.get_by_role("heading", name="Cobrar no cartão?").wait_for()  # the pause, again
    card.get_by_role("button", name="Aprovar").click()
    w.page.get_by_text("Feito: cobrar cartão.", exact=False).wait_for()
    assert "ch-4411" in w.text() and "charge_card" not in w.text()
    w.page.evaluate("document.querySelector('stalwart-chat').setAttribute('theme', 'dark')")
    w.page.emulate_media(color_scheme="dark")
    shot(w, "pt-BR-dark-charged")

    # Back to English, the same way.
    w.page.get_by_role("link", name="English").click()
    ready(w)
    assert w.page.get_by_role("button", name="Send").is_visible()
    w.assert_clean()


def test_a_tool_withdrawn_while_it_waited_is_refused_in_portuguese_in_the_widget_and_the_console(
        words_shop, open_page, chromium):
    w = open_page(words_shop.url + "/?language=pt-BR")
    ready(w)
    w.say("cobre 15 no pedido 5001")
    card = w.page.locator("stalwart-confirm")
    card.get_by_role("heading", name="Cobrar no cartão?").wait_for()
    thread = w.page.evaluate("Object.entries(localStorage).find(([k]) => k.startsWith('stalwart:thread:'))[1]")
    session = w.page.evaluate("Object.entries(localStorage).find(([k]) => k.startsWith('stalwart:session:'))[1]")
    key = session_key(thread, session)  # staff open the thread by its key

    password = createstaff(words_shop.data_dir, "olivia", operator=True)
    staff = chromium.new_context(locale="pt-BR", viewport={"width": 1280, "height": 900})
    page = staff.new_page()
    sign_in(page, words_shop.url, "olivia", password)
    page.goto(f"{words_shop.url}/admin/catalogue/withdrawal/add/")
    page.select_option("select[name=target]", "Shop:charge_card")
    page.fill("textarea[name=reason], input[name=reason]", "teste")
    page.locator("input[name=_save]").click()

    card.get_by_role("button", name="Aprovar").click()
    decision = w.page.locator("stalwart-decision")
    decision.get_by_text(WITHDRAWN_PT).wait_for()
    assert "has been withdrawn" not in w.text()
    shot(w, "pt-BR-light-refused")

    page.goto(f"{words_shop.url}/admin/threads/thread/{key}/change/")
    body = page.inner_text("body")
    assert WITHDRAWN_PT in body and "has been withdrawn" not in body
    page.screenshot(path=str(SHOTS / "console-pt-BR-thread-refused.png"), full_page=True)
    staff.close()
    w.assert_clean()
