"""P5, hostile input: a small corpus (a NUL, a lone surrogate, over-long ids,
deep nesting, NaN, a huge body, invalid UTF-8, unknown argument names) sent
through each door gets that door's own error shape (the JSON ``{"error",
"detail"}`` of docs/http-api.md with a 4xx; a JSON-RPC error or an ``isError``
refusal for MCP; a 400 or a ``RUN_ERROR`` for AG-UI; an error ``ToolMessage``
for the LangChain middleware; a ``StalwartError`` from the Desk), nothing is
stored, and nothing answers 500 (docs/conformance.md). A later issue grows the
corpus: add a shape to a door's list below."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.langgraph.graphs import say

from .doors import CHARGE, SAY, Door, doors, unique
from .doors.agui import AguiDoor, events_of, finished, run_error
from .doors.estate import Estate

pytestmark = pytest.mark.server

Shape = tuple[str, Callable[[], str]]  # a label, and the send: "" when refused in the door's shape, else what happened


def deep(levels: int) -> str:
    return "[" * levels + "]" * levels


STORE = ("threads_thread", "threads_run", "threads_interrupt")
# The LangGraph door's own rows of the Agent Server API: its threads and its runs.
GRAPH_STORE = ("doors_langgraph_graphthread", "doors_langgraph_graphrun")


def stored(door: Door) -> tuple[int, ...]:
    """What the run store holds: threads, runs, pauses (and, for the LangGraph bridge's doors, which serve
    the Agent Server API, its graph threads and graph runs)."""
    tables = STORE + (GRAPH_STORE if door.id.startswith("langgraph") else ())
    return tuple(door.rows(f"SELECT COUNT(*) FROM {table}")[0][0]  # noqa: S608 - the test's own table names
                 for table in tables)


def json_error(response: httpx.Response, *statuses: int) -> str:
    """"" when ``response`` is the JSON error shape with one of ``statuses``; else what it was."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if response.status_code in statuses and isinstance(body, dict) and body.get("error") and body.get("detail"):
        return ""
    return f"{response.status_code} {response.text[:160]!r}"


def agui_refused(response: httpx.Response) -> str:
    """AG-UI's two shapes: the JSON 400 before any stream, or a stream ending in ``RUN_ERROR``."""
    if response.status_code in (400, 413):
        return json_error(response, 400, 413)
    if response.status_code == 200 and response.headers.get("content-type", "").startswith("text/event-stream"):
        events = events_of(response)
        if events and events[-1]["type"] == "RUN_ERROR":
            return ""
        return f"200, accepted: {[e['type'] for e in events]}"
    return f"{response.status_code} {response.text[:160]!r}"


# -- the corpus, door by door -------------------------------------------------------------------

def http_corpus(door: Any) -> list[Shape]:
    thread = unique("hostile")

    def post(path: str, raw: bytes | str, *statuses: int) -> Callable[[], str]:
        content = raw.encode() if isinstance(raw, str) else raw
        return lambda: json_error(door.request(door.browser, "POST", path, content=content,
                                               headers={"Content-Type": "application/json"}), *statuses)

    turn, resume = f"/threads/{thread}/messages", f"/threads/{thread}/resume"
    return [
        ("NUL in context", post(turn, '{"text": "' + SAY + '", "context": {"customer": "c-\\u0000"}}', 400)),
        ("lone surrogate", post(turn, '{"text": "charge 40 to order \\ud800 4411"}', 400)),
        ("over-long thread id", post(f"/threads/{'t' * 300}/messages", json.dumps({"text": SAY}), 400)),
        ("deep nesting", post(turn, '{"text": "' + SAY + '", "context": ' + deep(40) + "}", 400)),
        ("NaN", post(turn, '{"text": NaN}', 400)),
        ("invalid UTF-8", post(turn, b'{"text": "charge 40 to order \xed\xa0\x80 4411"}', 400)),
        ("huge body", post(turn, '{"text": "' + "x" * (2 * 1024 * 1024) + '"}', 413)),
        ("over-long interrupt id", post(resume, json.dumps({"interrupt_id": "p" * 500, "decision": "approve",
                                                            "token": "t"}), 400)),
        ("NUL in an answer", post(resume, '{"interrupt_id": "p-x", "decision": "approve", "token": "t", '
                                          '"answer": {"text": "\\u0000"}}', 400, 422)),
    ]


def console_corpus(door: Any) -> list[Shape]:
    staff = door.estate.staff()
    pause = door.propose()

    def get(path: str) -> Callable[[], str]:
        def send() -> str:
            response = staff.http.get(path)
            return "" if 200 <= response.status_code < 500 else f"{response.status_code} on {path}"
        return send

    def answer(data: dict[str, str]) -> Callable[[], str]:
        def send() -> str:
            status, said = staff.post_answer(pause.id, data)
            still = door.pause_row(pause.id)["status"]
            return "" if status < 500 and still == "open" and not said.startswith("Answered") else \
                f"{status}, pause {still}, {said[:120]!r}"
        return send

    return [
        ("NUL in the queue's search", get("/admin/threads/interrupt/?q=a%00b")),
        ("lone surrogate in a filter", get("/admin/threads/interrupt/?kind=%ED%A0%80")),
        ("over-long search", get("/admin/approvals/decision/?q=" + "x" * 5000)),
        ("a bad date in the decisions list", get("/admin/approvals/decision/?answered_at__gte=not-a-date")),
        ("a bad date in the CSV export", get("/admin/approvals/decision/csv/?answered_at__gte=not-a-date")),
        ("a bad page", get("/admin/threads/interrupt/?p=NaN")),
        ("NUL in an answer's token", answer({"decision": "approve", "token": "a\x00b"})),
        ("an over-long decision", answer({"decision": "approve" * 200, "token": staff.token_shown(pause.id)})),
    ]


def desk_corpus(door: Any) -> list[Shape]:
    from threads.errors import StalwartError

    def refused(call: Callable[[], Any]) -> Callable[[], str]:
        def send() -> str:
            try:
                call()
            except StalwartError:
                return ""
            except Exception as exc:  # noqa: BLE001 - what the shape is reported as
                return f"{type(exc).__name__}: {str(exc)[:120]}"
            return "accepted"
        return send

    desk = door.desk
    return [
        ("NUL in context", refused(lambda: desk.say(unique("h"), SAY, context={"customer": "c-\x00"}))),
        ("lone surrogate in context", refused(lambda: desk.say(unique("h"), SAY, context={"customer": "\ud800"}))),
        ("over-long thread id", refused(lambda: desk.say("t" * 300, SAY))),
        ("NaN in context", refused(lambda: desk.say(unique("h"), SAY, context={"c": float("nan")}))),
    ]


def mcp_corpus(door: Any) -> list[Shape]:
    from mcp.shared.exceptions import MCPError

    def call(arguments: dict[str, Any], tool: str = "charge_card") -> Callable[[], str]:
        def send() -> str:
            try:
                result = door.call(tool, arguments, name=unique("hostile"))
            except MCPError:
                return ""  # a JSON-RPC error
            except BaseExceptionGroup as group:  # the client raises it out of its task group
                if group.subgroup(MCPError) is not None:
                    return ""
                return f"{type(group).__name__}: {str(group)[:160]}"
            except Exception as exc:  # noqa: BLE001 - reported as what happened
                return f"{type(exc).__name__}: {str(exc)[:160]}"
            body = result.structured_content or {}
            if result.is_error and body.get("status") != "waiting":
                return ""  # refused by the check, nothing held
            return f"accepted: {json.dumps(body)[:160]}"
        return send

    def not_found(pause_id: str) -> Callable[[], str]:
        """``stalwart_pause_status`` of an id no pause could have: the tool's own "no such pause"."""
        def send() -> str:
            try:
                result = door.call("stalwart_pause_status", {"pause_id": pause_id}, name=unique("hostile"))
            except BaseException as exc:  # noqa: BLE001 - reported as what happened
                return f"{type(exc).__name__}: {str(exc)[:160]}"
            return "" if (result.structured_content or {}).get("status") == "not_found" else \
                f"answered: {json.dumps(result.structured_content)[:160]}"
        return send

    shapes = [
        ("NUL in an argument", call({"order_id": "44\x0011", "amount": 40})),
        ("unknown argument name", call({**CHARGE, "approved_by": "ana"})),
        ("deep nesting", call({"order_id": json.loads(deep(40)), "amount": 40})),
        ("over-long tool name", call({}, tool="t" * 5000)),  # a tool it does not list: -32602 Unknown tool
        ("NUL in a pause id", not_found("p-\x00")),
        ("over-long pause id", not_found("p" * 5000)),
    ]
    if door.id == "mcp-2025-11-25":  # what the SDK never writes, by hand
        shapes += [("NaN", lambda: raw_call(door, '{"order_id": "4411", "amount": NaN}')),
                   ("lone surrogate", lambda: raw_call(door, '{"order_id": "44\\ud80011", "amount": 40}'))]
    return shapes


def raw_call(door: Any, arguments: str) -> str:
    """A 2025-11-25 session by hand: initialize, then a tools/call of charge_card with ``arguments`` as written."""
    url = door.url()
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    with httpx.Client(timeout=60) as http:
        init = http.post(url, headers=headers, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": unique("raw"), "version": "1"}}})
        headers["Mcp-Session-Id"] = init.headers.get("mcp-session-id", "")
        http.post(url, headers=headers, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        raw = ('{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "charge_card", '
               '"arguments": ' + arguments + "}}")
        response = http.post(url, headers=headers, content=raw.encode())
    if response.status_code >= 500:
        return f"{response.status_code}"
    text = response.text.replace(" ", "")
    return "" if '"error":{' in text or '"isError":true' in text else f"accepted: {response.text[:160]!r}"


def agui_corpus(door: Any) -> list[Shape]:
    def turn(**changes: Any) -> dict[str, Any]:
        body = {"threadId": unique("h"), "runId": f"r-{uuid.uuid4().hex[:8]}", "state": {}, "tools": [],
                "context": [], "forwardedProps": {},
                "messages": [{"id": f"u-{uuid.uuid4().hex[:8]}", "role": "user", "content": SAY}]}
        body.update(changes)
        return body

    def send(body: Any = None, raw: bytes | None = None) -> Callable[[], str]:
        return lambda: agui_refused(door.post(body, raw=raw))

    def said(message_id: str) -> dict[str, Any]:
        return turn(messages=[{"id": message_id, "role": "user", "content": SAY}])

    def surrogate(body: dict[str, Any]) -> Callable[[], str]:
        """``body`` with its ``SURR`` written as the lone surrogate ``\\ud800`` (json.dumps never writes one)."""
        return send(raw=json.dumps(body).replace("SURR", "\\ud800").encode())

    return [  # a NUL in runId and in a message id: issue 32's defect 6, the test below, and here
        ("NUL in threadId", send(turn(threadId="t-\x00"))),
        ("lone surrogate in the text", send(raw=json.dumps(turn()).replace("4411", "44\\ud80011").encode())),
        ("over-long threadId", send(turn(threadId="t" * 300))),
        ("deep nesting", send(raw=json.dumps(turn()).replace('"forwardedProps": {}',
                                                              f'"forwardedProps": {{"x": {deep(40)}}}').encode())),
        ("NaN", send(raw=json.dumps(turn()).replace('"state": {}', '"state": {"n": NaN}').encode())),
        ("huge body", send(turn(forwardedProps={"x": "x" * (2 * 1024 * 1024)}))),
        ("invalid UTF-8", send(raw=json.dumps(turn()).encode().replace(b"4411", b"44\xed\xa0\x8011"))),
        # issue 33: the ids and the forwarded language, each kept whole or refused (docs/ag-ui.md)
        ("over-long message id", send(said("m" * 256))),
        ("NUL in a message id", send(said("u-\x00"))),
        ("NUL in runId", send(turn(runId="r-\x00"))),
        ("NUL in forwardedProps.language", send(turn(forwardedProps={"language": "pt\x00"}))),
        ("lone surrogate in a message id", surrogate(said("u-SURR"))),
        ("lone surrogate in runId", surrogate(turn(runId="r-SURR"))),
        ("lone surrogate in threadId", surrogate(turn(threadId="t-SURR"))),
        ("lone surrogate in forwardedProps.language", surrogate(turn(forwardedProps={"language": "SURR"}))),
        ("over-long runId", send(turn(runId="r" * 256))),
        ("over-long forwardedProps.language", send(turn(forwardedProps={"language": "pt-BR-x-long"}))),
    ]


def bridge_corpus(door: Any) -> list[Shape]:
    def post(path: str, raw: bytes | str, *statuses: int) -> Callable[[], str]:
        content = raw.encode() if isinstance(raw, str) else raw
        return lambda: json_error(door.http.post(path, content=content,
                                                 headers={"Content-Type": "application/json"}), *statuses)

    runs = f"/threads/{unique('h')}/runs"
    return [
        ("NUL in the input", post(runs, json.dumps({"input": {"messages": [{"role": "user", "content": "44\u000011"}]}}),
                                  400)),
        ("NUL in the thread id", post("/threads/a%00b/runs", json.dumps({"input": say(("charge_card", CHARGE))}),
                                      400, 404)),
        ("lone surrogate", post(runs, json.dumps({"input": say(("charge_card", CHARGE))}).replace(
            "4411", "44\\ud80011"), 400)),
        ("over-long thread id", post(f"/threads/{'t' * 300}/runs", json.dumps({"input": None}), 400)),
        ("deep nesting", post(runs, '{"input": ' + deep(100_000) + "}", 400)),
        ("NaN", post(runs, '{"input": NaN}', 400)),
        ("huge body", post(runs, '{"input": "' + "x" * (2 * 1024 * 1024) + '"}', 413)),
        ("over-long interrupt id", post(runs.replace("/runs", "/resume"), json.dumps(
            {"interrupt_id": "p" * 500, "decision": "approve", "token": "t"}), 400, 404)),
    ]


def agent_server_corpus(door: Any) -> list[Shape]:
    """The Agent Server API's routes: a thread made, a run waited on, an answer as a run's ``command``, a
    stream, a search. Every one of them is a 400 in the ``{"error", "detail"}`` shape before anything is kept."""
    def post(path: str, raw: bytes | str, *statuses: int) -> Callable[[], str]:
        content = raw.encode() if isinstance(raw, str) else raw
        return lambda: json_error(door.http.post(path, content=content,
                                                 headers={"Content-Type": "application/json"}), *statuses)

    def body(path: str, value: Any) -> Callable[[], str]:
        return post(path, json.dumps(value), 400)

    thread = unique("h")
    base = f"/threads/{thread}"
    wait, runs, stream = f"{base}/runs/wait", f"{base}/runs", f"{base}/runs/stream"
    charge = {"assistant_id": "mail", "input": say(("charge_card", CHARGE))}
    approve = {"resume": {"decisions": [{"type": "approve"}]}}
    return [
        ("NUL in a new thread's id", body("/threads", {"thread_id": "t-\u0000"})),
        ("NUL in a new thread's metadata", body("/threads", {"thread_id": unique("h"), "metadata": {"m": "a\u0000"}})),
        ("over-long new thread id", body("/threads", {"thread_id": "t" * 300})),
        ("a new thread's id not a string", body("/threads", {"thread_id": ["t"]})),
        ("NUL in a run's input", body(wait, {"input": {"messages": [{"role": "user", "content": "44\u000011"}]}})),
        ("NUL in a resume", body(runs, {"command": {"resume": {"decisions": [{"type": "reject",
                                                                               "message": "a\u0000"}]}}})),
        ("NUL in the thread id", post("/threads/a%00b/runs/wait", json.dumps(charge), 400, 404)),
        ("over-long thread id, wait", body(f"/threads/{'t' * 300}/runs/wait", charge)),
        ("over-long thread id, a resume", body(f"/threads/{'t' * 300}/runs", {"command": approve})),
        ("over-long thread id, stream", body(f"/threads/{'t' * 300}/runs/stream", charge)),
        ("over-long thread id, state", lambda: json_error(door.http.get(f"/threads/{'t' * 300}/state"), 400)),
        ("lone surrogate", post(wait, json.dumps(charge).replace("4411", "44\\ud80011"), 400)),
        ("deep nesting, input", post(wait, '{"input": ' + deep(100_000) + "}", 400)),
        ("deep nesting, a resume", post(runs, '{"command": {"resume": ' + deep(100_000) + "}}", 400)),
        ("deep nesting, metadata", post("/threads", '{"metadata": {"m": ' + deep(100_000) + "}}", 400)),
        ("NaN, input", post(wait, '{"input": NaN}', 400)),
        ("NaN, a resume", post(runs, '{"command": {"resume": {"decisions": [{"type": "approve", "n": NaN}]}}}',
                               400)),
        ("NaN, a search's limit", post("/threads/search", '{"limit": NaN}', 400)),
        ("invalid UTF-8", post(wait, json.dumps(charge).encode().replace(b"4411", b"44\xed\xa0\x8011"), 400)),
        ("huge body", post(wait, '{"input": "' + "x" * (2 * 1024 * 1024) + '"}', 413)),
        ("__pregel_resume_map in the config", body(runs, {"input": None, "config": {
            "configurable": {"__pregel_resume_map": {"x": approve["resume"]}}}})),
        ("__pregel_scratchpad in the config", body(wait, {**charge, "config": {"configurable": {
            "__pregel_scratchpad": {}}}})),
        ("__pregel_* at the config's top", body(wait, {**charge, "config": {"__pregel_checkpointer": None}})),
        ("__pregel_* nested in the config", body(runs, {"command": approve, "config": {"configurable": {
            "deep": {"__pregel_resume_map": {}}}}})),
        ("__pregel_* in the context", body(wait, {**charge, "context": {"__pregel_resume_map": {}}})),
        ("a command with goto", body(runs, {"command": {"goto": "tools"}})),
        ("a command with update", body(runs, {"command": {"update": {"messages": []}}})),
        ("a resume with goto", body(runs, {"command": {**approve, "goto": "tools"}})),
        ("a resume with update", body(runs, {"command": {**approve, "update": {"messages": []}}})),
        ("a command not an object", body(runs, {"command": ["resume"]})),
        ("input and a command", body(wait, {**charge, "command": approve})),
        ("checkpoint_id", body(wait, {**charge, "checkpoint_id": "1ef-0"})),
        ("checkpoint_id on a resume", body(runs, {"command": approve, "checkpoint_id": "1ef-0"})),
        ("checkpoint", body(runs, {"command": approve, "checkpoint": {"checkpoint_id": "1ef-0"}})),
        ("interrupt_before", body(wait, {**charge, "interrupt_before": ["tools"]})),
        ("webhook", body(wait, {**charge, "webhook": "http://127.0.0.1:9/hook"})),
        ("metadata not an object", body(wait, {**charge, "metadata": ["m"]})),
        ("a stream mode not served", body(stream, {**charge, "stream_mode": ["debug"]})),
        ("a search's limit out of range", body("/threads/search", {"limit": 10**6})),
        ("a search's sort", body("/threads/search", {"sort_by": "metadata"})),
    ]


def langchain_corpus(door: Any) -> list[Shape]:
    def tool_call(arguments: dict[str, Any]) -> Callable[[], str]:
        def send() -> str:
            config = {"configurable": {"thread_id": unique("h")}}
            try:
                out = door.agent.invoke(say(("charge_card", arguments)), config)
            except Exception as exc:  # noqa: BLE001 - what the shape is reported as
                return f"{type(exc).__name__}: {str(exc)[:120]}"
            if out.get("__interrupt__"):
                return "accepted: the write waits as a pause"
            tools = [m for m in out["messages"] if m.type == "tool"]
            return "" if tools and tools[-1].status == "error" else "accepted"
        return send

    return [
        ("NUL in an argument", tool_call({"order_id": "44\x0011", "amount": 40})),
        ("lone surrogate in an argument", tool_call({"order_id": "44\ud80011", "amount": 40})),
        ("unknown argument name", tool_call({**CHARGE, "approved_by": "ana"})),
        ("NaN", tool_call({"order_id": "4411", "amount": float("nan")})),
    ]


CORPUS = {"http": http_corpus, "widget": http_corpus, "console": console_corpus, "desk": desk_corpus,
          "mcp-2025-11-25": mcp_corpus, "mcp-2026-07-28": mcp_corpus, "mcp-stdio": mcp_corpus, "agui": agui_corpus,
          "langgraph": bridge_corpus, "langgraph-api": agent_server_corpus, "langchain": langchain_corpus}


@pytest.mark.parametrize("door", doors(), indirect=True)
def test_hostile_input_gets_the_doors_own_error_and_stores_nothing(door):
    shapes = CORPUS[door.id](door)
    wrong = {}
    for label, send in shapes:
        before = stored(door)
        said = send()
        grew = [n - b for n, b in zip(stored(door), before, strict=True)]
        if said or any(grew):
            wrong[label] = f"{said or 'refused'}; stored threads/runs/pauses +{grew}"
    assert wrong == {}, "\n".join(f"{k}: {v}" for k, v in wrong.items())


# -- found adding the Agent Server API's door -----------------------------------------------------

@pytest.mark.parametrize("route", ["runs", "runs/wait"])
def test_an_agent_server_run_with_nothing_to_run_is_refused_before_anything_is_kept(fresh: Estate, route: str):
    """A run with neither an input nor a command, on a thread whose graph never ran, has nothing to start
    from: the caller's mistake, not the graph's failure. The bridge's ``/runs`` of old refused a body
    without ``input`` with 400; the Agent Server API takes an input of ``null`` (the graph goes on from its
    checkpoint), so here only the thread with no checkpoint is refused.

    Expected: 400 ``bad_request`` in the ``{"error", "detail"}`` shape, no graph thread and no run kept."""
    from .doors.langgraph import AgentServerDoor

    door = AgentServerDoor(fresh)
    try:
        before = stored(door)
        said = json_error(door.http.post(f"/threads/{unique('h')}/{route}", json={"input": None}), 400)
        assert (said, [n - b for n, b in zip(stored(door), before, strict=True)]) == ("", [0] * len(before))
    finally:
        door.close()


MODEL_MADE = {  # a tool call's arguments as the model makes them from the caller's text
    "NaN": {"order_id": "4411", "amount": float("nan")},
    "NUL": {"order_id": "44\x0011", "amount": 40},
}

@pytest.mark.parametrize("route", ["runs", "runs/wait"])
@pytest.mark.parametrize("made", [
    "NaN", "NUL",
])
def test_an_agent_server_run_whose_interrupt_holds_what_json_cannot_keep_never_answers_500(fresh: Estate, made: str,
                                                                                           route: str):
    """The caller's message is plain text; the model reads a tool call from it (the scripted model does, as a
    model told to, or a prompt injected, can) whose argument is a NaN or a NUL. The interrupt is then the
    graph's own value: nothing to refuse, and the bridge mirrors it with what cannot be stored shown replaced
    (tests/langgraph/test_routes.py). Expected: the run answers 200, the thread's state can be read, the
    pause waits and nothing is charged; never a 500."""
    from .doors.langgraph import AgentServerDoor

    door = AgentServerDoor(fresh)
    try:
        door.thread_made(door.thread)
        ran = door.http.post(f"/threads/{door.thread}/{route}",
                             content=json.dumps({"input": say(("charge_card", MODEL_MADE[made]))}).encode(),
                             headers={"Content-Type": "application/json"})
        state = door.http.get(f"/threads/{door.thread}/state")
        assert (ran.status_code, state.status_code) == (200, 200), (ran.text[:300], state.text[:300])
        assert len(door.open_pauses()) == 1 and door.effects() == 0
    finally:
        door.close()


# -- issue 32, defect 6 -------------------------------------------------------------------------

@pytest.mark.parametrize("field", ["runId", "messageId", "threadId"])
def test_defect6_an_agui_turn_holding_a_nul_is_refused_before_anything_is_stored(fresh: Estate, field: str):
    """Issue 32, defect 6: "a turn whose `runId` held a NUL committed its pause, answered 500, and its retry is
    `idempotency_in_progress` forever."

    After the fix: a turn whose ``runId``, message id or ``threadId`` holds a NUL is refused before anything
    is stored (a JSON 400 or a ``RUN_ERROR``), and the same turn with clean ids then runs and pauses."""
    door = AguiDoor(fresh)
    thread, message, run = unique("nul"), f"u-{uuid.uuid4().hex[:8]}", f"r-{uuid.uuid4().hex[:8]}"

    def turn(dirty: bool) -> dict[str, Any]:
        spoil = (lambda v: v + "\x00x") if dirty else (lambda v: v)
        return {"threadId": spoil(thread) if field == "threadId" else thread,
                "runId": spoil(run) if field == "runId" else run, "state": {}, "tools": [], "context": [],
                "forwardedProps": {}, "messages": [{"id": spoil(message) if field == "messageId" else message,
                                                   "role": "user", "content": SAY}]}

    runs_of_thread = "SELECT COUNT(*) FROM threads_run WHERE thread_id LIKE ?"
    refused = door.post(turn(True))
    assert agui_refused(refused) == "" and fresh.rows(runs_of_thread, (f"{thread}%",)) == [(0,)], refused.text[:300]
    clean = door.post(turn(False))
    events = events_of(clean) if clean.status_code == 200 else []
    assert [e["type"] for e in events][-1:] == ["RUN_FINISHED"], clean.text[:300]
    assert events[-1]["outcome"]["type"] == "interrupt" and run_error({"events": events}) is None
    assert finished({"events": events}) is not None
