"""Two approvals from finance in a real Chromium against a real ``stalwart serve`` (docs/operating.md,
"Approval policies in the console"; docs/policies.md): the shop's agent file with the big-charges policy
(a charge over 500 needs two approvals from staff in ``finance``); a customer's 600 charge waits; the first
finance member's approval is recorded ("1 of 2 approvals") and nothing runs; a staff member outside finance
reads the pause without answers and is told why; the second finance member's approval runs the charge,
once. In English and Portuguese; screenshots, light and dark, of the queue row, the pause page (one who may
answer, one who may not), the Tools page's policies and the decisions page go to ``STALWART_SCREENSHOTS``
(default ``screenshots/``, ignored by git)."""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from examples.shop import tools as shop
from tests.e2e.test_console_browser import CHROMIUM, CHROMIUM_ARGS, createstaff, sign_in, sign_in_again, sync_api
from tests.support.server import ROOT, SHOP, Browser, Server

pytestmark = [pytest.mark.server, pytest.mark.browser]

SHOTS = Path(os.environ.get("STALWART_SCREENSHOTS", ROOT / "screenshots"))
POLICIES = """
- name: big-charges
  when: {tool: charge_card, args: {amount: {gt: 500}}}
  approvers: {quorum: 2, group: finance}
  deadline: 3600
  on_timeout: refuse
- name: huge-charges
  when: {tool: charge_card, args: {amount: {gt: 5000}}}
  refuse: Charges over 5,000 go through the finance office.
"""
WORDS = {
    "en-US": {"recorded": "Your approval is recorded: 1 of 2 approvals.", "count": "1 of 2 approvals",
              "row": "1 of 2 approvals: ana", "outside": "Only staff in finance may answer this call.",
              "mine": "You approved it; it waits for 1 more.", "answered": "Answered: Approve.",
              "asks": "2 approvals from staff in finance", "done": "2 of 2 approvals"},
    "pt-BR": {"recorded": "Sua aprovação foi registrada: 1 de 2 aprovações.", "count": "1 de 2 aprovações",
              "row": "1 de 2 aprovações: ana", "outside": "Só a equipe do grupo finance pode responder a esta chamada.",
              "mine": "Você aprovou; ela espera por mais 1.", "answered": "Respondida: Aprovar.",
              "asks": "2 aprovações da equipe do grupo finance", "done": "2 de 2 aprovações"},
}


def finance_agent_file(folder: Path) -> Path:
    """The example shop's agent file, its policies this test's own (and its vocabulary beside it)."""
    folder.mkdir(parents=True, exist_ok=True)
    spec = yaml.safe_load(SHOP.read_text(encoding="utf-8"))
    spec["agents"][0]["policies"] = yaml.safe_load(POLICIES)
    (folder / "agent.yaml").write_text(yaml.safe_dump(spec, allow_unicode=True, sort_keys=False), encoding="utf-8")
    shutil.copyfile(SHOP.parent / "vocabulary.yaml", folder / "vocabulary.yaml")
    return folder / "agent.yaml"


@pytest.fixture
def finance_server(data_dir: Path, tmp_path: Path) -> Iterator[Server]:
    with Server(data_dir, agent_file=finance_agent_file(tmp_path / "agent")) as s:
        yield s


@pytest.fixture
def chromium() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def shoot(page: Any, name: str) -> None:
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


@pytest.mark.parametrize("locale", ["en-US", "pt-BR"])
def test_two_finance_approvals_run_a_big_charge_once_and_others_read_it(finance_server, data_dir, chromium, locale):
    words, base, tag = WORDS[locale], finance_server.url, locale.split("-")[0]
    shop.reset()
    suffix = uuid.uuid4().hex[:4]
    ana, bruno, carla = f"ana{suffix}", f"bruno{suffix}", f"carla{suffix}"
    # ana and bruno in finance (createstaff --group); carla an operator (she may read the Tools page) outside it.
    passwords = {ana: createstaff(data_dir, ana, groups=("finance",)),
                 bruno: createstaff(data_dir, bruno, groups=("finance",)),
                 carla: createstaff(data_dir, carla, operator=True)}
    customer = Browser(base)
    thread = f"shop-{uuid.uuid4().hex[:8]}"
    pause = customer.say(thread, "charge 600 to order 4411").json()["waiting"][0]
    assert pause["tool"] == "charge_card" and pause["approvals"]["needed"] == 2
    pause_url = f"{base}/admin/threads/interrupt/{pause['id']}/change/"
    SHOTS.mkdir(parents=True, exist_ok=True)
    signed: set[str] = set()

    def browser_of(name: str, scheme: str = "light") -> Any:
        context = chromium.new_context(locale=locale, color_scheme=scheme, viewport={"width": 1280, "height": 900})
        page = context.new_page()
        if name in signed:
            sign_in_again(page, base, name)
        else:
            sign_in(page, base, name, passwords[name])
            signed.add(name)
        return context, page

    # Someone outside finance has the queue open: it follows the pause live.
    watching, queue = browser_of(carla)
    queue.goto(f"{base}/admin/threads/interrupt/?q={thread}")
    queue.wait_for_selector("html[data-staff-stream=open]")
    assert queue.inner_text("#result_list .queue-approvals").startswith(words["count"].replace("1", "0", 1))

    # The first finance member approves: recorded, short of the quorum; nothing runs.
    ana_context, page = browser_of(ana)
    page.goto(pause_url)
    page.click("button[value=approve]")
    assert page.url == pause_url
    assert words["recorded"] in page.inner_text(".messagelist")
    assert page.inner_text(".pause-approvals-count") == words["count"]
    assert ana in page.inner_text(".pause-approvals-given")
    assert page.locator("button[name=decision]").count() == 0
    assert words["mine"] in page.inner_text(".pause-read-only")
    assert shop.charges("4411") == []
    ana_context.close()
    # The open queue shows it without a reload: "1 of 2 approvals" and whose.
    queue.wait_for_function("want => document.querySelector('#result_list .queue-approvals')?.innerText === want",
                            arg=words["row"].replace("ana", ana))
    watching.close()

    # Someone outside finance reads it without answers, told why; the queue row says 1 of 2 and whose.
    for scheme in ("light", "dark"):
        context, page = browser_of(carla, scheme)
        page.goto(f"{base}/admin/threads/interrupt/?q={thread}")
        assert page.inner_text("#result_list .queue-approvals") == words["row"].replace("ana", ana)
        shoot(page, f"policy-queue-{tag}-{scheme}")
        page.goto(pause_url)
        assert page.locator("button[name=decision]").count() == 0
        assert page.locator(".pause-edit").count() == 0
        assert page.inner_text(".pause-read-only") == words["outside"]
        shoot(page, f"policy-pause-read-only-{tag}-{scheme}")
        # An edit posted anyway (a page kept open from before, the call's token in hand) is refused, saying why.
        page.evaluate("""([url, token]) => {
            const form = Object.assign(document.createElement("form"), {method: "post", action: url});
            const csrf = document.querySelector("input[name=csrfmiddlewaretoken]").value;
            for (const [name, value] of [["token", token], ["arg:amount", "400"], ["csrfmiddlewaretoken", csrf]]) {
                form.append(Object.assign(document.createElement("input"), {type: "hidden", name, value}));
            }
            document.body.append(form);
            form.submit();
        }""", [pause_url.replace("/change/", "/edit/"), pause["token"]])
        page.wait_for_url(pause_url)
        assert page.inner_text(".messagelist") == words["outside"]
        assert page.inner_text(".pause-approvals-count") == words["count"]  # the call waits as it was
        shoot(page, f"policy-edit-refused-{tag}-{scheme}")
        page.goto(f"{base}/admin/catalogue/tool/")
        assert words["asks"] in page.inner_text("#policy-big-charges")
        shoot(page, f"policy-tools-{tag}-{scheme}")
        context.close()
    assert shop.charges("4411") == []

    # The second finance member may answer (the buttons, no sentence); their approval runs it, once.
    for scheme in ("dark", "light"):
        context, page = browser_of(bruno, scheme)
        page.goto(pause_url)
        assert page.locator(".pause-read-only").count() == 0
        shoot(page, f"policy-pause-eligible-{tag}-{scheme}")
        if scheme == "light":
            page.click("button[value=approve]")
            assert words["answered"] in page.inner_text(".messagelist")
            page.goto(f"{base}/admin/approvals/decision/?q={thread}")
            assert words["done"] in page.inner_text("#result_list")
            shoot(page, f"policy-decisions-{tag}-{scheme}")
        context.close()
    assert len(shop.charges("4411")) == 1
    context, page = browser_of(carla, "dark")
    page.goto(f"{base}/admin/approvals/decision/?q={thread}")
    assert words["done"] in page.inner_text("#result_list")
    shoot(page, f"policy-decisions-{tag}-dark")
    context.close()
    late = customer.resume(thread, pause, "approve")  # the customer's own answer changes nothing
    assert late.status_code in (403, 409)
    assert len(shop.charges("4411")) == 1
    customer.close()
