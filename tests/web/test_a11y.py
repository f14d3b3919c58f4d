"""axe-core (from npm, injected into the page) on every state of the widget:
no serious or critical violation; and every control is reached with Tab."""

from __future__ import annotations

import json

import pytest

from tests.web.conftest import axe_serious, ready
from tests.web.test_chat import FAKE, ROLLBACK, pause

pytestmark = pytest.mark.server


def test_axe_finds_nothing_serious_in_any_state(shop, strict_shop, open_page):
    w = open_page(shop.url + "/", axe=True)
    ready(w)
    assert axe_serious(w) == [], "empty"
    w.page.locator("stalwart-chat [part~=can] summary").click()
    assert axe_serious(w) == [], "what I can do, open"

    w.say("charge 40 to order 4411")
    w.page.get_by_role("button", name="Approve").wait_for()
    assert axe_serious(w) == [], "waiting"
    w.page.evaluate("document.querySelector('stalwart-chat').setAttribute('thumbs', '')")
    w.page.get_by_role("button", name="Skip this step").click()  # the shop's orders stay for the other tests
    w.page.get_by_text("Skipped charge card.").wait_for()
    assert axe_serious(w) == [], "replied"

    w.page.evaluate("document.querySelector('stalwart-chat').setAttribute('theme', 'dark')")
    w.say("refund 40 on order 4411")
    w.page.get_by_role("button", name="Approve").wait_for()
    assert axe_serious(w) == [], "dark, irreversible"

    # Every other kind, a rollback and an error, through a chat that answers from memory.
    waiting = [
        pause(id="p-u", kind="outcome_unknown", choices=["happened", "did_not_happen"], reasons=[]),
        pause(id="p-a", kind="ask", choices=["answer"], reasons=["ask"], arguments=[],
              ask={"kind": "open", "prompt": "Which order?"}),
        pause(id="p-c", kind="ask", choices=["answer"], reasons=["ask"], arguments=[],
              ask={"kind": "choice", "prompt": "Which card?", "choices": ["visa-0019", "mc-4420"]}),
        pause(id="p-d", kind="delegate", tool="", choices=["approve", "decline"], reasons=["unread"], arguments=[]),
    ]
    answer = {"thread": "u-a", "run": "r-1", "reply": {"id": "m-1", "text": "Several things wait."},
              "waiting": waiting, "refusals": [{"tool": "x", "rule": "withdrawn", "sentence": "No.", "step": 3}],
              "rollback": ROLLBACK, "steps": [{"step": 1, "tool": "charge_card", "status": "waiting"}]}
    for theme in ["light", "dark"]:
        w.page.evaluate(FAKE, {"messages": [{"body": answer}, {"status": 500, "body": {"error": "boom", "detail": "x"}}],
                               "attributes": {"theme": theme, "staff": "", "thumbs": ""}})
        ready(w)
        w.say("several things")
        w.page.locator("stalwart-rollback").wait_for()
        w.say("again")
        w.page.get_by_role("button", name="Try again").wait_for()
        w.page.get_by_text("Details").click()
        assert axe_serious(w) == [], f"every kind, {theme}"

    s = open_page(strict_shop.url + "/", axe=True, color_scheme="dark")
    ready(s)
    s.page.evaluate("document.querySelector('stalwart-chat').setAttribute('staff', '')")
    s.say("refund 40 on order 4411")
    s.page.locator("stalwart-decision").wait_for()
    assert axe_serious(s) == [], "refused, staff, dark"


def test_axe_on_a_phone_in_portuguese(shop_pt, open_page):
    w = open_page(shop_pt.url + "/", axe=True, width=390, height=844, locale="pt-BR")
    ready(w)
    w.say("cobre 40 no pedido 4411")
    w.page.get_by_role("button", name="Aprovar").wait_for()
    assert axe_serious(w) == []
    assert w.page.evaluate("document.querySelector('stalwart-chat').shadowRoot.querySelector('.frame').lang") == "pt-BR"


def test_every_control_is_reached_with_tab_and_shows_its_focus(shop, open_page):
    w = open_page(shop.url + "/")
    ready(w)
    w.say("charge 40 to order 4411")
    w.page.get_by_role("button", name="Approve").wait_for()
    w.page.evaluate("document.activeElement.blur()")
    reached = []
    for _ in range(12):
        w.page.keyboard.press("Tab")
        reached.append(w.page.evaluate("""() => {
          let a = document.activeElement;
          while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
          const style = getComputedStyle(a);
          return [a.localName, (a.textContent || a.getAttribute('placeholder') || '').trim(), style.outlineStyle];
        }"""))
    names = [r[1] for r in reached]
    for expected in ["What I can do", "Approve", "Skip this step", "Cancel everything", "Write a message", "Send"]:
        assert expected in names, json.dumps(reached)
    # Each control shows where the focus is (a visible outline; the composer's box has its own).
    assert all(style != "none" for tag, _, style in reached if tag in ("button", "summary", "textarea")), reached
