"""AG-UI (docs/ag-ui.md) against a real ``stalwart serve``, driven by the
protocol's own client: ``@ag-ui/client``'s ``HttpAgent`` under Node
(``tests/agui/drive.mjs``, through the example's ``StalwartAgent``), its own
event verification on every run; each response's ``data:`` lines parsed again
here with the ``ag-ui-protocol`` package's models."""

from __future__ import annotations

import json
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from ag_ui.core import Event, RunFinishedEvent
from pydantic import TypeAdapter

from examples.shop import tools as shop
from tests.e2e.conftest import fresh_shop
from tests.e2e.test_faults import rows
from tests.support.mcp import Console
from tests.support.server import SHOP, Server, session_key

pytestmark = pytest.mark.server

HERE = Path(__file__).resolve().parent
EVENT = TypeAdapter(Event)
NODE = shutil.which("node")
CONTEXT_SECRET = "agui-tests-context-secret-0123456789abcdef"


class Client:
    """One page of an AG-UI app: its session, its thread, and what its HttpAgent holds between runs."""

    def __init__(self, driver: Path, base: str, *, thread: str | None = None, session: str | None = None,
                 path: str = "/agui/") -> None:
        self.driver, self.url = driver, base + path
        self.thread = thread or f"agui-{uuid.uuid4().hex[:10]}"
        self.session = session or uuid.uuid4().hex + uuid.uuid4().hex[:8]
        self.messages: list[dict[str, Any]] = []
        self.pending: list[dict[str, Any]] = []

    def run(self, text: str | None = None, *, resume: list[dict[str, Any]] | None = None, connect: bool = False,
            message_id: str | None = None, keep: bool = True, context: dict[str, str] | None = None,
            headers: dict[str, str] | None = None) -> dict[str, Any]:
        command: dict[str, Any] = {"url": self.url, "threadId": self.thread, "messages": self.messages,
                                   "pendingInterrupts": self.pending, "connect": connect,
                                   "headers": {"Stalwart-Session": self.session, **(headers or {})},
                                   "context": [{"description": k, "value": v} for k, v in (context or {}).items()]}
        if text is not None:
            command["message"] = {"id": message_id or f"u-{uuid.uuid4().hex[:8]}", "content": text}
        if resume is not None:
            command["resume"] = resume
        done = subprocess.run([NODE, str(self.driver)], input=json.dumps(command), capture_output=True, text=True,
                              timeout=120, cwd=HERE)
        assert done.returncode == 0, done.stderr
        result = json.loads(done.stdout)
        for body in result["raw"]:
            result.setdefault("parsed", []).extend(parse(body))
        if keep and result["error"] is None:
            self.messages, self.pending = result["messages"], result["pendingInterrupts"]
        return result

    def reloaded(self) -> Client:
        """The same page after a reload: the same session and thread, nothing held in memory."""
        return Client(self.driver, self.url.rsplit("/agui/", 1)[0], thread=self.thread, session=self.session,
                      path="/agui/" + self.url.rsplit("/agui/", 1)[1])


def parse(body: str) -> list[Any]:
    """Every ``data:`` line of an event stream, as the ``ag-ui-protocol`` package's models."""
    lines = [line for line in body.splitlines() if line]
    assert lines and all(line.startswith("data: ") for line in lines), body[:500]
    return [EVENT.validate_json(line[len("data: "):]) for line in lines]


def types(result: dict[str, Any]) -> list[str]:
    return [e["type"] for e in result["events"]]


def finished(result: dict[str, Any]) -> dict[str, Any]:
    return next(e for e in result["events"] if e["type"] == "RUN_FINISHED")


def approve(interrupt: dict[str, Any], payload: dict[str, Any] | None = None, **entry: Any) -> dict[str, Any]:
    return {"interruptId": interrupt["id"], "status": entry.pop("status", "resolved"),
            "payload": payload if payload is not None else {"decision": "approve"},
            "metadata": {"stalwart": {"token": interrupt["metadata"]["stalwart"]["token"]}}, **entry}


def pause_status(data_dir: Path, pause_id: str) -> str:
    return rows(data_dir, "SELECT status FROM threads_interrupt WHERE id = ?", (pause_id,))[0][0]


def test_a_read_turn_passes_the_clients_verification_and_ends_in_success(driver, server):
    page = Client(driver, server.url)
    result = page.run("show order 4411")
    assert result["error"] is None  # runAgent verified every event and took them all
    assert types(result) == ["RUN_STARTED", "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT",
                             "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "STATE_SNAPSHOT",
                             "MESSAGES_SNAPSHOT", "RUN_FINISHED"]
    start, args, result_event = result["events"][1], result["events"][2], result["events"][4]
    assert start["toolCallName"] == "get_order" and json.loads(args["delta"]) == {"order_id": "4411"}
    content = json.loads(result_event["content"])
    assert result_event["toolCallId"] == start["toolCallId"] and content["status"] == "succeeded"
    assert content["result"]["total"] == "40.00"
    assert finished(result)["outcome"]["type"] == "success" and result["pendingInterrupts"] == []
    assert "4411" in result["events"][6]["delta"]
    assert isinstance(result["parsed"][-1], RunFinishedEvent)
    # The client's own messages: the user's, with the id it sent, the assistant's tool call and reply, the result.
    roles = [(m["role"], m["id"]) for m in result["messages"]]
    assert roles[0] == ("user", page.messages[0]["id"]) and [r for r, _ in roles] == ["user", "assistant", "tool"]


def test_a_refused_call_comes_back_as_its_result_with_the_rule_and_sentence(driver, custom_server, monkeypatch):
    fresh_shop(custom_server, monkeypatch)
    result = Client(driver, custom_server.url).run("refund 40 on order 4411")
    assert result["error"] is None and finished(result)["outcome"]["type"] == "success"
    start = next(e for e in result["events"] if e["type"] == "TOOL_CALL_START")
    refused = next(e for e in result["events"] if e["type"] == "TOOL_CALL_RESULT")
    content = json.loads(refused["content"])
    assert refused["toolCallId"] == start["toolCallId"] and start["toolCallName"] == "refund_card"
    assert content["status"] == "refused" and content["rule"] == "privilege:refunds" and content["sentence"]


def test_a_charge_ends_in_an_interrupt_and_an_approval_charges_once(driver, server, data_dir):
    page = Client(driver, server.url)
    first = page.run("charge 40 to order 4411")
    assert first["error"] is None
    start = next(e for e in first["events"] if e["type"] == "TOOL_CALL_START")
    outcome = finished(first)["outcome"]
    assert outcome["type"] == "interrupt" and len(outcome["interrupts"]) == 1
    interrupt = outcome["interrupts"][0]
    assert interrupt["reason"] == "tool_call" and interrupt["toolCallId"] == start["toolCallId"]
    assert interrupt["responseSchema"]["properties"]["decision"]["enum"] == ["approve", "skip", "cancel_all"]
    assert interrupt["message"] == "Charge the card?"  # the question the shop declares for charge_card
    meta = interrupt["metadata"]["stalwart"]
    assert meta["tool"] == "charge_card" and meta["reasons"] == ["write"] and meta["irreversible"] is False
    assert {a["name"]: (a["value"], a["origin"]) for a in meta["arguments"]} == {
        "amount": (40, "typed"), "order_id": ("4411", "typed")}
    order = types(first)
    assert order.index("STATE_SNAPSHOT") < order.index("MESSAGES_SNAPSHOT") < order.index("RUN_FINISHED")
    state = next(e for e in first["events"] if e["type"] == "STATE_SNAPSHOT")["snapshot"]
    assert [p["id"] for p in state["waiting"]] == [interrupt["id"]] and state["steps"][0]["status"] == "waiting"
    assert page.pending == [interrupt] and shop.charges("4411") == []

    resumed = page.run(resume=[approve(interrupt)])
    assert resumed["error"] is None
    tool_events = [e for e in resumed["events"] if e["type"].startswith("TOOL_CALL")]
    assert [(e["type"], e["toolCallId"]) for e in tool_events] == [("TOOL_CALL_RESULT", start["toolCallId"])]
    assert json.loads(tool_events[0]["content"])["result"]["charge_id"] == "ch-4411"
    assert finished(resumed)["outcome"]["type"] == "success" and page.pending == []
    assert len(shop.charges("4411")) == 1
    assert pause_status(data_dir, interrupt["id"]) == "answered"
    via = rows(data_dir, "SELECT answered_via FROM threads_interrupt WHERE id = ?", (interrupt["id"],))[0][0]
    assert via == "agui"


def test_the_same_resume_replayed_gives_the_same_result_and_another_decision_is_stale(driver, server):
    page = Client(driver, server.url)
    interrupt = finished(page.run("charge 40 to order 4411"))["outcome"]["interrupts"][0]
    held = list(page.messages)
    once = page.run(resume=[approve(interrupt)])
    again = Client(driver, server.url, thread=page.thread, session=page.session)  # a retry after a lost reply
    again.messages, again.pending = held, [interrupt]
    replay = again.run(resume=[approve(interrupt)], keep=False)
    assert replay["error"] is None
    results = [[e for e in r["events"] if e["type"] == "TOOL_CALL_RESULT"] for r in (once, replay)]
    assert results[0] == results[1] and len(results[0]) == 1
    assert len(shop.charges("4411")) == 1  # no second effect
    other = again.run(resume=[approve(interrupt, {"decision": "skip"})], keep=False)
    assert types(other) == ["RUN_STARTED", "RUN_ERROR"] and other["events"][1]["code"] == "interrupt_stale"
    assert len(shop.charges("4411")) == 1


def test_a_new_message_while_a_pause_is_open_is_pending_interrupts_and_the_pause_stays_open(driver, server,
                                                                                              data_dir):
    page = Client(driver, server.url)
    interrupt = finished(page.run("charge 40 to order 4411"))["outcome"]["interrupts"][0]
    # HttpAgent itself refuses to send while it holds the interrupt; a page that lost it (another tab) sends:
    other_tab = Client(driver, server.url, thread=page.thread, session=page.session)
    other_tab.messages = page.messages
    refused = other_tab.run("show order 4412")
    assert types(refused) == ["RUN_STARTED", "RUN_ERROR"]
    assert refused["events"][1]["code"] == "pending_interrupts" and interrupt["id"] in refused["events"][1]["message"]
    assert pause_status(data_dir, interrupt["id"]) == "open"
    console = Console(server.url, data_dir, f"ops-{uuid.uuid4().hex[:6]}")
    try:
        # still in the queue, found as staff would find it: by its thread (on PostgreSQL the
        # server shares its worker's database, whose queue holds other tests' pauses)
        queue = console.http.get("/admin/threads/interrupt/", params={"q": page.thread}).text
        assert interrupt["id"] in queue
    finally:
        console.close()
    held = page.run("show order 4412")  # the client's own rule: every open interrupt answered first
    assert "pending interrupt" in held["error"]


def test_edited_args_open_a_new_pause_instead_of_charging(driver, server, data_dir):
    page = Client(driver, server.url)
    first = finished(page.run("charge 40 to order 4411"))["outcome"]["interrupts"][0]
    edited = page.run(resume=[approve(first, {"editedArgs": {"order_id": "4411", "amount": 30}})])
    assert edited["error"] is None
    second = finished(edited)["outcome"]["interrupts"]
    assert len(second) == 1 and second[0]["id"] != first["id"]
    assert second[0]["metadata"]["stalwart"]["token"] != first["metadata"]["stalwart"]["token"]
    assert second[0]["toolCallId"] == first["toolCallId"]
    assert {a["name"]: (a["value"], a["origin"]) for a in second[0]["metadata"]["stalwart"]["arguments"]}[
        "amount"] == (30, "typed")
    assert pause_status(data_dir, first["id"]) == "edited" and shop.charges("4411") == []
    done = page.run(resume=[approve(second[0], {"approved": True})])
    assert done["error"] is None and [c["amount"] for c in shop.charges("4411")] == ["30.00"]


def test_approved_false_skips_without_charging(driver, server, data_dir):
    page = Client(driver, server.url)
    interrupt = finished(page.run("charge 40 to order 4411"))["outcome"]["interrupts"][0]
    skipped = page.run(resume=[approve(interrupt, {"approved": False})])
    assert skipped["error"] is None and finished(skipped)["outcome"]["type"] == "success"
    result = next(e for e in skipped["events"] if e["type"] == "TOOL_CALL_RESULT")
    assert result["toolCallId"] == interrupt["toolCallId"] and json.loads(result["content"])["status"] == "skipped"
    assert shop.charges("4411") == []
    row = rows(data_dir, "SELECT status, decision FROM threads_interrupt WHERE id = ?", (interrupt["id"],))[0]
    assert row == ("answered", "skip")


@pytest.mark.parametrize(("entry", "code"), [
    ({"metadata": {"stalwart": {"token": "0" * 64}}}, "interrupt_stale"),
    ({"interruptId": "p-unknown"}, "interrupt_stale"),
    ({"payload": {"decision": "happened"}}, "invalid_answer"),
    ({"payload": {"editedArgs": {"amount": "forty", "nope": 1}}}, "invalid_answer"),
])
def test_a_resume_that_does_not_fit_is_a_run_error_and_changes_nothing(driver, server, data_dir, entry, code):
    page = Client(driver, server.url)
    interrupt = finished(page.run("charge 40 to order 4411"))["outcome"]["interrupts"][0]
    wrong = {**approve(interrupt), **entry}
    result = page.run(resume=[wrong] if "interruptId" not in entry else [approve(interrupt), wrong], keep=False)
    assert types(result) == ["RUN_STARTED", "RUN_ERROR"] and result["events"][1]["code"] == code
    assert pause_status(data_dir, interrupt["id"]) == "open" and shop.charges("4411") == []
    good = page.run(resume=[approve(interrupt)])  # and the right answer still goes through
    assert good["error"] is None and len(shop.charges("4411")) == 1


def test_after_a_reload_connect_shows_the_open_pause_and_one_approved_in_the_console_as_done(driver, server,
                                                                                             data_dir):
    page = Client(driver, server.url)
    interrupt = finished(page.run("charge 40 to order 4411"))["outcome"]["interrupts"][0]
    reloaded = page.reloaded()
    shown = reloaded.run(connect=True)
    assert shown["error"] is None and types(shown) == ["RUN_STARTED", "STATE_SNAPSHOT", "MESSAGES_SNAPSHOT",
                                                        "RUN_FINISHED"]
    assert [i["id"] for i in shown["pendingInterrupts"]] == [interrupt["id"]]
    assert [m["id"] for m in shown["messages"]] == [m["id"] for m in page.messages]
    assert shown["state"]["waiting"][0]["id"] == interrupt["id"]

    console = Console(server.url, data_dir, f"ops-{uuid.uuid4().hex[:6]}")
    try:
        console.answer(interrupt["id"], "approve")
    finally:
        console.close()
    again = page.reloaded().run(connect=True)
    assert again["error"] is None and again["pendingInterrupts"] == []
    assert finished(again)["outcome"]["type"] == "success"
    tool = next(m for m in again["messages"] if m["role"] == "tool")
    assert tool["toolCallId"] == interrupt["toolCallId"] and json.loads(tool["content"])["status"] == "succeeded"
    assert again["state"]["steps"][0]["status"] == "succeeded" and len(shop.charges("4411")) == 1


def test_a_retried_turn_replays_its_events_and_starts_nothing(driver, server, data_dir):
    page = Client(driver, server.url)
    first = page.run("charge 40 to order 4411", message_id="u-same")
    retry = Client(driver, server.url, thread=page.thread, session=page.session)
    again = retry.run("charge 40 to order 4411", message_id="u-same")
    assert again["error"] is None
    strip = [{k: v for k, v in e.items() if k != "runId"} for e in first["events"][1:]]
    assert [{k: v for k, v in e.items() if k != "runId"} for e in again["events"][1:]] == strip
    assert rows(data_dir, "SELECT COUNT(*) FROM threads_run WHERE thread_id = ?", (session_key(page.thread, page.session),))[0][0] == 1


def test_another_session_never_reaches_the_thread(driver, server, data_dir):
    page = Client(driver, server.url)
    waiting = finished(page.run("charge 40 to order 4411"))["outcome"]["interrupts"]
    # The same threadId from another session is that session's own thread (threads are per session).
    stranger = Client(driver, server.url, thread=page.thread)
    seen = stranger.run(connect=True)
    state = next(e for e in seen["events"] if e["type"] == "STATE_SNAPSHOT")["snapshot"]
    messages = next(e for e in seen["events"] if e["type"] == "MESSAGES_SNAPSHOT")["messages"]
    assert state["waiting"] == [] and messages == [] and "charge" not in json.dumps(seen["events"])
    own = stranger.run("show order 4412")
    assert own["error"] is None and finished(own)["outcome"]["type"] == "success"
    # The first session's pause is still its own, and still waits.
    assert rows(data_dir, "SELECT id FROM threads_interrupt WHERE thread_id = ? AND status = 'open'",
                (session_key(page.thread, page.session),)) == [(waiting[0]["id"],)] and shop.charges("4411") == []


def test_info_states_the_capabilities_and_a_bad_body_is_a_json_error(server):
    info = httpx.get(f"{server.url}/agui/Shop/info").json()
    assert info["humanInTheLoop"]["interrupts"] is True and info["humanInTheLoop"]["approveWithEdits"] is True
    assert info["identity"]["name"] == "Shop"
    assert "idempotency_key" not in json.dumps(info["tools"])
    bad = httpx.post(f"{server.url}/agui/", json={"threadId": "t", "messages": []},
                     headers={"Accept": "text/event-stream"})
    assert bad.status_code == 400 and bad.json()["error"] == "bad_request" and "runId" in bad.json()["detail"]
    missing = httpx.post(f"{server.url}/agui/Nobody/", json={"threadId": "t", "runId": "r", "messages": []})
    assert missing.status_code == 404 and missing.json()["error"] == "not_found"


@pytest.fixture(scope="module")
def custom_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("agui-deadline")
    spec = yaml.safe_load(SHOP.read_text(encoding="utf-8"))
    spec["agents"][0]["vocabulary"] = str(SHOP.parent / "vocabulary.yaml")
    spec["agents"][0]["deadlines"] = {"confirm": 2}
    spec["agents"][0]["tools"]["refund_card"]["privilege"] = "refunds"
    path = folder / "agent.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    with Server(folder, agent_file=path, env={"STALWART_CONTEXT_SECRET": CONTEXT_SECRET}) as s:
        yield s


def test_an_expired_pause_is_a_run_error_and_cancelling_it_lets_the_thread_go_on(driver, custom_server, monkeypatch):
    import time

    fresh_shop(custom_server, monkeypatch)
    page = Client(driver, custom_server.url)
    interrupt = finished(page.run("charge 40 to order 4411"))["outcome"]["interrupts"][0]
    assert interrupt["expiresAt"].endswith("Z")
    time.sleep(2.5)
    late = page.run(resume=[approve(interrupt)], keep=False)
    assert "expired" in (late["error"] or "")  # HttpAgent itself refuses an expired interrupt's answer
    page.pending = []  # a client that does not check: the server says so
    late = page.run(resume=[approve(interrupt)], keep=False)
    assert types(late) == ["RUN_STARTED", "RUN_ERROR"] and late["events"][1]["code"] == "expired"
    page.pending = [interrupt]
    cancelled = page.run(resume=[{"interruptId": interrupt["id"], "status": "cancelled",
                                  "metadata": {"stalwart": {"token": interrupt["metadata"]["stalwart"]["token"]}}}])
    assert cancelled["error"] is None and finished(cancelled)["outcome"]["type"] == "success"
    assert shop.charges("4411") == []
    assert page.run("show order 4411")["error"] is None


def test_a_question_is_input_required_and_its_answer_goes_on_to_the_confirm(driver, server):
    page = Client(driver, server.url)
    asked = finished(page.run("charge order 4411"))["outcome"]["interrupts"]
    assert len(asked) == 1 and asked[0]["reason"] == "input_required" and asked[0]["message"]
    schema = asked[0]["responseSchema"]
    assert schema["required"] == ["answer"] and schema["properties"]["decision"]["enum"] == ["answer"]
    assert schema["properties"]["answer"]["properties"]["kind"] == {"const": "open"}
    wrong = page.run(resume=[approve(asked[0], {"answer": {"kind": "choice", "index": 0}})], keep=False)
    assert wrong["events"][1]["code"] == "invalid_answer"
    answered = page.run(resume=[approve(asked[0], {"answer": {"kind": "open", "text": "40"}})])
    assert answered["error"] is None
    confirm = finished(answered)["outcome"]["interrupts"]
    assert [i["reason"] for i in confirm] == ["tool_call"] and confirm[0]["toolCallId"] == asked[0]["toolCallId"]
    assert {a["name"]: a["origin"] for a in confirm[0]["metadata"]["stalwart"]["arguments"]}["amount"] == "reply"
    assert shop.charges("4411") == []


def test_a_turn_nothing_reads_is_a_confirmation_and_declining_it_replies(driver, server):
    page = Client(driver, server.url)
    first = page.run("the weather on mars, please")
    delegate = finished(first)["outcome"]["interrupts"]
    assert len(delegate) == 1 and delegate[0]["reason"] == "confirmation" and "toolCallId" not in delegate[0]
    assert delegate[0]["responseSchema"]["properties"]["decision"]["enum"] == ["approve", "decline"]
    declined = page.run(resume=[approve(delegate[0], {"approved": False})])
    assert declined["error"] is None and finished(declined)["outcome"]["type"] == "success"
    assert "TEXT_MESSAGE_CONTENT" in types(declined)


def arguments_of_state(result: dict[str, Any]) -> dict[str, tuple[Any, str]]:
    state = next(e for e in result["events"] if e["type"] == "STATE_SNAPSHOT")["snapshot"]
    return {a["name"]: (a["value"], a["origin"]) for a in state["steps"][0]["arguments"]}


def test_the_pages_context_counts_as_unsigned_context_without_a_secret(driver, server):
    given = Client(driver, server.url).run("search orders for this customer", context={"customer": "c-208"})
    assert given["error"] is None and finished(given)["outcome"]["type"] == "success"
    assert arguments_of_state(given) == {"customer": ("c-208", "context")}
    without = Client(driver, server.url).run("search orders for this customer")  # the twin: nothing to read it from
    assert [i["reason"] for i in finished(without)["outcome"]["interrupts"]] == ["input_required"]


def test_under_a_context_secret_only_the_signed_header_counts(driver, custom_server, monkeypatch):
    import time

    import jwt

    fresh_shop(custom_server, monkeypatch)
    left_out = Client(driver, custom_server.url).run("search orders for this customer", context={"customer": "c-208"})
    assert left_out["error"] is None
    assert [i["reason"] for i in finished(left_out)["outcome"]["interrupts"]] == ["input_required"]
    token = jwt.encode({"exp": int(time.time()) + 300, "ctx": {"customer": "c-208"}, "priv": ["refunds"]},
                       CONTEXT_SECRET, algorithm="HS256")
    signed = Client(driver, custom_server.url)
    shown = signed.run("search orders for this customer", headers={"Stalwart-Context": token})
    assert arguments_of_state(shown) == {"customer": ("c-208", "context")}
    refund = signed.run("refund 40 on order 4411", headers={"Stalwart-Context": token})
    assert [i["reason"] for i in finished(refund)["outcome"]["interrupts"]] == ["tool_call"]  # the privilege held
