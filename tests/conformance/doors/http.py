"""The HTTP doors: the API (``POST /threads/{id}/messages`` and ``/resume`` with
the session header), the widget (the same, saying ``Stalwart-Client: widget``),
and the console (a customer's turn over HTTP, a staff member answering it on
the pause's page in the Django admin)."""

from __future__ import annotations

import html
import re
from typing import Any

import httpx

from tests.support.server import Browser

from .base import SAY, Answer, Door, Pause, step_outcome, unique
from .estate import Estate


class HttpDoor(Door):
    id = "http"
    via = "http"
    headers: dict[str, str] = {}

    def __init__(self, estate: Estate) -> None:
        self.estate = estate
        self.browser = self.browser_for(0)
        self.thread = unique(self.id)

    def browser_for(self, worker: int, session: str | None = None) -> Browser:
        browser = Browser(self.estate.worker(worker).url)
        browser.session = session
        return browser

    def request(self, browser: Browser, method: str, path: str, **kwargs: Any) -> httpx.Response:
        return browser.request(method, path, headers={**self.headers, **kwargs.pop("headers", {})}, **kwargs)

    def say(self, text: str = SAY, *, thread: str | None = None, browser: Browser | None = None) -> httpx.Response:
        return self.request(browser or self.browser, "POST", f"/threads/{thread or self.thread}/messages",
                            json={"text": text})

    def propose(self) -> Pause:
        said = self.say()
        assert said.status_code == 200, said.text
        waiting = said.json()["waiting"]
        assert [p["tool"] for p in waiting] == ["charge_card"], said.text
        return Pause(id=waiting[0]["id"], token=waiting[0]["token"], thread=self.thread, shown=waiting[0])

    def resume(self, pause: Pause, decision: str, *, token: str | None = None, worker: int = 0,
               thread: str | None = None, session: str | None = None) -> httpx.Response:
        browser = self.browser_for(worker, session if session is not None else self.browser.session)
        try:
            return self.request(browser, "POST", f"/threads/{thread or pause.thread}/resume", json={
                "interrupt_id": pause.id, "decision": decision, "token": pause.token if token is None else token})
        finally:
            browser.close()

    def answer(self, pause: Pause, decision: str, *, token: str | None = None, worker: int = 0) -> Answer:
        return as_answer(self.resume(pause, decision, token=token, worker=worker))

    def rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        return self.estate.rows(sql, params)

    def console_get(self, path: str) -> tuple[int, str]:
        response = self.estate.staff().http.get(path)
        return response.status_code, response.text

    def close(self) -> None:
        self.browser.close()


def as_answer(response: httpx.Response) -> Answer:
    body = response.json() if response.headers.get("content-type", "").startswith("application/json") else None
    if response.status_code == 200:
        return Answer(taken=True, outcome=step_outcome(body["steps"]), body=body, extra={"status": 200})
    return Answer(taken=False, code=(body or {}).get("error", str(response.status_code)), body=body,
                  extra={"status": response.status_code})


class WidgetDoor(HttpDoor):
    id = "widget"
    via = "widget"
    headers = {"Stalwart-Client": "widget"}


class ConsoleDoor(HttpDoor):
    """A customer's turn over HTTP; a staff member answers it in the console, on worker 0 or 1."""

    id = "console"
    via = "console"

    def answer(self, pause: Pause, decision: str, *, token: str | None = None, worker: int = 0) -> Answer:
        staff = self.estate.staff("main" if worker == 0 else "second")
        why = read_only(staff.page(pause.id)) if token is None else ""
        if why:  # the page offers this staff member no answer under a policy, and says why
            return Answer(taken=False, code="not_offered", body=why)
        said = staff.answer(pause.id, decision, token=token)
        return console_answer(said)


def read_only(page: str) -> str:
    """The sentence a pause's page gives a staff member it offers no answer under an approval policy
    (outside its group, its proposer, or one who approved it already), else ""."""
    found = re.search(r'<p class="pause-read-only">(.*?)</p>', page, re.S)
    return html.unescape(re.sub(r"\s+", " ", found.group(1)).strip()) if found else ""


def console_answer(said: str) -> Answer:
    """The console's message after an answer, as an ``Answer``."""
    if said.startswith("Answered:"):
        outcome = "done" if "It ran." in said else "skipped" if "It was skipped." in said else ""
        return Answer(taken=True, outcome=outcome, body=said)
    code = "interrupt_stale" if said.startswith("Nothing changed") else "refused"
    return Answer(taken=False, code=code, body=said)
