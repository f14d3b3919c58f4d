"""A mirrored LangGraph pause answered in the console, in a real Chromium, against a
real bridge (make_app over a graph): the queue filtered to LangGraph, the pause's own
buttons, Approve, and the graph resumed (the shop charged once); and a graph served
under a two-person policy (``make_app(policies=...)``), whose call two staff approve.
Screenshots of the queue and the pause, both languages, light and dark, go to
``STALWART_SCREENSHOTS`` (default ``screenshots/``, ignored by git)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from examples.shop import tools as shop
from tests.e2e.test_console_browser import CHROMIUM, CHROMIUM_ARGS, createstaff, sign_in, sign_in_again, sync_api
from tests.langgraph.graphs import say
from tests.support.server import ROOT, Server

pytestmark = [pytest.mark.server, pytest.mark.browser]

SHOTS = Path(os.environ.get("STALWART_SCREENSHOTS", ROOT / "screenshots"))


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Path]]:
    folder = tmp_path_factory.mktemp("langgraph-console")
    server = Server(folder, module="tests.langgraph.graphs:mail_agent").start(timeout=180)  # langchain's imports
    try:
        yield server, folder
    finally:
        server.stop()


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def start(server: Server, thread: str) -> dict[str, Any]:
    ran = httpx.post(f"{server.url}/threads/{thread}/runs", timeout=60.0,
                     json={"if_not_exists": "create", "input": say(("charge_card", {"order_id": "4411", "amount": 40}))})
    assert ran.status_code == 200, ran.text
    return httpx.get(f"{server.url}/threads/{thread}/interrupts", timeout=60.0).json()["waiting"][0]  # type: ignore[no-any-return]


def test_a_mirrored_pause_approved_in_the_console_resumes_the_graph(served, chromium, monkeypatch):
    server, folder = served
    monkeypatch.setenv("STALWART_DATA_DIR", str(folder))  # the shop the server charges
    shop.reset()
    thread = f"c-{uuid.uuid4().hex[:8]}"
    pause = start(server, thread)
    page = chromium.new_context(locale="en-US").new_page()
    sign_in(page, server.url, "ana", createstaff(folder, "ana"))
    # Found as staff would find it, by source and thread, named lg-<graph>-<graph's thread> (on
    # PostgreSQL the server shares its worker's database with other tests' servers, whose
    # pauses fill the queue's first page).
    page.goto(f"{server.url}/admin/threads/interrupt/?source=langgraph&q=lg-mail-{thread}")
    assert pause["id"] in page.content()
    page.goto(f"{server.url}/admin/threads/interrupt/{pause['id']}/change/")
    assert page.locator("button[name=decision]").all_inner_texts() == ["Approve", "Reject"]
    assert page.inner_text(".pause-proposer") == "the LangGraph graph mail"
    page.click("button[value=approve]")
    said = page.inner_text(".messagelist")
    assert "Answered: Approve." in said and "What the graph then returned: “done: " in said
    assert len(shop.charges("4411")) == 1
    page.goto(f"{server.url}/admin/threads/interrupt/{pause['id']}/change/")
    assert page.inner_text(".pause-then").startswith("done: ")
    page.context.close()
    # The answered pause, as staff read it in each language and scheme: who asked, and what the graph then did.
    SHOTS.mkdir(parents=True, exist_ok=True)
    for locale, proposer, then in (("en-US", "the LangGraph graph mail", "What the run then did"),
                                   ("pt-BR", "o grafo LangGraph mail", "O que a execução fez depois")):
        for scheme in ("light", "dark"):
            context = chromium.new_context(locale=locale, color_scheme=scheme, viewport={"width": 1280, "height": 900})
            page = context.new_page()
            page.goto(f"{server.url}/admin/login/")
            page.fill("#id_username", "ana")
            page.fill("#id_password", "a-long-new-password-ana")
            page.click("input[type=submit]")
            page.goto(f"{server.url}/admin/threads/interrupt/{pause['id']}/change/")
            assert page.inner_text(".pause-proposer") == proposer and then in page.inner_text("#content-main")
            page.screenshot(path=str(SHOTS / f"langgraph-answered-{locale}-{scheme}.png"), full_page=True)
            context.close()
    page = chromium.new_context(locale="en-US").new_page()
    assert httpx.get(f"{server.url}/threads/{thread}/interrupts", timeout=60.0).json()["interrupts"] == []
    page.context.close()


def test_screenshots_of_a_mirrored_pause_in_both_languages_light_and_dark(served, chromium):
    server, folder = served
    thread = f"s-{uuid.uuid4().hex[:8]}"
    pause = start(server, thread)
    SHOTS.mkdir(parents=True, exist_ok=True)
    for locale, name in (("en-US", "lia"), ("pt-BR", "leo")):
        password = createstaff(folder, name)
        for scheme in ("light", "dark"):
            context = chromium.new_context(locale=locale, color_scheme=scheme, viewport={"width": 1280, "height": 900})
            page = context.new_page()
            if scheme == "light":
                sign_in(page, server.url, name, password)
            else:
                sign_in_again(page, server.url, name)
            for label, path in (("langgraph-queue", "/admin/threads/interrupt/?source=langgraph"),
                                ("langgraph-pause", f"/admin/threads/interrupt/{pause['id']}/change/")):
                response = page.goto(f"{server.url}{path}")
                assert response is not None and response.status == 200, path
                page.screenshot(path=str(SHOTS / f"{label}-{locale}-{scheme}.png"), full_page=True)
            if locale == "pt-BR":
                assert page.locator("button[name=decision]").all_inner_texts() == ["Aprovar", "Rejeitar"]
            # A decision the page does not offer, posted anyway (the button's value changed by hand): refused,
            # said in the page's language, and the pause still waits.
            page.evaluate("document.querySelector('button[value=approve]').value = 'edit'")
            page.click("button[value=edit]")
            said = page.inner_text(".messagelist")
            assert said.startswith("Nada mudou" if locale == "pt-BR" else "Nothing changed"), said
            page.screenshot(path=str(SHOTS / f"langgraph-not-offered-{locale}-{scheme}.png"), full_page=True)
            context.close()
    waiting = httpx.get(f"{server.url}/threads/{thread}/interrupts", timeout=60.0).json()["interrupts"]
    assert [p["id"] for p in waiting] == [pause["id"]]


TWO_FOR_BIG = "policies:\n  - name: big-charges\n    when: {tool: charge_card, args: {amount: {gt: 500}}}\n" \
              "    approvers: {quorum: 2}\n"


@pytest.fixture(scope="module")
def policed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Path]]:
    """The same graph served under a policy: charges over 500 need two people."""
    folder = tmp_path_factory.mktemp("langgraph-console-policy")
    policies = folder / "graph-policies.yaml"
    policies.write_text(TWO_FOR_BIG, encoding="utf-8")
    server = Server(folder, module="tests.langgraph.graphs:mail_agent",
                    env={"STALWART_TEST_BRIDGE_POLICIES": str(policies)}).start(timeout=180)
    try:
        yield server, folder
    finally:
        server.stop()


def test_a_graphs_big_charge_waits_for_two_staff_and_runs_once(policed, chromium, monkeypatch):
    server, folder = policed
    monkeypatch.setenv("STALWART_DATA_DIR", str(folder))
    shop.reset()
    thread = f"p-{uuid.uuid4().hex[:8]}"
    ran = httpx.post(f"{server.url}/threads/{thread}/runs", timeout=60.0, json={
        "if_not_exists": "create", "input": say(("charge_card", {"order_id": "4411", "amount": 600}))})
    assert ran.status_code == 200, ran.text
    [pause] = httpx.get(f"{server.url}/threads/{thread}/interrupts", timeout=60.0).json()["waiting"]
    assert pause["approvals"] == {"needed": 2, "given": [], "group": None}
    assert "policy:big-charges" in pause["reasons"]
    passwords = {name: createstaff(folder, name) for name in ("ana", "ben")}
    page = chromium.new_context(locale="en-US").new_page()
    sign_in(page, server.url, "ana", passwords["ana"])
    page.goto(f"{server.url}/admin/threads/interrupt/{pause['id']}/change/")
    assert page.inner_text(".pause-approvals-count") == "0 of 2 approvals"
    page.click("button[value=approve]")
    assert "Your approval is recorded: 1 of 2 approvals." in page.inner_text(".messagelist")
    assert shop.charges("4411") == []  # one person is not enough: the graph still waits
    page.goto(f"{server.url}/admin/threads/interrupt/{pause['id']}/change/")
    assert page.inner_text(".pause-approvals-count") == "1 of 2 approvals"
    assert page.inner_text(".pause-approvals-given").startswith("ana, ")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.context.close()
    for locale, name, count in (("en-US", "ben", "1 of 2 approvals"), ("pt-BR", "ben", "1 de 2 aprovações")):
        for scheme in ("light", "dark"):
            context = chromium.new_context(locale=locale, color_scheme=scheme, viewport={"width": 1280, "height": 900})
            shot = context.new_page()
            if locale == "en-US" and scheme == "light":
                sign_in(shot, server.url, name, passwords[name])
            else:
                sign_in_again(shot, server.url, name)
            shot.goto(f"{server.url}/admin/threads/interrupt/{pause['id']}/change/")
            assert shot.inner_text(".pause-approvals-count") == count
            shot.screenshot(path=str(SHOTS / f"langgraph-policy-{locale}-{scheme}.png"), full_page=True)
            context.close()
    page = chromium.new_context(locale="en-US").new_page()
    sign_in_again(page, server.url, "ben")
    page.goto(f"{server.url}/admin/threads/interrupt/{pause['id']}/change/")
    page.click("button[value=approve]")
    said = page.inner_text(".messagelist")
    assert "Answered: Approve." in said and "What the graph then returned: “done: " in said
    assert len(shop.charges("4411")) == 1
    assert httpx.get(f"{server.url}/threads/{thread}/interrupts", timeout=60.0).json()["interrupts"] == []
    page.context.close()
