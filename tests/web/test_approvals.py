"""Approval policies on the widget's card (docs/widget.md, "Approvals"), in a
real Chromium against a real `stalwart serve` of the shop with two policies:
a charge over 500 needs two approvals, one over 2000 needs them from staff
in the group `finance`.

What the customer sees: the card's count ("1 of 2 approvals"), an approval
short of the quorum taken as a success ("Your approval is recorded; it waits
for 1 more.", no answers left on the card, nothing charged), the console's
approval closing it live, a card the group answers shown read-only, and a
403 `not_an_approver` shown as the chat's error. Screenshots of each card, in
English and pt-BR, light and dark, go to ``STALWART_SCREENSHOTS`` (default
tests/web/screenshots/)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from examples.shop import tools as shop
from tests.support.server import ROOT, SHOP, Server
from tests.web.conftest import SHOTS, Watched, _server, _skip_without_browser, axe_serious, ready

pytestmark = pytest.mark.server

SHOT_DIR = Path(os.environ.get("STALWART_SCREENSHOTS", SHOTS))
POLICIES = """    policies:
      - name: {big}
        when: {{tool: charge_card, args: {{amount: {{gt: 500}}}}}}
        approvers: {{quorum: 2}}
      - name: {finance}
        when: {{tool: charge_card, args: {{amount: {{gt: 2000}}}}}}
        approvers: {{group: finance}}
"""
# What the customer reads, in each language.
WORDS = {
    "en": {
        "charge": "charge {amount} to order {order}", "title": "Charge the card?",
        "none": "0 of 2 approvals", "one": "1 of 2 approvals", "approve": "Approve", "skip": "Skip this step",
        "recorded": "Your approval is recorded; it waits for 1 more.", "group": "Waits for approval by finance.",
        "rule": "The rule “big charges” asks for it.", "others": "Waiting for other people's approval", "why": "Why this waits",
        "you": "You chose: Approve", "approvers": "The approvers chose: Approve", "worked": "It worked.",
    },
    "pt-BR": {
        "charge": "cobre {amount} no pedido {order}", "title": "Cobrar no cartão?",
        "none": "0 de 2 aprovações", "one": "1 de 2 aprovações", "approve": "Aprovar", "skip": "Pular este passo",
        "recorded": "Sua aprovação foi registrada; aguarda mais 1.", "group": "Aguarda a aprovação de finance.",
        "rule": "A regra “cobrancas grandes” pede isso.", "others": "Aguardando a aprovação de outras pessoas", "why": "Por que isso aguarda",
        "you": "Você escolheu: Aprovar", "approvers": "Os aprovadores escolheram: Aprovar", "worked": "Deu certo.",
    },
}
NAMES = {"en": {"big": "big-charges", "finance": "finance-charges"},
         "pt-BR": {"big": "cobrancas-grandes", "finance": "cobrancas-financeiro"}}

# The console's answer, as a staff member gives it (threads.engine.pause_answer, via the console), in a
# process of its own on the server's data folder: ``by`` is made a staff user in ``groups``.
CONSOLE = r"""
import json, sys
from stalwart_site.bootstrap import prepare, setup
agent, thread, session, pause, token, decision, by, groups = sys.argv[1:9]
prepare(agent_file=agent)
setup(agent_file=agent, migrate=False)
from django.contrib.auth.models import Group, User
from threads.engine import Via, pause_answer
from threads.errors import StalwartError
from tests.support.server import session_key
user, _ = User.objects.get_or_create(username=by, defaults={"is_staff": True})
for name in filter(None, groups.split(",")):
    user.groups.add(Group.objects.get_or_create(name=name)[0])
try:
    out = {"status": 200, "body": pause_answer(thread_id=session_key(thread, session), pause_id=pause,
                                               decision=decision, token=token, by=by, via=Via.CONSOLE).to_json()}
except StalwartError as error:
    out = {"status": error.http_status, "body": error.body()}
# This process's publisher sends the events to the channel layer on a thread of its own: let it finish
# before the process ends (else the page hears of them only when its stream next reads the database).
import time
from threads.engine import events
queue, until = events._publisher._queue, time.monotonic() + 10
while queue is not None and not queue.empty() and time.monotonic() < until:
    time.sleep(0.05)
time.sleep(0.5)
print(json.dumps(out))
"""


def policy_agent(folder: Path, language: str) -> Path:
    """The shop's agent file in ``language``, with the two policies."""
    text = SHOP.read_text(encoding="utf-8")
    text = text[:text.index("    policies:\n")]  # the shop's own policies (its last key) give way to these
    text = text.replace("vocabulary: vocabulary.yaml", f"vocabulary: {SHOP.parent / 'vocabulary.yaml'}")
    text = text.replace("    language: en\n", f"    language: {language}\n")
    text = text.replace("    withdrawn: []\n", "    withdrawn: []\n" + POLICIES.format(**NAMES[language]))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"agent-policies-{language}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def policy_shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    _skip_without_browser()
    agent = policy_agent(tmp_path_factory.mktemp("policy-agent"), "en")
    yield from _server(tmp_path_factory, "policy-shop", agent_file=agent)


@pytest.fixture(scope="module")
def policy_shop_pt(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    _skip_without_browser()
    agent = policy_agent(tmp_path_factory.mktemp("policy-agent-pt"), "pt-BR")
    yield from _server(tmp_path_factory, "policy-shop-pt", agent_file=agent)


def fresh(server: Server, monkeypatch: pytest.MonkeyPatch) -> Server:
    """The server's shop as docs/getting-started.md seeds it, read here through its data folder."""
    monkeypatch.setenv("STALWART_DATA_DIR", str(server.data_dir))
    shop.reset()
    return server


def console(server: Server, w: Watched, decision: str = "approve", *, by: str, groups: str = "") -> dict[str, Any]:
    """A staff member answers the page's open pause in the console: {status, body}."""
    session, thread = session_and_thread(w)
    (pause,) = httpx.get(f"{server.url}/threads/{thread}/interrupts", headers={"Stalwart-Session": session},
                         timeout=30).json()["interrupts"]
    env = {k: v for k, v in os.environ.items() if k not in ("STALWART_AGENT_FILE", "DJANGO_SETTINGS_MODULE",
                                                             "SECRET_KEY")}
    env["STALWART_DATA_DIR"] = str(server.data_dir)
    run = subprocess.run([sys.executable, "-c", CONSOLE, str(server.agent_file), thread, session, pause["id"],
                          pause["token"], decision, by, groups],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return dict(json.loads(run.stdout.strip().splitlines()[-1]))


def session_and_thread(w: Watched) -> tuple[str, str]:
    got = w.page.evaluate("""() => {
      const get = (name) => Object.entries(localStorage).find(([k]) => k.startsWith(`stalwart:${name}:`))[1];
      return [get('session'), get('thread')];
    }""")
    return got[0], got[1]


def widget_resume(server: Server, w: Watched) -> httpx.Response:
    """The page's own session approves once more, as the widget does."""
    session, thread = session_and_thread(w)
    (pause,) = httpx.get(f"{server.url}/threads/{thread}/interrupts", headers={"Stalwart-Session": session},
                         timeout=30).json()["interrupts"]
    return httpx.post(f"{server.url}/threads/{thread}/resume", timeout=30,
                      headers={"Stalwart-Session": session, "Stalwart-Client": "widget"},
                      json={"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]})


def card_text(w: Watched) -> str:
    return w.text(w.page.locator("stalwart-confirm").last)


def status(w: Watched) -> str:
    return str(w.page.locator("stalwart-chat [part=status]").inner_text())


def shots(w: Watched, name: str, language: str) -> None:
    """The page, light and dark (the chat's theme), with the card in view."""
    SHOT_DIR.mkdir(parents=True, exist_ok=True)
    w.page.locator("stalwart-confirm").last.scroll_into_view_if_needed()
    for theme in ("light", "dark"):
        w.page.evaluate(f"document.querySelector('stalwart-chat').setAttribute('theme', '{theme}')")
        w.page.screenshot(path=str(SHOT_DIR / f"approvals-{name}-{language}-{theme}.png"))
    w.page.evaluate("document.querySelector('stalwart-chat').removeAttribute('theme')")


def open_chat(open_page: Any, server: Server, language: str) -> Watched:
    w = open_page(f"{server.url}/?language={language}", width=480, height=860, axe=True)
    ready(w)
    return w


# The console's answer is made in a process of its own: it reaches the server's stream (and so the page,
# live) through a shared channel layer, Redis. Without one the server would read it a minute later.
live = pytest.mark.skipif(not os.environ.get("REDIS_URL"),
                          reason="the console's answer reaches the page's stream through Redis: set REDIS_URL")


@pytest.mark.parametrize("language", ["en", "pt-BR"])
def test_the_widgets_approval_short_of_the_quorum_is_recorded_and_nothing_runs(
        language, policy_shop, policy_shop_pt, open_page, monkeypatch):
    server = fresh(policy_shop if language == "en" else policy_shop_pt, monkeypatch)
    words = WORDS[language]
    w = open_chat(open_page, server, language)
    w.say(words["charge"].format(amount=600, order=4411))
    card = w.page.locator("stalwart-confirm")
    card.get_by_text(words["none"]).wait_for()
    shown = card_text(w)
    assert words["title"] in shown and words["rule"] in shown and "policy:" not in shown
    assert words["approve"] in shown and words["skip"] in shown

    card.get_by_role("button", name=words["approve"]).click()
    # A success, not an error: the count, the sentence, no answers left, and nothing charged.
    card.get_by_text(words["recorded"]).wait_for()
    expect(card.get_by_text(words["one"])).to_be_visible()
    assert card.locator("button").count() == 0
    assert w.page.locator("stalwart-chat [role=alert]").count() == 0
    assert status(w) == words["others"] and words["why"] in card_text(w)
    assert shop.charges("4411") == []
    assert axe_serious(w) == []
    shots(w, "recorded", language)

    # The same session again counts once: still one approval of two, still nothing charged.
    again = widget_resume(server, w)
    assert again.status_code == 202 and len(again.json()["approvals"]["given"]) == 1, again.text
    # After a reload the card still knows this page approved.
    w.page.reload()
    ready(w)
    card.get_by_text(words["recorded"]).wait_for()
    assert words["one"] in card_text(w) and card.locator("button").count() == 0
    assert status(w) == words["others"]
    assert shop.charges("4411") == []
    w.assert_clean()


@live
def test_the_consoles_approval_completes_the_quorum_and_the_card_closes_live(policy_shop, open_page, monkeypatch):
    server = fresh(policy_shop, monkeypatch)
    words = WORDS["en"]
    w = open_chat(open_page, server, "en")
    w.say(words["charge"].format(amount=600, order=4411))
    card = w.page.locator("stalwart-confirm")
    card.get_by_role("button", name=words["approve"]).click()
    card.get_by_text(words["recorded"]).wait_for()
    # A staff member's approval in the console is the second: the call runs, once, and the card says so.
    done = console(server, w, by=f"carla-{uuid.uuid4().hex[:6]}")
    assert done["status"] == 200, done
    card.get_by_text(words["you"]).wait_for()
    card.get_by_text(words["worked"]).wait_for()
    assert card.locator("button").count() == 0
    assert len(shop.charges("4411")) == 1
    expect(w.page.locator("stalwart-chat [part=status]")).to_have_text("")
    w.assert_clean()


@live
@pytest.mark.parametrize("language", ["en", "pt-BR"])
def test_a_console_approval_first_moves_the_count_live_and_the_widgets_approval_charges(
        language, policy_shop, policy_shop_pt, open_page, monkeypatch):
    server = fresh(policy_shop if language == "en" else policy_shop_pt, monkeypatch)
    words = WORDS[language]
    w = open_chat(open_page, server, language)
    w.say(words["charge"].format(amount=700, order=5001))
    card = w.page.locator("stalwart-confirm")
    card.get_by_text(words["none"]).wait_for()
    first = console(server, w, by=f"ana-{uuid.uuid4().hex[:6]}")
    assert first["status"] == 202 and first["body"]["status"] == "approval_recorded", first
    # Over the stream: the count moves, the answers stay (this page has not approved yet).
    card.get_by_text(words["one"]).wait_for()
    assert card.get_by_role("button", name=words["approve"]).is_visible()
    assert words["recorded"] not in card_text(w)
    assert status(w) != words["others"]
    assert shop.charges("5001") == []
    assert axe_serious(w) == []
    shots(w, "one-of-two", language)

    card.get_by_role("button", name=words["approve"]).click()
    card.get_by_text(words["you"]).wait_for()
    card.get_by_text(words["worked"]).wait_for()
    assert len(shop.charges("5001")) == 1
    w.assert_clean()


@pytest.mark.parametrize("language", ["en", "pt-BR"])
def test_a_card_the_finance_group_answers_is_read_only_here(language, policy_shop, policy_shop_pt, open_page,
                                                            monkeypatch):
    server = fresh(policy_shop if language == "en" else policy_shop_pt, monkeypatch)
    words = WORDS[language]
    w = open_chat(open_page, server, language)
    w.say(words["charge"].format(amount=2500, order=4411))
    card = w.page.locator("stalwart-confirm")
    card.get_by_text(words["group"]).wait_for()
    # Read-only: who approves and the count; no answer at all (Approve, Skip, Cancel) from this page.
    assert words["none"] in card_text(w)
    assert card.locator("button").count() == 0
    assert words["approve"] not in card_text(w) and words["skip"] not in card_text(w)
    assert status(w) == words["others"] and words["why"] in card_text(w)
    assert axe_serious(w) == []
    shots(w, "group", language)
    # The server agrees: this session may not answer it; nothing was charged.
    refused = widget_resume(server, w)
    assert refused.status_code == 403 and refused.json()["error"] == "not_an_approver", refused.text
    assert shop.charges("4411") == []
    w.assert_clean()


@live
def test_the_finance_groups_approvals_move_the_read_only_card_live_and_close_it(policy_shop, open_page, monkeypatch):
    server = fresh(policy_shop, monkeypatch)
    words = WORDS["en"]
    w = open_chat(open_page, server, "en")
    w.say(words["charge"].format(amount=2500, order=4411))
    card = w.page.locator("stalwart-confirm")
    card.get_by_text(words["group"]).wait_for()
    assert console(server, w, by=f"fin-a-{uuid.uuid4().hex[:6]}", groups="finance")["status"] == 202
    card.get_by_text(words["one"]).wait_for()
    assert card.locator("button").count() == 0 and shop.charges("4411") == []
    assert console(server, w, by=f"fin-b-{uuid.uuid4().hex[:6]}", groups="finance")["status"] == 200
    card.get_by_text(words["approvers"]).wait_for()
    card.get_by_text(words["worked"]).wait_for()
    assert len(shop.charges("4411")) == 1
    expect(w.page.locator("stalwart-chat [part=status]")).to_have_text("")
    w.assert_clean()


def test_a_403_not_an_approver_is_the_chats_error_and_nothing_else_changes(policy_shop, open_page, monkeypatch):
    """The page's view of the pause says anyone may answer (a policy that changed, say): the server's
    403 is shown as an error, in a sentence of its own, and the card takes answers as before."""
    server = fresh(policy_shop, monkeypatch)
    w = open_chat(open_page, server, "en")
    # The page sees the pause without its group, from the answer alone (no stream).
    w.page.evaluate("document.querySelector('stalwart-chat').eventSource = () => ({addEventListener() {}, close() {}})")

    def without_group(route: Any) -> None:
        response = route.fetch()
        body = response.json()
        for pause in body.get("waiting") or []:
            if pause.get("approvals"):
                pause["approvals"]["group"] = None
        route.fulfill(response=response, json=body)

    w.page.route("**/threads/*/messages", without_group)
    w.say("charge 2500 to order 4411")
    card = w.page.locator("stalwart-confirm")
    card.get_by_role("button", name="Approve").click()
    error = w.page.locator("stalwart-chat [role=alert]")
    error.get_by_text("Only the people who approve this step can answer it.").wait_for()
    error.get_by_text("Details").click()
    assert "not_an_approver, 403" in w.text(error)
    # Nothing else changed: the card is still open and takes answers; nothing was charged.
    assert card.get_by_role("button", name="Approve").get_attribute("aria-disabled") is None
    assert card.get_by_role("button", name="Skip this step").is_visible()
    assert "0 of 2 approvals" in card_text(w) and "recorded" not in card_text(w)
    assert shop.charges("4411") == []
    w.assert_clean(allow=lambda e: "403" in e)
