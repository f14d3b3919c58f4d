"""A pause's status page (approvals.status; docs/mcp.md, "While a write waits"), in a real
Chromium against a real `stalwart serve`: the person who asked opens it without a staff
account and reads what waits, who answers it, and what became of it, in English and
Portuguese, light and dark. It answers nothing."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from django.utils.crypto import salted_hmac

from approvals.status import SALT
from stalwart_site.bootstrap import kept_secret_key
from tests.support.server import Browser, Server
from tests.web.conftest import _server, _skip_without_browser

pytestmark = pytest.mark.server


@pytest.fixture(scope="module")
def own_shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A shop of this module's own: its order 4411 unpaid, whatever other tests charged."""
    _skip_without_browser()
    yield from _server(tmp_path_factory, "status-shop")


def status_url(server: Server, pause_id: str) -> str:
    """What the server's own HMAC makes of the pause id (its secret key is in its data folder)."""
    secret = kept_secret_key(server.data_dir)
    return f"{server.url}/pauses/{pause_id}/{salted_hmac(SALT, pause_id, secret=secret, algorithm='sha256').hexdigest()[:32]}/"


def test_the_person_who_asked_follows_a_charge_from_waiting_to_done_in_both_languages(own_shop, open_page):
    shop = own_shop
    person, thread = Browser(shop.url), f"status-{uuid.uuid4().hex[:6]}"
    said = person.say(thread, "charge 40 to order 4411").json()
    pause: dict[str, Any] = said["waiting"][0]
    url = status_url(shop, pause["id"])

    w = open_page(url)
    assert w.page.locator("[role=status]").inner_text() == "Waiting for a person's approval"
    assert w.page.locator("h1").inner_text() == "Charge the card?"
    shown = w.text()
    for expected in ["What it will use", "Amount", "40", "Order id", "4411", "Who answers it",
                     "A staff member answers it in the console", "answer it in the console", pause["id"]]:
        assert expected in shown, expected
    assert pause["token"] not in w.page.content() and w.page.locator("form, button").count() == 0
    w.shot("status-waiting-en-light")
    w.assert_clean()

    dark = open_page(url + "?language=pt-BR", color_scheme="dark")
    assert dark.page.locator("[role=status]").inner_text() == "Aguardando a aprovação de uma pessoa"
    assert dark.page.locator("html").get_attribute("lang") == "pt-BR"
    assert "Quem responde" in dark.text() and "Who answers it" not in dark.text()
    assert dark.css("document.body", "background-color") != w.css("document.body", "background-color")
    dark.shot("status-waiting-pt-dark")

    assert person.resume(thread, pause, "approve").status_code == 200
    w.page.reload()
    assert w.page.locator("[role=status]").inner_text() == "Approved: it was done"
    assert w.page.locator("meta[http-equiv=refresh]").count() == 0  # settled: it stops looking again
    assert "What it used" in w.text() and "Who answers it" not in w.text()
    w.shot("status-done-en-light")
    dark.page.reload()
    assert dark.page.locator("[role=status]").inner_text() == "Aprovado: foi feito"
    dark.shot("status-done-pt-dark")
    person.close()


def test_the_twin_a_wrong_address_is_the_404_of_a_pause_that_does_not_exist(shop):
    person, thread = Browser(shop.url), f"status-{uuid.uuid4().hex[:6]}"
    pause = person.say(thread, "charge 40 to order 4411").json()["waiting"][0]
    right = status_url(shop, pause["id"])
    wrong = right[:-2] + ("0" if right[-2] != "0" else "1") + "/"
    for address in (wrong, status_url(shop, "p-nothing")[:-1] + "x/", f"{shop.url}/pauses/{pause['id']}/{'a' * 5000}/"):
        answer = httpx.get(address)
        assert answer.status_code == 404 and answer.json()["error"] == "not_found", address
    assert httpx.get(right).status_code == 200
    assert httpx.post(right).status_code in (403, 405)  # it answers nothing (CSRF refuses a bare POST first)
    person.close()
