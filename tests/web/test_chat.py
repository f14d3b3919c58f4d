"""<stalwart-chat> and its four companions at GET /, in a real Chromium,
against real `stalwart serve` processes (issue 11's "Done means").

Each test asserts what a person sees (visible text, computed styles, where the
focus is), and leaves a screenshot of its state in tests/web/screenshots/.
"""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.web.conftest import Watched, ready

pytestmark = pytest.mark.server

ELEMENTS = ["stalwart-chat", "stalwart-confirm", "stalwart-decision", "stalwart-rollback", "stalwart-trace"]
SHOP_GREETING = "Hello! I'm Shop. I look up your orders, charge them and refund them."


def confirm_text(w: Watched) -> str:
    return w.text(w.page.locator("stalwart-confirm").last)


def deep_active(w: Watched) -> str:
    """The focused element through shadow roots: its tag and text."""
    return str(w.page.evaluate("""() => {
      let a = document.activeElement;
      while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
      return a ? `${a.localName}:${(a.textContent || '').trim()}` : '';
    }"""))


def test_at_root_a_charge_is_approved_by_mouse_and_another_by_keyboard_alone(shop, open_page):
    w = open_page(shop.url + "/")
    ready(w)
    assert w.page.evaluate(f"{json.dumps(ELEMENTS)}.map(n => Boolean(customElements.get(n)))") == [True] * 5
    # The agent's name and greeting come with its description, which may land after the composer is ready.
    expect(w.page.locator("stalwart-chat h1")).to_have_text("Shop")
    expect(w.page.get_by_text(SHOP_GREETING)).to_be_visible()
    assert "[object" not in w.text()
    w.shot("empty")

    w.say("charge 40 to order 4411")
    card = w.page.locator("stalwart-confirm")
    card.get_by_text("Charge the card?").wait_for()
    shown = confirm_text(w)
    for expected in ["What it will use", "Amount", "40", "Order", "4411", "you typed it", "Why this needs you",
                     "It changes something.", "Approve", "Skip this step", "Cancel everything"]:
        assert expected in shown
    assert shown.count("you typed it") == 2
    assert w.page.locator("stalwart-chat [part=status]").inner_text() == "Waiting for your decision"
    w.shot("waiting")

    w.page.get_by_role("button", name="Approve").click()
    w.page.get_by_text("ch-4411").wait_for()
    assert "Done: charge card. charge id: ch-4411" in w.text()
    assert "charge_card" not in w.text() and "order_id" not in w.text()  # words for people, never raw names
    # The reply may come over the stream before the answer's own response: wait for both.
    w.page.get_by_text("You chose: Approve").wait_for()
    # The answered card stays where it was, collapsed, with the decision and what came of it;
    # the transcript reads in the order things happened.
    assert card.count() == 1 and card.locator("button").count() == 0
    card.get_by_text("It worked.").wait_for()
    assert "Charge the card?" in confirm_text(w)
    log = w.text(w.page.locator("stalwart-chat [part=log]"))
    order = [log.index(t) for t in ["charge 40 to order 4411", "Charge the card? It waits for your approval.",
                                    "You chose: Approve", "Done: charge card."]]
    assert order == sorted(order)
    w.shot("answered")
    assert w.page.locator("stalwart-chat [part=status]").inner_text() == ""

    # Keyboard alone: the focus went back to the composer; type, Enter, Tab, Enter.
    assert deep_active(w).startswith("textarea")
    w.page.keyboard.type("charge 99.90 to order 5001")
    w.page.keyboard.press("Enter")
    card.get_by_text("99.90", exact=True).wait_for()
    assert deep_active(w).startswith("section")  # the question has the focus, not an answer
    w.page.keyboard.press("Tab")
    assert deep_active(w) == "button:Approve"
    w.page.keyboard.press("Enter")
    w.page.get_by_text("ch-5001").wait_for()
    # The answer's own response (after which the focus goes back) may follow the streamed reply.
    w.page.get_by_text("You chose: Approve").nth(1).wait_for()
    assert deep_active(w).startswith("textarea")
    w.assert_clean()


def test_set_strings_changes_a_buttons_words(shop, open_page):
    w = open_page(shop.url + "/")
    ready(w)
    assert w.page.get_by_role("button", name="Send").is_visible()
    w.page.evaluate("import('/static/stalwart/index.js').then(m => m.setStrings({ send: 'Go', placeholder: 'Ask the shop' }))")
    assert w.page.get_by_role("button", name="Go").is_visible()
    assert w.page.get_by_role("button", name="Send").count() == 0
    assert w.page.get_by_placeholder("Ask the shop").is_visible()
    w.assert_clean()


def test_theme_switches_the_defaults_and_a_pages_own_accent_wins(shop, open_page):
    w = open_page(shop.url + "/")
    ready(w)
    chat = "document.querySelector('stalwart-chat')"
    frame = f"{chat}.shadowRoot.querySelector('.frame')"
    send = f"{chat}.shadowRoot.querySelector('[part~=composer] button')"
    assert w.css(chat, "--stalwart-bg") == "#ffffff"
    assert w.css(frame, "background-color") == "rgb(255, 255, 255)"
    w.page.evaluate(f"{chat}.setAttribute('theme', 'dark')")
    assert w.css(chat, "--stalwart-bg") == "#121212"
    assert w.css(frame, "background-color") == "rgb(18, 18, 18)"
    assert w.css(send, "background-color") == "rgb(138, 180, 248)"  # --stalwart-accent, dark

    w.say("charge 40 to order 4411")
    w.page.locator("stalwart-confirm").get_by_text("you typed it").first.wait_for()
    confirm = f"{chat}.shadowRoot.querySelector('stalwart-confirm')"
    assert w.css(confirm, "--stalwart-bg") == "#121212"  # the nested element follows the chat
    w.shot("dark-waiting")

    # The page's own rule on the element wins over the element's defaults (CSSOM: the CSP allows no <style>).
    w.page.evaluate(f"""() => {{
      const sheet = new CSSStyleSheet();
      sheet.replaceSync('stalwart-chat {{ --stalwart-accent: #2e7d32; }}');
      document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
      {chat}.removeAttribute('theme');
    }}""")
    assert w.css(send, "background-color") == "rgb(46, 125, 50)"
    approve = f"{confirm}.shadowRoot.querySelector('button.primary')"
    assert w.css(approve, "background-color") == "rgb(46, 125, 50)"
    w.assert_clean()


def test_the_persons_setting_chooses_when_no_theme_is_set(shop, open_page):
    w = open_page(shop.url + "/", color_scheme="dark")
    ready(w)
    chat = "document.querySelector('stalwart-chat')"
    assert w.css(chat, "--stalwart-bg") == "#121212"
    w.shot("dark-empty")
    w.page.evaluate(f"{chat}.setAttribute('theme', 'light')")
    assert w.css(chat, "--stalwart-bg") == "#ffffff"
    w.assert_clean()


def test_a_turn_and_a_value_holding_html_show_as_text_and_nothing_runs(shop, open_page):
    w = open_page(shop.url + "/")
    ready(w)
    turn = '<img src=x onerror="window.__owned=1"><b>hi</b>'
    w.say(turn)
    w.page.locator("stalwart-confirm").wait_for()  # nothing reads it: may the model have it?
    assert w.page.get_by_text(turn, exact=True).is_visible()
    w.say("charge 40")
    w.page.locator("stalwart-confirm").get_by_text("Which order?").wait_for()

    value = "<img src=y onerror=window.__owned=2><script>window.__owned=3</script>"
    answer = w.page.locator("stalwart-confirm").get_by_role("textbox")
    answer.fill(value)
    answer.press("Enter")
    w.page.locator("stalwart-confirm").get_by_text("Charge the card?").wait_for()
    shown = confirm_text(w)
    assert value in shown and "you answered it" in shown
    markup = w.page.evaluate("""() => {
      const found = [];
      const walk = (root) => root.querySelectorAll('*').forEach((n) => {
        if (['img', 'b', 'script'].includes(n.localName)) found.push(n.localName);
        if (n.shadowRoot) walk(n.shadowRoot);
      });
      walk(document.body);
      return found;
    }""")
    assert markup == []
    assert w.page.evaluate("window.__owned") is None
    w.shot("html-as-text")
    w.assert_clean()


def test_a_reload_shows_the_waiting_pause_again(shop, open_page):
    w = open_page(shop.url + "/")
    ready(w)
    w.say("charge 40 to order 4411")
    w.page.locator("stalwart-confirm").get_by_text("you typed it").first.wait_for()
    w.page.reload()
    ready(w)
    card = w.page.locator("stalwart-confirm")
    card.get_by_text("Charge the card?").wait_for()
    assert "4411" in confirm_text(w) and "you typed it" in confirm_text(w)
    assert w.page.locator("stalwart-chat [part=status]").inner_text() == "Waiting for your decision"
    session = w.page.evaluate("Object.keys(localStorage).filter(k => k.startsWith('stalwart:session:'))")
    assert len(session) == 1
    w.page.get_by_role("button", name="Skip this step").click()
    w.page.get_by_text("Skipped charge card.").wait_for()
    # Once the answer's own response is in (the streamed reply may come first): kept, collapsed.
    card.get_by_text("You chose: Skip this step").wait_for()
    assert card.locator("button").count() == 0
    w.assert_clean()


def _session_and_thread(w):  # type: ignore[no-untyped-def]
    return w.page.evaluate("""() => {
      const get = (name) => Object.entries(localStorage).find(([k]) => k.startsWith(`stalwart:${name}:`))[1];
      return [get('session'), get('thread')];
    }""")


def _skip_from_another_tab(shop, session: str, thread: str) -> None:  # type: ignore[no-untyped-def]
    with httpx.Client(base_url=shop.url, headers={"Stalwart-Session": session}, timeout=30) as other:
        (waiting,) = other.get(f"/threads/{thread}/interrupts").json()["interrupts"]
        body = {"interrupt_id": waiting["id"], "decision": "skip", "token": waiting["token"]}
        assert other.post(f"/threads/{thread}/resume", json=body).status_code == 200


def test_an_answer_that_lost_the_race_says_so_and_shows_what_waits_now(shop, open_page):
    w = open_page(shop.url + "/")
    ready(w)
    # A stream that stays silent (a proxy that holds events back): the page
    # learns of the other tab's answer only from its own answer's 409.
    w.page.evaluate("document.querySelector('stalwart-chat').eventSource = () => "
                    "({addEventListener() {}, close() {}})")
    w.say("charge 40 to order 4411")
    w.page.get_by_role("button", name="Approve").wait_for()
    _skip_from_another_tab(shop, *_session_and_thread(w))
    w.page.get_by_role("button", name="Approve").click()
    w.page.get_by_text("That was already answered. Here is what waits now.").wait_for()
    assert w.page.locator("stalwart-confirm").count() == 0
    assert w.page.locator("stalwart-chat [part=status]").inner_text() == ""
    w.assert_clean(allow=lambda e: "409" in e)


def test_an_answer_from_another_tab_reaches_this_page_through_the_stream(shop, open_page):
    w = open_page(shop.url + "/")
    ready(w)
    w.say("charge 40 to order 4411")
    w.page.get_by_role("button", name="Approve").wait_for()
    _skip_from_another_tab(shop, *_session_and_thread(w))
    w.page.locator("stalwart-confirm").get_by_text("You chose: Skip this step").wait_for()
    w.page.get_by_text("Skipped charge card.").wait_for()
    assert w.page.get_by_role("button", name="Approve").count() == 0
    w.assert_clean()


def test_a_refusal_shows_in_one_sentence_with_its_rule_on_disclosure(strict_shop, open_page):
    w = open_page(strict_shop.url + "/")
    ready(w)
    w.say("refund 40 on order 4411")
    decision = w.page.locator("stalwart-decision")
    decision.get_by_text("Not done").wait_for()
    sentence = "Refund card needs the 'refunds' privilege, which this conversation does not have."
    assert decision.get_by_text(sentence).is_visible()
    assert w.text().count(sentence) == 1  # the reply does not say it a second time
    rule = decision.get_by_text("privilege:refunds")
    assert not rule.is_visible()
    decision.get_by_text("Which rule?").focus()
    w.page.keyboard.press("Enter")
    assert rule.is_visible()
    w.shot("refused")

    # Staff see the rule outright, and the thread's steps.
    w.page.evaluate("document.querySelector('stalwart-chat').setAttribute('staff', '')")
    w.say("refund 40 on order 4411")
    w.page.locator("stalwart-decision").nth(1).wait_for()
    assert w.page.locator("stalwart-decision").nth(1).get_by_text("privilege:refunds").is_visible()
    trace = w.page.locator("stalwart-trace")
    assert trace.get_by_text("What happened").is_visible()
    assert "refund_card" in w.text(trace) and "refused" in w.text(trace)
    w.shot("staff")
    w.assert_clean()


ROLLBACK = {
    "undone": [{"step": 1, "tool": "charge_card", "undo_tool": "refund_card"}],
    "not_undoable": [{"step": 2, "tool": "send_receipt"}],
    "stuck": [{"step": 3, "tool": "archive_order"}],
}


FAKE = """
(answers) => {
  const enc = new TextEncoder();
  window.__calls = [];
  const json = (body, status = 200) => new Response(JSON.stringify(body), {
    status, headers: { 'Content-Type': 'application/json', 'Stalwart-Session': 'fake-session-0123456789' },
  });
  let streams = 0;
  window.__fake = async (url, init) => {
    const path = new URL(url, location.href).pathname;
    const call = { path, method: init.method || 'GET', headers: init.headers || {}, body: init.body ? JSON.parse(init.body) : null };
    window.__calls.push(call);
    const route = path.split('/').pop();
    if (route === 'stream') {
      const events = answers.stream?.[streams++];
      if (!events) return new Promise(() => {});
      const body = new ReadableStream({ start(c) { c.enqueue(enc.encode(events.text)); if (!events.open) c.close(); } });
      return new Response(body, { headers: { 'Content-Type': 'text/event-stream' } });
    }
    const queue = answers[route];
    const next = Array.isArray(queue) ? (queue.length > 1 ? queue.shift() : queue[0]) : queue;
    if (!next) return json({ error: 'not_found', detail: 'There is nothing here.' }, 404);
    if (next.delay) await new Promise((r) => setTimeout(r, next.delay));
    return json(next.body, next.status || 200);
  };
  const old = document.querySelector('stalwart-chat');
  const chat = document.createElement('stalwart-chat');
  chat.fetcher = window.__fake;
  chat.bot = answers.bot || { name: 'Shop', purpose: 'I look up your orders.', language: 'en', stream: Boolean(answers.stream) };
  for (const [k, v] of Object.entries(answers.attributes || {})) chat.setAttribute(k, v);
  old.replaceWith(chat);
}
"""


def fake_chat(w: Watched, answers: dict[str, Any]) -> None:
    w.page.evaluate(FAKE, answers)
    ready(w)


def calls(w: Watched) -> list[dict[str, Any]]:
    return list(w.page.evaluate("window.__calls"))


def pause(**over: Any) -> dict[str, Any]:
    base = {"id": "p-1", "kind": "confirm", "tool": "charge_card", "question": "Run charge_card?",
            "arguments": [{"name": "amount", "value": 40, "origin": "typed"}], "reasons": ["write"],
            "irreversible": False, "choices": ["approve", "skip", "cancel_all"], "token": "tok-1", "step": 1}
    return {**base, **over}


def test_cancel_everything_shows_what_the_run_undid_and_what_it_could_not(shop, open_page):
    charge = pause(id="p-c", arguments=[{"name": "amount", "value": 40, "origin": "typed"},
                                         {"name": "order_id", "value": "4411", "origin": "typed"}])
    asked = {"thread": "u-r", "run": "r-1", "reply": {"id": "m-1", "text": "charge_card waits for your approval."},
             "waiting": [charge], "refusals": [], "rollback": None, "steps": []}
    undone = {**asked, "reply": {"id": "m-2", "text": "Cancelled: nothing more of this run will happen."},
              "waiting": [], "rollback": ROLLBACK}
    w = open_page(shop.url + "/")
    fake_chat(w, {"messages": {"body": asked}, "resume": {"body": undone}})
    w.say("charge 40 to order 4411")
    w.page.get_by_role("button", name="Cancel everything").click()
    report = w.page.locator("stalwart-rollback")
    report.wait_for()
    shown = w.text(report)
    for expected in ["Undoing what this run did", "Undone", "Step 1", "Charge card", "undone with refund card",
                     "Could not be undone", "Send receipt", "Still to undo", "Archive order"]:
        assert expected in shown
    assert "_" not in shown  # tools in words, never raw names
    # The answered card stays, collapsed, with the decision, above what came of it.
    kept = w.page.locator("stalwart-confirm")
    assert kept.count() == 1 and "You chose: Cancel everything" in w.text(kept)
    assert kept.evaluate("c => c.compareDocumentPosition(document.querySelector('stalwart-chat')"
                         ".shadowRoot.querySelector('stalwart-rollback')) & Node.DOCUMENT_POSITION_FOLLOWING") != 0
    w.shot("rolled-back")

    # The element alone, given a report as its property.
    w.page.evaluate(f"""() => {{
      const report = document.createElement('stalwart-rollback');
      report.id = 'alone';
      report.report = {json.dumps(ROLLBACK)};
      document.body.prepend(report);
    }}""")
    assert "undone with refund card" in w.text(w.page.locator("#alone"))
    w.assert_clean()


def test_every_kind_of_pause_refusals_and_rollbacks_show_with_their_own_answers(shop, open_page):
    waiting = [
        pause(id="p-u", kind="outcome_unknown", question="I don't know whether charge_card took effect.",
              choices=["happened", "did_not_happen"], token="tok-u", reasons=[]),
        pause(id="p-s", kind="saga_stuck", tool="refund_card", question="refund_card failed 3 times.",
              choices=["retry", "done_by_hand", "abandon"], token="tok-s", reasons=[]),
        pause(id="p-a", kind="ask", question="Which order?", choices=["answer"], token="tok-a", reasons=["ask"],
              ask={"kind": "choice", "prompt": "Which order?", "choices": ["4411", "5001"]}, arguments=[]),
        pause(id="p-d", kind="delegate", tool="", question="May I hand it on?", choices=["approve", "decline"],
              token="tok-d", reasons=["unread"], arguments=[], step=None),
        pause(id="p-i", tool="send_receipt", question="Run send_receipt?", irreversible=True, token="tok-i",
              reasons=["write", "argument_origin: email", "tainted_call: untrusted:read_inbox"],
              arguments=[{"name": "email", "value": "a@b.example", "origin": "model"},
                         {"name": "order_id", "value": "4411", "origin": "result:1"}]),
    ]
    answer = {"thread": "u-f", "run": "r-1", "reply": {"id": "m-1", "text": "Several things wait.\nNot allowed here."},
              "waiting": waiting, "refusals": [{"tool": "archive_order", "rule": "withdrawn", "sentence": "Not allowed here.", "step": 4}],
              "rollback": ROLLBACK, "steps": []}
    after = {**answer, "reply": {"id": "m-2", "text": "Recorded: charge_card happened."}, "waiting": waiting[1:], "rollback": None}
    w = open_page(shop.url + "/", height=1400)
    fake_chat(w, {"messages": {"body": answer}, "resume": [{"body": after}]})
    w.say("do several things")
    confirms = w.page.locator("stalwart-confirm")
    confirms.nth(4).wait_for()
    texts = [w.text(confirms.nth(i)) for i in range(5)]
    assert "Did “charge card” go through?" in texts[0]
    assert "Yes, it happened" in texts[0] and "No, it did not" in texts[0]
    assert "Undoing “refund card” did not work. What should happen?" in texts[1]
    for label in ["Try again", "I undid it myself", "Leave it"]:
        assert label in texts[1]
    assert texts[2].startswith("Which order?") and "4411" in texts[2] and "5001" in texts[2]
    assert "Why this needs you" not in texts[2]
    assert "I couldn't work that out. Shall I pass it to the assistant?" in texts[3]
    assert "Yes, pass it on" in texts[3] and "No" in texts[3]
    for expected in ["Nothing can undo this step once it runs.", "the assistant wrote it", "from an earlier step",
                     "“Email” did not come from you.", "It comes after reading text from outside (read inbox)."]:
        assert expected in texts[4]
    assert w.page.locator("stalwart-decision").get_by_text("Not allowed here.").is_visible()
    assert w.text().count("Not allowed here.") == 1
    assert "undone with refund card" in w.text(w.page.locator("stalwart-chat stalwart-rollback"))
    w.shot("every-kind")

    confirms.nth(0).get_by_role("button", name="Yes, it happened").click()
    w.page.get_by_text("Recorded: charge_card happened.").wait_for()
    resume = [c for c in calls(w) if c["path"].endswith("/resume")]
    assert [c["body"] for c in resume] == [{"interrupt_id": "p-u", "decision": "happened", "token": "tok-u"}]
    assert confirms.count() == 5  # the answered one kept, collapsed, with its decision
    assert "You chose: Yes, it happened" in w.text(confirms.nth(0))
    assert confirms.nth(0).locator("button").count() == 0
    w.assert_clean()


def test_the_stream_is_followed_and_resumed_with_last_event_id(shop, open_page):
    turn = {"run": "r-1", "message": "m-0", "text": "charge 40 to order 4411", "language": "en"}
    first = "".join([
        f"id: 1\nevent: turn\ndata: {json.dumps(turn)}\n\n",
        f"id: 2\nevent: waiting\ndata: {json.dumps(pause(id='p-s1'))}\n\n",
    ])
    second = "".join([
        'id: 3\nevent: answered\ndata: {"interrupt": "p-s1", "status": "answered", "decision": "approve"}\n\n',
        'id: 4\nevent: reply\ndata: {"run": "r-1", "message": "m-4", "text": "Done: charge_card. charge_id: ch-4411"}\n\n',
    ])
    w = open_page(shop.url + "/")
    fake_chat(w, {"attributes": {"thread": "u-streamed"}, "interrupts": {"body": {"thread": "u-streamed", "interrupts": []}},
                  "stream": [{"text": first}, {"text": second, "open": True}]})
    w.page.get_by_text("charge 40 to order 4411", exact=True).wait_for()
    w.page.get_by_text("Done: charge_card. charge_id: ch-4411").wait_for()
    # Answered elsewhere: the card is kept, collapsed, with that decision.
    w.page.locator("stalwart-confirm").get_by_text("You chose: Approve").wait_for()
    assert w.page.locator("stalwart-confirm").locator("button").count() == 0
    streams = [c for c in calls(w) if c["path"].endswith("/stream")]
    assert len(streams) == 2
    assert "Last-Event-ID" not in streams[0]["headers"]
    assert streams[1]["headers"]["Last-Event-ID"] == "2"
    assert streams[1]["headers"]["Stalwart-Session"] == "fake-session-0123456789"
    assert w.text().count("ch-4411") == 1
    w.assert_clean()


def test_an_error_shows_its_detail_and_a_retry_that_sends_the_same_turn(shop, open_page):
    w = open_page(shop.url + "/")
    ok = {"thread": "u-e", "run": "r-1", "reply": {"id": "m-1", "text": "get_order: status: unpaid"}, "waiting": []}
    fake_chat(w, {"messages": [{"status": 503, "body": {"error": "unavailable", "detail": "The service is restarting."}},
                               {"body": ok}]})
    w.say("show order 4411")
    w.page.get_by_text("Sorry, that did not work. Please try again in a moment.").wait_for()
    detail = w.page.get_by_text("The service is restarting.")
    assert not detail.is_visible()
    w.page.get_by_text("Details").click()
    assert detail.is_visible()
    w.shot("error")
    w.page.get_by_role("button", name="Try again").click()
    w.page.get_by_text("get_order: status: unpaid").wait_for()
    assert w.page.get_by_text("Sorry, that did not work.").count() == 0
    sent = [c for c in calls(w) if c["path"].endswith("/messages")]
    assert len(sent) == 2 and sent[0]["body"] == sent[1]["body"] == {"text": "show order 4411", "language": "en"}
    assert sent[0]["headers"]["Idempotency-Key"] == sent[1]["headers"]["Idempotency-Key"]
    w.assert_clean(allow=lambda e: "503" in e)


def test_a_typing_indicator_shows_while_a_reply_is_written(shop, open_page):
    w = open_page(shop.url + "/")
    ok = {"thread": "u-t", "run": "r-1", "reply": {"id": "m-1", "text": "Done."}, "waiting": []}
    fake_chat(w, {"messages": [{"body": ok, "delay": 800}]})
    w.say("show order 4411")
    typing = w.page.get_by_text("Writing a reply…")
    typing.wait_for()
    w.page.get_by_text("Done.").wait_for()
    assert not typing.is_visible()
    w.assert_clean()


def test_thumbs_on_replies_are_kept_and_a_quiet_notice_when_the_thumb_is_not_taken(shop, open_page):
    w = open_page(shop.url + "/")
    ready(w)
    w.page.evaluate("document.querySelector('stalwart-chat').setAttribute('thumbs', '')")
    notice = w.page.locator("stalwart-chat [part~=thumbs-notice]")
    assert "A rated message is kept to improve the assistant" in notice.inner_text()
    w.say("show order 4411")
    up = w.page.get_by_role("button", name="Helpful", exact=True)
    up.wait_for()
    feedback = []
    w.page.on("request", lambda r: feedback.append(json.loads(r.post_data)) if r.url.endswith("/feedback") else None)
    with w.page.expect_response(lambda r: r.url.endswith("/feedback")) as taken:
        up.press("Enter")
    assert taken.value.status == 200
    expect(w.page.locator("stalwart-chat [aria-pressed=true]")).to_have_count(1)
    assert up.get_attribute("aria-pressed") == "true"
    assert feedback and feedback[0]["thumb"] == "up" and feedback[0]["message"].startswith("m-")
    w.shot("thumbs")
    # A thumb the server does not take (here: the route refuses it) says so quietly.
    w.page.route("**/feedback", lambda route: route.fulfill(status=503, json={"error": "x", "detail": "down"}))
    down = w.page.get_by_role("button", name="Not helpful", exact=True)
    down.press("Enter")
    w.page.get_by_text("Your rating could not be saved.").wait_for()
    assert down.get_attribute("aria-pressed") == "false"
    w.assert_clean(allow=lambda e: "503" in e)


def test_phone_width_keeps_everything_inside_the_screen(shop, open_page):
    w = open_page(shop.url + "/", width=390, height=844)
    ready(w)
    w.say("refund 40 on order 4411")
    w.page.locator("stalwart-confirm").get_by_text("Nothing can undo this step once it runs.").wait_for()
    overflow = w.page.evaluate("""() => {
      const chat = document.querySelector('stalwart-chat');
      const out = [];
      const check = (root) => root.querySelectorAll('*').forEach((n) => {
        const r = n.getBoundingClientRect();
        if (r.width && (r.right > innerWidth + 0.5 || r.left < -0.5)) out.push(`${n.localName}.${n.className}`);
        if (n.shadowRoot) check(n.shadowRoot);
      });
      check(chat.shadowRoot);
      return { out, scroll: document.documentElement.scrollWidth };
    }""")
    assert overflow == {"out": [], "scroll": 390}
    w.shot("phone-waiting")
    w.assert_clean()


def test_the_language_attribute_chooses_the_words_and_is_sent_with_each_turn(shop, open_page):
    w = open_page(shop.url + "/")
    ready(w)
    sent = []
    w.page.on("request", lambda r: sent.append(json.loads(r.post_data)) if r.url.endswith("/messages") else None)
    w.page.evaluate("document.querySelector('stalwart-chat').setAttribute('language', 'pt-BR')")
    assert w.page.get_by_role("button", name="Enviar").is_visible()
    w.say("cobre 40 no pedido 4411")
    w.page.get_by_role("button", name="Aprovar").wait_for()
    assert sent == [{"text": "cobre 40 no pedido 4411", "language": "pt-BR"}]
    assert "você digitou" in confirm_text(w)
    w.assert_clean()


def english_phrases() -> list[str]:
    from tests.web.test_lib import seed_table

    phrases = []
    for text in seed_table().values():
        for piece in re.split(r"\{\w+\}", text):
            piece = piece.strip(" .,:?!")
            if re.search(r"[A-Za-z]{2}", piece):
                phrases.append(piece)
    return phrases


def test_a_pt_br_agents_widget_shows_no_english_word_of_the_shipped_table(shop_pt, open_page):
    w = open_page(shop_pt.url + "/", locale="pt-BR")  # a Portuguese browser (an English one gets English)
    ready(w)
    w.page.locator("stalwart-chat [part~=can] summary").click()
    w.page.get_by_role("button", name="Experimentar").first.wait_for()
    w.shot("pt-BR-empty")
    w.say("cobre 40 no pedido 4411")
    w.page.get_by_role("button", name="Aprovar").wait_for()
    waiting = w.text()
    for expected in ["O que vai ser usado", "você digitou", "Por que isso precisa de você", "Isso altera algo.",
                     "Pular este passo", "Cancelar tudo", "Aguardando a sua decisão"]:
        assert expected in waiting
    w.shot("pt-BR-waiting")
    w.say("estorne 40 do pedido 4411")
    w.page.locator("stalwart-decision").get_by_text("Não foi feito").wait_for()
    w.page.locator("stalwart-decision").get_by_text("Qual regra?").click()
    w.page.locator("stalwart-chat").evaluate("c => c.setAttribute('thumbs', '')")
    text = w.text()
    for expected in ["Olá! Eu sou Shop.", "O que eu posso fazer", "Escreva uma mensagem", "Enviar", "Regra",
                     "Mudou de ideia?", "Experimentar"]:
        assert expected in text
    # The agent's own data (its purpose, its tools' descriptions) is shown as the agent file says it,
    # and the shop's is written in English: only the widget's words are checked.
    config = w.page.evaluate("fetch('/config.json').then(r => r.json())")
    seen = waiting + "\n" + text
    for data in [config["purpose"], *(c["description"] for c in config["can"]), *(c["words"] for c in config["can"])]:
        seen = seen.replace(data, "")
    english = [p for p in english_phrases() if re.search(rf"(?<![\w-]){re.escape(p)}(?![\w-])", seen)]
    assert english == []
    w.shot("pt-BR-refused")
    w.page.evaluate("document.querySelector('stalwart-chat').setAttribute('theme', 'dark')")
    w.shot("pt-BR-dark")
    w.assert_clean()


def test_a_pt_br_phone(shop_pt, open_page):
    w = open_page(shop_pt.url + "/", width=390, height=844, locale="pt-BR")
    ready(w)
    w.say("cobre 40 no pedido 5001")
    w.page.get_by_role("button", name="Aprovar").wait_for()
    w.shot("pt-BR-phone")
    w.page.get_by_role("button", name="Aprovar").click()
    w.page.get_by_text("ch-5001").wait_for()
    # The reply may come over the stream before the answer's own response: wait for both.
    w.page.get_by_text("Você escolheu: Aprovar").wait_for()
    w.assert_clean()


PARTS = {
    "stalwart-chat": {"header", "log", "status", "steps", "composer", "thumbs", "thumbs-notice", "greeting", "can",
                      "error-detail", "typing", "sources", "citations"},
    "stalwart-confirm": {"confirm", "wording", "turn", "arguments", "reasons", "irreversible", "choices"},
    "stalwart-decision": {"decision", "contact", "rule"},
    "stalwart-rollback": {"rollback"},
    "stalwart-trace": {"trace"},
}


def test_every_css_part_and_slot_of_the_table_is_there(shop, open_page):
    reply = {"id": "m-1", "text": "Here.", "sources": ["orders.db"], "citations": ["order 4411"]}
    answer = {"thread": "u-p", "run": "r-1", "reply": reply, "rollback": ROLLBACK, "steps": [{"step": 1, "tool": "x"}],
              "waiting": [pause(irreversible=True)],
              "refusals": [{"tool": "x", "rule": "withdrawn", "sentence": "No.", "step": 2}]}
    w = open_page(shop.url + "/")
    bot = {"name": "Shop", "purpose": "I help.", "language": "en", "stream": False, "contact": "desk@shop.example",
           "can": [{"tool": "get_order", "words": "get order", "kind": "read", "description": "Show an order."}]}
    fake_chat(w, {"bot": bot, "attributes": {"staff": "", "thumbs": ""},
                  "messages": [{"body": answer}, {"status": 500, "body": {"error": "boom", "detail": "It broke."}}]})
    w.say("charge 40 to order 4411")
    w.page.locator("stalwart-rollback").wait_for()
    w.say("again")
    w.page.get_by_role("button", name="Try again").wait_for()
    parts = w.page.evaluate("""() => {
      const chat = document.querySelector('stalwart-chat');
      const found = {};
      const collect = (host) => {
        const names = found[host.localName] = found[host.localName] || [];
        host.shadowRoot.querySelectorAll('[part]').forEach((n) => names.push(...n.getAttribute('part').split(' ')));
        host.shadowRoot.querySelectorAll('*').forEach((n) => { if (n.shadowRoot) collect(n); });
      };
      collect(chat);
      found.slots = [...chat.shadowRoot.querySelectorAll('slot')].map((s) => s.name);
      return found;
    }""")
    for element, names in PARTS.items():
        assert names <= set(parts[element]), (element, names - set(parts[element]))
    assert sorted(parts["slots"]) == ["footer", "header"]
    assert w.page.get_by_text("“charge 40 to order 4411”").is_visible()  # the confirm's turn part
    assert w.page.get_by_text("To ask Shop directly: desk@shop.example").is_visible()
    # A page styles the inner parts through the chat (exportparts).
    w.page.evaluate("""() => {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync('stalwart-chat::part(choices) { outline: 3px solid rgb(255, 0, 0); }');
      document.adoptedStyleSheets = [sheet];
    }""")
    outline = w.page.evaluate("""() => {
      const c = document.querySelector('stalwart-chat').shadowRoot.querySelector('stalwart-confirm');
      return getComputedStyle(c.shadowRoot.querySelector('[part~=choices]')).outlineColor;
    }""")
    assert outline == "rgb(255, 0, 0)"
    w.assert_clean(allow=lambda e: "500" in e)
