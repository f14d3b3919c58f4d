"""The AG-UI door: the protocol's own client (``@ag-ui/client``'s ``HttpAgent``
under Node, ``tests/agui/drive.mjs``), a page per session and thread; raw
shapes a client library would never send go as plain POSTs to ``/agui/``."""

from __future__ import annotations

import json
import uuid
from typing import Any

import httpx

from tests.agui.test_agui import Client

from .base import SAY, Answer, Door, Pause, unique
from .estate import Estate

RESULTS = {"succeeded": "done", "skipped": "skipped"}


def finished(result: dict[str, Any]) -> dict[str, Any] | None:
    return next((e for e in result["events"] if e["type"] == "RUN_FINISHED"), None)


def run_error(result: dict[str, Any]) -> dict[str, Any] | None:
    return next((e for e in result["events"] if e["type"] == "RUN_ERROR"), None)


def entry(interrupt: dict[str, Any], payload: dict[str, Any], token: str | None = None) -> dict[str, Any]:
    shown = interrupt["metadata"]["stalwart"]["token"]
    return {"interruptId": interrupt["id"], "status": "resolved", "payload": payload,
            "metadata": {"stalwart": {"token": shown if token is None else token}}}


def as_answer(result: dict[str, Any]) -> Answer:
    error = run_error(result)
    if error is not None:
        return Answer(taken=False, code=error.get("code", ""), body=result)
    if result["error"] is not None:  # the client itself refused (it verifies every stream)
        return Answer(taken=False, code="client_refused", body=result)
    results = [json.loads(e["content"]) for e in result["events"] if e["type"] == "TOOL_CALL_RESULT"]
    outcome = RESULTS.get(results[0].get("status", ""), results[0].get("status", "")) if results else ""
    return Answer(taken=True, outcome=outcome, body=result)


class AguiDoor(Door):
    id = "agui"
    via = "agui"

    def __init__(self, estate: Estate) -> None:
        self.estate = estate
        self.driver = estate.agui_driver()
        self.page = self.page_on(0)

    def page_on(self, worker: int, *, thread: str | None = None, session: str | None = None) -> Client:
        return Client(self.driver, self.estate.worker(worker).url, thread=thread or unique("agui"),
                      session=session or uuid.uuid4().hex + uuid.uuid4().hex[:8])

    def tab(self, worker: int = 0) -> Client:
        """Another tab of the same page: the same session and thread, what the page holds."""
        other = self.page_on(worker, thread=self.page.thread, session=self.page.session)
        other.messages, other.pending = list(self.page.messages), list(self.page.pending)
        return other

    def propose(self) -> Pause:
        result = self.page.run(SAY)
        done = finished(result)
        assert result["error"] is None and done is not None, result
        interrupts = done["outcome"]["interrupts"]
        assert [i["metadata"]["stalwart"]["tool"] for i in interrupts] == ["charge_card"], done
        shown = interrupts[0]
        return Pause(id=shown["id"], token=shown["metadata"]["stalwart"]["token"], thread=self.page.thread,
                     shown=shown)

    def answer(self, pause: Pause, decision: str, *, token: str | None = None, worker: int = 0) -> Answer:
        tab = self.tab(worker)
        tab.pending = [pause.shown]
        return as_answer(tab.run(resume=[entry(pause.shown, {"decision": decision}, token)], keep=False))

    def post(self, body: Any, *, worker: int = 0, raw: bytes | None = None,
             session: str | None = None) -> httpx.Response:
        """A plain POST to ``/agui/`` (shapes a client library would never send)."""
        headers = {"Content-Type": "application/json", "Accept": "text/event-stream",
                   "Stalwart-Session": session or self.page.session}
        content = raw if raw is not None else json.dumps(body).encode()
        return httpx.post(self.estate.worker(worker).url + "/agui/", content=content, headers=headers, timeout=60)

    def rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        return self.estate.rows(sql, params)

    def console_get(self, path: str) -> tuple[int, str]:
        response = self.estate.staff().http.get(path)
        return response.status_code, response.text


def events_of(response: httpx.Response) -> list[dict[str, Any]]:
    """The events of an AG-UI stream answered to a plain POST."""
    return [json.loads(line[len("data: "):]) for line in response.text.splitlines() if line.startswith("data: ")]
