"""The queue staff live in (issue 24), in Debian's Chromium against a real
``stalwart serve``: an open, filtered queue gains a pause made over HTTP and
loses it when another browser answers it, within 2 s, the header's count and
the tab title following; a row's approve charges once and a stale click says
who won; a bulk approve reports each pause (two charges, the third lost) and
stops at a confirmation for an irreversible one; the decisions page lists
them with who and from where, and its CSV holds the same rows. In English and
pt-BR, light and dark, by keyboard, with axe-core finding nothing serious;
screenshots to tests/web/screenshots/ (or STALWART_SCREENSHOTS)."""

from __future__ import annotations

import csv
import io
import os
import re
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from examples.shop import tools as shop
from tests.e2e.test_console_browser import createstaff
from tests.support.server import Browser, Server
from tests.support.workers import database_of_its_own
from tests.web.conftest import AXE, SHOTS, axe_serious

pytestmark = [pytest.mark.server, pytest.mark.browser]

QUEUE = "/admin/threads/interrupt/"
SHOT_DIR = Path(os.environ.get("STALWART_SCREENSHOTS", SHOTS))
WATCH = """
window.__stalwartCsp = [];
document.addEventListener("securitypolicyviolation", (e) => window.__stalwartCsp.push(e.violatedDirective));
"""


def signed_in(chromium: Any, server: Server, name: str, *, locale: str = "en-US", color_scheme: str = "light",
              javascript: bool = True) -> Any:
    """A page of a fresh browser context, signed in past the first password change."""
    password = createstaff(server.data_dir, name)
    context = chromium.new_context(locale=locale, color_scheme=color_scheme, java_script_enabled=javascript,
                                   viewport={"width": 1280, "height": 800}, reduced_motion="reduce")
    context.add_init_script(WATCH)
    if AXE.exists():
        context.add_init_script(path=str(AXE))
    page = context.new_page()
    page.errors = []  # type: ignore[attr-defined]
    page.on("pageerror", lambda e: page.errors.append(str(e)))  # type: ignore[attr-defined]
    page.goto(f"{server.url}/admin/login/")
    page.fill("#id_username", name)
    page.fill("#id_password", password)
    page.click("input[type=submit]")
    page.fill("#id_old_password", password)
    page.fill("#id_new_password1", f"a-long-new-password-{name}")
    page.fill("#id_new_password2", f"a-long-new-password-{name}")
    page.click("input[type=submit]")
    return page


def live(page: Any) -> None:
    """Wait until the page follows the staff stream."""
    page.locator("html[data-staff-stream=open]").wait_for(state="attached", timeout=10_000)


def row(page: Any, pause_id: str) -> Any:
    return page.locator(f'#result_list tbody tr:has(input.action-select[value="{pause_id}"])')


def shot(page: Any, name: str) -> None:
    SHOT_DIR.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOT_DIR / f"console-{name}.png"), full_page=False)


def clean(page: Any) -> None:
    assert page.errors == []
    assert page.evaluate("window.__stalwartCsp") == []
    if AXE.exists():
        assert axe_serious(_Watched(page)) == [], page.url


class _Watched:
    def __init__(self, page: Any) -> None:
        self.page = page


def say(customer: Browser, text: str) -> tuple[str, dict[str, Any]]:
    thread = f"live-{uuid.uuid4().hex[:8]}"
    return thread, customer.say(thread, text).json()["waiting"][0]


@pytest.fixture
def server(shop_dir: Path) -> Any:
    """The shop's server, on PostgreSQL with a database of its own: the header
    counts every open pause the server holds, and the worker's database keeps
    other tests' (createstaff reads the same ``DATABASE_URL``)."""
    with database_of_its_own(os.environ), Server(shop_dir) as s:
        yield s


def test_an_open_filtered_queue_follows_pauses_made_and_answered_elsewhere(server, chromium):
    shop.reset()
    ana = signed_in(chromium, server, "ana")
    ana.goto(f"{server.url}{QUEUE}?kind__exact=confirm")
    live(ana)
    assert ana.locator(".work-count").inner_text() == "0"
    # The stream's first open reads the rows once more; with nothing new, a screen reader hears nothing.
    time.sleep(0.6)
    assert ana.locator(".queue-live-status").inner_text() == ""
    customer = Browser(server.url)
    _thread, pause = say(customer, "charge 40 to order 4411")
    made = time.monotonic()
    row(ana, pause["id"]).wait_for(timeout=2_000)
    assert time.monotonic() - made < 2.0
    expect(ana.locator(".queue-live-status")).to_have_text("The queue updates itself as pauses arrive and close.")
    assert "charge_card: " in row(ana, pause["id"]).inner_text() and "order_id 4411" in row(ana, pause["id"]).inner_text()
    expect(ana.locator(".work-count")).to_have_text("1", timeout=2_000)
    assert ana.title().startswith("(1) ")
    # A question waits too: the header counts it, the confirm-only queue keeps its filter.
    _t, question = say(customer, "show order")
    expect(ana.locator(".work-count")).to_have_text("2", timeout=2_000)
    time.sleep(0.5)
    assert row(ana, question["id"]).count() == 0 and "kind__exact=confirm" in ana.url
    shot(ana, "live-queue-en-light")
    clean(ana)

    # Bia answers from her row; a page without script shows the row as it was (a stale copy).
    bia = signed_in(chromium, server, "bia")
    bia.goto(f"{server.url}{QUEUE}")
    stale = signed_in(chromium, server, "cai", javascript=False)
    stale.goto(f"{server.url}{QUEUE}")
    approve = row(bia, pause["id"]).get_by_role("button", name=re.compile(r"^Approve: charge_card"))
    shot(bia, "row-actions-en-light")
    approve.click()
    answered = time.monotonic()
    bia.get_by_text("Answered: Approve (charge_card:").wait_for()
    assert len(shop.charges("4411")) == 1
    row(ana, pause["id"]).wait_for(state="detached", timeout=2_000)
    assert time.monotonic() - answered < 2.0
    expect(ana.locator(".work-count")).to_have_text("1", timeout=2_000)
    assert ana.title().startswith("(1) ")
    # The stale copy's button: says who won, charges nothing more.
    row(stale, pause["id"]).get_by_role("button", name=re.compile(r"^Approve: ")).click()
    said = stale.locator(".messagelist").inner_text()
    assert "already answered" in said and "bia" in said
    assert len(shop.charges("4411")) == 1
    customer.close()


def test_bulk_answers_report_each_pause_and_the_decisions_page_keeps_them(server, chromium):
    shop.reset()
    customer = Browser(server.url)
    made = [say(customer, "charge 40 to order 4411"), say(customer, "charge 99.90 to order 5001"),
            say(customer, "charge 40 to order 4411")]
    ana = signed_in(chromium, server, "ana")
    ana.goto(f"{server.url}{QUEUE}")
    live(ana)
    for _thread, pause in made:
        row(ana, pause["id"]).locator("input.action-select").check()
    # The third is answered elsewhere (the customer skips it) while Ana's page is open.
    thread3, pause3 = made[2]
    assert customer.resume(thread3, pause3, "skip").status_code == 200
    # The live queue keeps a checked row that closed, marked closed, so the report can name it.
    row(ana, pause3["id"]).locator("xpath=self::tr[contains(@class, 'queue-closed')]").wait_for(timeout=2_000)
    shot(ana, "live-queue-closed-en-light")
    ana.select_option("select[name=action]", "approve_selected")
    ana.get_by_role("button", name="Go", exact=True).click()
    ana.locator(".bulk-report").wait_for()
    report = ana.locator(".bulk-report-table").inner_text()
    assert "Approve: 2 pauses answered." in ana.locator(".bulk-report").inner_text()
    assert report.count("Done") == 2 and "Lost to someone else" in report
    assert ana.locator(f'tr.bulk-lost[data-pause="{pause3["id"]}"]').count() == 1
    assert len(shop.charges()) == 2
    shot(ana, "bulk-report-en-light")
    clean(ana)

    # An irreversible refund in a bulk approve stops at a page naming it.
    _t, refund = say(customer, "refund 40 on order 4411")
    ana.goto(f"{server.url}{QUEUE}")
    row(ana, refund["id"]).locator("input.action-select").check()
    ana.select_option("select[name=action]", "approve_selected")
    ana.get_by_role("button", name="Go", exact=True).click()
    ana.locator(".bulk-confirm").wait_for()
    assert "refund_card:" in ana.locator(".bulk-irreversible").inner_text()
    assert [c["kind"] for c in shop.charges("4411")] == ["charge"]
    shot(ana, "bulk-confirm-en-light")
    clean(ana)
    ana.get_by_role("link", name="No, take me back").click()
    row(ana, refund["id"]).wait_for()

    # The decisions page: each answer with who and from where; its CSV, the same rows.
    ana.goto(f"{server.url}/admin/approvals/decision/")
    table = ana.locator("#result_list").inner_text()
    assert table.count("ana") == 2 and "the customer" in table and "HTTP" in table and "console" in table
    shot(ana, "decisions-en-light")
    clean(ana)
    with ana.expect_download() as got:
        ana.get_by_role("link", name="Export as CSV").click()
    rows = list(csv.reader(io.StringIO(Path(got.value.path()).read_text(encoding="utf-8-sig"))))
    shown = ana.locator("#result_list tbody tr").evaluate_all(
        "rows => rows.map(r => [...r.cells].map(c => c.innerText.trim()))")
    assert [r[1] for r in rows[1:]] == [s[1] for s in shown]  # who, in the same order
    assert [r[4] for r in rows[1:]] == [s[3] for s in shown]  # the thread
    assert {r[2] for r in rows[1:]} == {p["id"] for _t, p in made}
    customer.close()


def test_the_console_in_portuguese_and_dark_by_keyboard(server, chromium):
    shop.reset()
    customer = Browser(server.url)
    _t, charge = say(customer, "charge 40 to order 4411")
    _t, refund = say(customer, "refund 40 on order 4411")
    bia = signed_in(chromium, server, "bia", locale="pt-BR", color_scheme="dark")
    bia.goto(f"{server.url}/admin/")
    assert "Esperando uma pessoa" in bia.locator(".queue-summary").inner_text()
    shot(bia, "index-pt-dark")
    clean(bia)
    bia.goto(f"{server.url}{QUEUE}")
    live(bia)
    text = bia.locator("#content").inner_text().lower()  # column heads are upper case by CSS
    for words in ("o que pede", "aprovar", "pular", "a mensagem de uma pessoa"):
        assert words in text, words
    for english in ("approve", "skip", "what it asks", "a person's turn"):
        assert english not in text, english
    assert "pausas esperando" in bia.locator("#user-tools").inner_text().lower()
    # By keyboard: Tab reaches the first row's Approve.
    target = row(bia, charge["id"]).get_by_role("button", name=re.compile(r"^Aprovar: "))
    bia.locator("#searchbar").focus()
    for _ in range(80):
        bia.keyboard.press("Tab")
        if target.evaluate("el => el === document.activeElement"):
            break
    else:
        raise AssertionError("Tab never reached the row's Approve")
    shot(bia, "live-queue-pt-dark")
    clean(bia)
    bia.keyboard.press("Enter")
    bia.get_by_text("Respondida: Aprovar").wait_for()
    assert len(shop.charges("4411")) == 1
    # A row's button keeps the focus while the rows are read again around it (a new pause arrives).
    refund_approve = row(bia, refund["id"]).get_by_role("button", name=re.compile(r"^Aprovar: "))
    refund_approve.focus()
    _t, more = say(customer, "charge 99.90 to order 5001")
    row(bia, more["id"]).wait_for(timeout=2_000)
    expect(refund_approve).to_be_focused()
    shot(bia, "row-actions-pt-dark")
    row(bia, refund["id"]).locator("input.action-select").check()
    bia.select_option("select[name=action]", "approve_selected")
    bia.get_by_role("button", name="Ir", exact=True).click()
    bia.locator(".bulk-confirm").wait_for()
    assert "irreversível" in bia.locator(".bulk-confirm").inner_text()
    shot(bia, "bulk-confirm-pt-dark")
    clean(bia)
    bia.get_by_role("button", name="Sim, aprovar").click()
    bia.locator(".bulk-report").wait_for()
    assert "Feito" in bia.locator(".bulk-report-table").inner_text()
    shot(bia, "bulk-report-pt-dark")
    clean(bia)
    bia.goto(f"{server.url}/admin/approvals/decision/")
    assert "Decisões" in bia.locator("h1").inner_text()
    # Every column in view at 1280 px beside the filters (a thread's key breaks, a long heading wraps).
    assert bia.locator("#changelist .results").evaluate("el => el.scrollWidth <= el.clientWidth")
    assert "origem da resposta" in bia.locator("#result_list thead").inner_text().lower()
    shot(bia, "decisions-pt-dark")
    clean(bia)
    customer.close()


def test_an_answer_given_in_the_widget_is_listed_as_the_widgets(server, chromium):
    shop.reset()
    context = chromium.new_context(viewport={"width": 900, "height": 760}, reduced_motion="reduce")
    customer = context.new_page()
    customer.goto(f"{server.url}/")
    box = customer.locator("stalwart-chat textarea")
    box.fill("charge 40 to order 4411")
    box.press("Enter")
    customer.locator("stalwart-confirm").get_by_text("Charge the card?").wait_for()
    customer.get_by_role("button", name="Approve").click()
    customer.get_by_text("You chose: Approve").wait_for()
    assert len(shop.charges("4411")) == 1
    context.close()
    ana = signed_in(chromium, server, "ana")
    ana.goto(f"{server.url}/admin/approvals/decision/")
    cells = ana.locator("#result_list tbody tr").first.locator("td").all_inner_texts()
    assert "the customer" in cells and "Approve" in cells and cells[-1] == "widget", cells
    clean(ana)
