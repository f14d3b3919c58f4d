"""The console in a real Chromium (Debian's, through Playwright) against a
real ``stalwart serve``: a customer's charge pauses, staff approve it from the
admin, a second answer is stale, the customer's late answer is 409; an operator rolls
a thread back from its page and the shop shows the refund; an
approver may not withdraw; a pt-BR browser reads no English. Screenshots of
the queue, a pause, a thread and the tools page, both languages, light and
dark, go to ``screenshots/`` (ignored by git) to be looked at."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from examples.shop import tools as shop
from tests.support.server import ROOT, Browser

pytestmark = [pytest.mark.server, pytest.mark.browser]

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
SHOTS = Path(os.environ.get("STALWART_SCREENSHOTS", ROOT / "screenshots"))

if not Path(CHROMIUM).exists():
    pytest.skip("needs Debian's chromium (apt-get install -y chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api")


def createstaff(data_dir: Path, name: str, *, operator: bool = False, groups: tuple[str, ...] = ()) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("STALWART_AGENT_FILE", "DJANGO_SETTINGS_MODULE",
                                                             "SECRET_KEY")}
    env["STALWART_DATA_DIR"] = str(data_dir)
    result = subprocess.run([sys.executable, "-m", "stalwart_site.cli", "createstaff", name,
                             *(["--operator"] if operator else []), *(a for g in groups for a in ("--group", g))],
                            cwd=ROOT, env=env, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return re.search(r"One-time password: (\S+)", result.stdout).group(1)  # type: ignore[union-attr]


def sign_in(page: Any, base: str, name: str, password: str) -> None:
    """Sign in; the first sign-in must choose a new password before anything else."""
    page.goto(f"{base}/admin/login/")
    page.fill("#id_username", name)
    page.fill("#id_password", password)
    page.click("input[type=submit]")
    assert page.url.endswith("/admin/password_change/")
    new = f"a-long-new-password-{name}"
    page.fill("#id_old_password", password)
    page.fill("#id_new_password1", new)
    page.fill("#id_new_password2", new)
    page.click("input[type=submit]")
    page.goto(f"{base}/admin/")
    assert page.url.endswith("/admin/")


def sign_in_again(page: Any, base: str, name: str) -> None:
    """Sign in once more (another browser context), with the password ``sign_in`` chose."""
    page.goto(f"{base}/admin/login/")
    page.fill("#id_username", name)
    page.fill("#id_password", f"a-long-new-password-{name}")
    page.click("input[type=submit]")


@pytest.fixture
def chromium() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def open_pause_from_queue(page: Any, base: str, thread: str) -> None:
    page.goto(f"{base}/admin/threads/interrupt/")
    page.fill("#searchbar", thread)
    page.press("#searchbar", "Enter")
    # The press returns once the search's page is committed, maybe before its rows are parsed.
    page.wait_for_url(f"**/?q={thread}")
    rows = page.locator("#result_list tbody tr")
    expect(rows).to_have_count(1)
    rows.first.locator("th a").click()


def test_an_approver_approves_a_customers_charge_from_the_console(server, data_dir, chromium):
    shop.reset()
    customer = Browser(server.url)
    thread = f"shop-{uuid.uuid4().hex[:8]}"
    pause = customer.say(thread, "charge 40 to order 4411").json()["waiting"][0]
    assert pause["tool"] == "charge_card"
    password = createstaff(data_dir, "ana")

    context = chromium.new_context(locale="en-US")
    page = context.new_page()
    sign_in(page, server.url, "ana", password)
    open_pause_from_queue(page, server.url, thread)
    arguments = {row.locator("th").inner_text(): (row.locator("td").nth(0).inner_text(),
                                                  row.locator("td").nth(1).inner_text())
                 for row in page.locator(".pause-arguments tbody tr").all()}
    assert arguments == {"amount": ("40", "you typed it"), "order_id": ("4411", "you typed it")}
    buttons = page.locator("button[name=decision]")
    assert buttons.all_inner_texts() == ["Approve", "Skip", "Cancel all"]

    second_tab = context.new_page()  # the same pause open in another tab, answered later
    second_tab.goto(page.url)

    page.click("button[value=approve]")
    assert "Answered: Approve." in page.inner_text(".messagelist")
    assert page.inner_text(".pause-answered").startswith("Approve by ana")
    assert len(shop.charges("4411")) == 1

    second_tab.click("button[value=approve]")
    stale = second_tab.inner_text(".messagelist")
    assert "Nothing changed" in stale and "“Approve” by ana" in stale
    assert len(shop.charges("4411")) == 1

    late = customer.resume(thread, pause, "approve")
    assert late.status_code == 409
    won = late.json()["interrupt"]
    assert (won["status"], won["decision"], won["answered_by"]) == ("answered", "approve", "ana")
    assert len(shop.charges("4411")) == 1

    # An approver is not offered the withdraw form and is refused opening it.
    page.goto(f"{server.url}/admin/")
    assert "Withdrawals" not in page.inner_text("#content-main")
    response = page.goto(f"{server.url}/admin/catalogue/withdrawal/add/")
    assert response is not None and response.status == 403
    context.close()
    customer.close()


def test_an_operator_rolls_back_from_the_thread_page_and_the_shop_shows_the_refund(server, data_dir, chromium):
    shop.reset()
    customer = Browser(server.url)
    thread = f"undo-{uuid.uuid4().hex[:8]}"
    pause = customer.say(thread, "charge 40 to order 4411").json()["waiting"][0]
    assert customer.resume(thread, pause, "approve").status_code == 200
    assert [c["kind"] for c in shop.charges("4411")] == ["charge"]
    password = createstaff(data_dir, "olga", operator=True)

    context = chromium.new_context(locale="en-US")
    page = context.new_page()
    sign_in(page, server.url, "olga", password)
    page.goto(f"{server.url}/admin/threads/thread/{customer.key(thread)}/change/")
    page.get_by_role("link", name="Roll back this thread…").click()
    assert "Step 1: charge_card" in page.inner_text(".rollback-writes")
    assert [c["kind"] for c in shop.charges("4411")] == ["charge"]  # asking changes nothing
    page.get_by_role("button", name="Yes, roll back").click()
    assert "Rolled back: 1 undone, 0 could not be undone, 0 stuck." in page.inner_text(".messagelist")
    assert "Step 1, charge_card: undone by refund_card" in page.inner_text(".rollback-report")
    assert [c["kind"] for c in shop.charges("4411")] == ["charge", "refund"]  # the shop shows the refund
    assert shop.get_order("4411")["status"] == "refunded"
    context.close()
    customer.close()


def test_with_a_portuguese_browser_the_pause_page_has_no_english_left(server, data_dir, chromium):
    shop.reset()
    customer = Browser(server.url)
    thread = f"pt-{uuid.uuid4().hex[:8]}"
    pause = customer.say(thread, "charge 40 to order 4411").json()["waiting"][0]
    texts = {}
    for locale, name in (("en-US", "eva"), ("pt-BR", "bia")):
        context = chromium.new_context(locale=locale)
        page = context.new_page()
        sign_in(page, server.url, name, createstaff(data_dir, name))
        page.goto(f"{server.url}/admin/threads/interrupt/{pause['id']}/change/")
        texts[locale] = page.inner_text("body")
        if locale == "pt-BR":
            assert page.locator("button[name=decision]").all_inner_texts() == ["Aprovar", "Pular", "Cancelar tudo"]
        context.close()
    # Every line the English page shows that the Portuguese page also shows must be data, not interface.
    data = {thread, customer.key(thread), pause["id"], "charge_card", "amount", "40", "order_id", "4411", "English",
            "Português Brasileiro", "EVA", "BIA",
            "charge 40 to order 4411"}  # what the person wrote, quoted as they wrote it
    english = {line.strip() for line in texts["en-US"].splitlines() if line.strip()}
    portuguese = {line.strip() for line in texts["pt-BR"].splitlines() if line.strip()}
    left = {line for line in english & portuguese if line not in data and not line.isdigit()}
    assert left == set(), f"English interface text on the pt-BR page: {left}"
    assert "Aprovar" in texts["pt-BR"] and "você digitou" in texts["pt-BR"]
    customer.close()


def test_screenshots_of_the_console_in_both_languages_light_and_dark(server, data_dir, chromium):
    shop.reset()
    customer = Browser(server.url)
    thread = f"shots-{uuid.uuid4().hex[:6]}"
    customer.say(thread, "show order 4411")
    pause = customer.say(thread, "refund 40 on order 4411").json()["waiting"][0]
    SHOTS.mkdir(parents=True, exist_ok=True)
    for locale, name in (("en-US", "olga"), ("pt-BR", "otto")):
        password = createstaff(data_dir, name, operator=True)
        for scheme in ("light", "dark"):
            context = chromium.new_context(locale=locale, color_scheme=scheme, viewport={"width": 1280, "height": 900})
            page = context.new_page()
            if scheme == "light":
                sign_in(page, server.url, name, password)
            else:
                sign_in_again(page, server.url, name)
            tag = f"{locale}-{scheme}"
            for label, path in (("queue", "/admin/threads/interrupt/"),
                                ("pause", f"/admin/threads/interrupt/{pause['id']}/change/"),
                                ("thread", f"/admin/threads/thread/{customer.key(thread)}/change/"),
                                ("tools", "/admin/catalogue/tool/")):
                response = page.goto(f"{server.url}{path}")
                assert response is not None and response.status == 200, path
                page.screenshot(path=str(SHOTS / f"{label}-{tag}.png"), full_page=True)
            context.close()
    assert len(list(SHOTS.glob("*.png"))) >= 16
    customer.close()
