"""What an approver reads on a pause's page, in a real Chromium against a real
``stalwart serve``, in English and Portuguese (docs/operating.md, "A pause's
page"): an MCP call names its client and says where each value came from; a
delegate pause shows what the person wrote; an answer says what the run then
did. Screenshots, light and dark, go to ``STALWART_SCREENSHOTS`` (default
``screenshots/``, ignored by git)."""

from __future__ import annotations

import asyncio
import os
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.test_console_browser import CHROMIUM, CHROMIUM_ARGS, createstaff, sign_in, sign_in_again, sync_api
from tests.support.mcp import mcp_key, mcp_session
from tests.support.server import ROOT

pytestmark = [pytest.mark.server, pytest.mark.browser]

SHOTS = Path(os.environ.get("STALWART_SCREENSHOTS", ROOT / "screenshots"))
WORDS = {
    "en-US": {"proposer": "the MCP client {client}, by its key",
              "origin": "the calling agent wrote it (MCP client {client})",
              "turn": "What the person wrote", "then": "What the run then did",
              "reason": "no tool reads what the person wrote: approving hands it to the agent's model",
              "decline": "Decline", "answered": "Answered: Decline.",
              "recent": "Answered “Decline”: delegate", "row": "MCP client {client}", "form": ["Name:", "Privileges:", "Context values:"]},
    "pt-BR": {"proposer": "o cliente MCP {client}, pela chave dele",
              "origin": "o agente que chamou escreveu (cliente MCP {client})",
              "turn": "O que a pessoa escreveu", "then": "O que a execução fez depois",
              "reason": "nenhuma ferramenta lê o que a pessoa escreveu: aprovar entrega a mensagem ao modelo do agente",
              "decline": "Recusar", "answered": "Respondida: Recusar.",
              "recent": "Respondida “Recusar”: delegação", "row": "cliente MCP {client}", "form": ["Nome:", "Privilégios:", "Valores de contexto:"]},
}


def held_call(url: str, key: str, me: str) -> dict[str, Any]:
    async def call() -> Any:
        async with mcp_session(f"{url}/mcp/", key=key, name=me) as session:
            return await session.call_tool("charge_card", {"order_id": "4411", "amount": 40})

    # In a thread of its own: Playwright's sync API runs an event loop in this one.
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(lambda: asyncio.run(call())).result().structured_content["pause"]  # type: ignore[no-any-return]


def unread_turn(url: str, thread: str, text: str) -> dict[str, Any]:
    answer = httpx.post(f"{url}/threads/{thread}/messages", json={"text": text}, timeout=60.0).json()
    assert answer["waiting"][0]["kind"] == "delegate", answer
    return answer["waiting"][0]  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def chromium() -> Any:
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.mark.parametrize("locale", ["en-US", "pt-BR"])
def test_the_pause_page_tells_who_asked_what_was_written_and_what_the_run_then_did(gateway, data_dir, chromium,
                                                                                    locale):
    words = WORDS[locale]
    client = f"desk-{uuid.uuid4().hex[:6]}"
    key = mcp_key(data_dir, client)
    mcp = held_call(gateway.url, key, client)
    delegate = unread_turn(gateway.url, f"t-{uuid.uuid4().hex[:6]}", "my parcel came crushed")
    name = f"a{uuid.uuid4().hex[:6]}"
    password = createstaff(data_dir, name)
    SHOTS.mkdir(parents=True, exist_ok=True)
    for scheme in ("light", "dark"):
        context = chromium.new_context(locale=locale, color_scheme=scheme, viewport={"width": 1280, "height": 900})
        page = context.new_page()
        if scheme == "light":
            sign_in(page, gateway.url, name, password)
        else:
            sign_in_again(page, gateway.url, name)
        # An MCP call: its client named, and each value's origin in words with it.
        page.goto(f"{gateway.url}/admin/threads/interrupt/{mcp['id']}/change/")
        assert page.inner_text(".pause-proposer") == words["proposer"].format(client=client)
        origins = page.locator(".pause-arguments td.origin").all_inner_texts()
        assert origins == [words["origin"].format(client=client)] * 2, origins
        page.screenshot(path=str(SHOTS / f"pause-mcp-{locale}-{scheme}.png"), full_page=True)
        # The queue's row names the client too, found by its thread (a shared server's queue pages other
        # tests' charges).
        thread = page.locator("a.pause-thread").inner_text()
        page.goto(f"{gateway.url}/admin/threads/interrupt/?q={thread}")
        row = page.locator("#result_list tr", has=page.locator(f"a[href*='{mcp['id']}']")).first
        assert words["row"].format(client=client) in row.inner_text()
        page.screenshot(path=str(SHOTS / f"queue-mcp-{locale}-{scheme}.png"), full_page=True)
        # A delegate pause: what the person wrote, and the reason in words.
        page.goto(f"{gateway.url}/admin/threads/interrupt/{delegate['id']}/change/")
        assert words["turn"] in page.inner_text("#content-main")
        assert page.inner_text(".pause-turn") == "my parcel came crushed"
        assert page.inner_text(".pause-reasons") == words["reason"]
        page.screenshot(path=str(SHOTS / f"pause-delegate-{locale}-{scheme}.png"), full_page=True)
        context.close()
    # Declined: the message says what the run then said, and so does the page.
    context = chromium.new_context(locale=locale, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    sign_in_again(page, gateway.url, name)
    page.goto(f"{gateway.url}/admin/threads/interrupt/{delegate['id']}/change/")
    page.click("button[value=decline]")
    said = page.inner_text(".messagelist")
    assert said.startswith(words["answered"]), said
    page.goto(f"{gateway.url}/admin/threads/interrupt/{delegate['id']}/change/")
    assert words["then"] in page.inner_text("#content-main") and page.inner_text(".pause-then").strip()
    page.screenshot(path=str(SHOTS / f"pause-delegate-answered-{locale}-light.png"), full_page=True)
    # The index's recent actions say the answer in words, in the reader's language.
    page.goto(f"{gateway.url}/admin/")
    assert page.locator("#recent-actions-module .actionlist a").first.inner_text() == words["recent"]
    page.screenshot(path=str(SHOTS / f"index-recent-{locale}-light.png"), full_page=True)
    context.close()


@pytest.mark.parametrize("locale", ["en-US", "pt-BR"])
def test_the_mcp_client_form_reads_capitalised_labels(gateway, data_dir, chromium, locale):
    name = f"o{uuid.uuid4().hex[:6]}"
    password = createstaff(data_dir, name, operator=True)
    for scheme in ("light", "dark"):
        context = chromium.new_context(locale=locale, color_scheme=scheme, viewport={"width": 1280, "height": 900})
        page = context.new_page()
        if scheme == "light":
            sign_in(page, gateway.url, name, password)
        else:
            sign_in_again(page, gateway.url, name)
        page.goto(f"{gateway.url}/admin/doors_mcp/mcpclient/add/")
        assert page.locator("form label").all_inner_texts()[:3] == WORDS[locale]["form"]
        page.screenshot(path=str(SHOTS / f"mcp-client-form-{locale}-{scheme}.png"), full_page=True)
        context.close()
