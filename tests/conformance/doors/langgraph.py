"""The LangGraph doors: the bridge (``stalwart_site.langgraph.make_app`` over
a real graph with ``HumanInTheLoopMiddleware``, served by daphne; its own
routes ``/interrupts`` and ``/resume``, the graph run through ``/runs``), the
Agent Server API the same server serves (``POST /threads``, ``/runs/wait``,
``/runs`` with ``command.resume``: what ``langgraph-sdk`` and Agent Inbox
call), and the LangChain middleware (``StalwartMiddleware`` in a
``create_agent`` graph with a fake chat model, in this process). All three say
``reject`` where the other doors say ``skip``."""

from __future__ import annotations

import hashlib
import json
import uuid
from typing import Any

import httpx

from tests.langgraph.graphs import ScriptedModel, say

from .base import CHARGE, Answer, Door, Pause, unique
from .estate import Estate
from .inprocess import InProcess


def graph_outcome(messages: list[Any]) -> str:
    """What the graph's last tool message says of the charge: done (the charge's id), skipped, or its text."""
    def field(m: Any, name: str) -> Any:
        return m.get(name) if isinstance(m, dict) else getattr(m, name, None)

    tools = [m for m in messages if "tool" in (field(m, "type"), field(m, "role"))]
    if not tools:
        return ""
    content = str(field(tools[-1], "content"))
    if "ch-4411" in content:
        return "done"
    said = content.lower()
    if field(tools[-1], "status") == "error" or "not executed" in said or "declined" in said or "reject" in said:
        return "skipped"
    return content


class BridgeDoor(Door):
    id = "langgraph"
    via = "langgraph"
    workers = 1  # one bridge process: its graph's checkpointer is in that process's memory
    decisions = {"approve": "approve", "skip": "reject"}

    def __init__(self, estate: Estate) -> None:
        self.estate = estate
        self.server = estate.server("bridge")
        self.http = httpx.Client(base_url=self.server.url, timeout=120)
        self.thread = unique("lg")

    def runs(self, body: Any, *, thread: str | None = None, headers: dict[str, str] | None = None) -> httpx.Response:
        """A run of the graph on the bridge's thread, made by the run as the bridge's own callers make it
        (``if_not_exists: "create"``; a body that is not an object is sent as it is)."""
        sent = {"if_not_exists": "create", **body} if isinstance(body, dict) and "command" not in body else body
        return self.http.post(f"/threads/{thread or self.thread}/runs", json=sent, headers=headers or {})

    def propose(self) -> Pause:
        """The graph run on the charge (``/runs`` answers the run itself), then its pause as the bridge's
        ``/interrupts`` shows it, with its token."""
        started = self.runs({"input": say(("charge_card", CHARGE))})
        assert started.status_code == 200, started.text
        waiting = self.waiting()
        assert [p["tool"] for p in waiting] == ["charge_card"], (started.text, waiting)
        return Pause(id=waiting[0]["id"], token=waiting[0]["token"], thread=self.thread, shown=waiting[0])

    def waiting(self, thread: str | None = None) -> list[dict[str, Any]]:
        """The thread's open pauses, as ``GET /threads/{id}/interrupts`` mirrors them."""
        listed = self.http.get(f"/threads/{thread or self.thread}/interrupts")
        assert listed.status_code == 200, listed.text
        return list(listed.json()["interrupts"])

    def resume(self, pause: Pause, decision: str, *, token: str | None = None, thread: str | None = None,
               answer: Any = None, raw: bytes | None = None, headers: dict[str, str] | None = None) -> httpx.Response:
        body: dict[str, Any] = {"interrupt_id": pause.id, "decision": decision,
                                "token": pause.token if token is None else token}
        if answer is not None:
            body["answer"] = answer
        content = raw if raw is not None else json.dumps(body).encode()
        return self.http.post(f"/threads/{thread or pause.thread}/resume", content=content,
                              headers={"Content-Type": "application/json", **(headers or {})})

    def answer(self, pause: Pause, decision: str, *, token: str | None = None, worker: int = 0) -> Answer:
        response = self.resume(pause, decision, token=token)
        body = response.json()
        if response.status_code != 200:
            return Answer(taken=False, code=body.get("error", ""), body=body, extra={"status": response.status_code})
        outcome = graph_outcome((body.get("output") or {}).get("messages") or []) if body.get("resumed") else "waiting"
        return Answer(taken=True, outcome=outcome, body=body, extra={"status": 200})

    def rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        return self.estate.rows(sql, params)

    def console_get(self, path: str) -> tuple[int, str]:
        response = self.estate.staff("bridge").http.get(path)
        return response.status_code, response.text

    def console_answer(self, pause_id: str, decision: str) -> str:
        """A staff member's answer in the bridge's own console (which carries the graph on); the message after."""
        return self.estate.staff("bridge").answer(pause_id, decision)

    def close(self) -> None:
        self.http.close()


GRAPH = "mail"  # the name of the graph the bridge serves (tests/langgraph/graphs.py's mail_agent)


def approve_or_reject(decision: str, **extra: Any) -> dict[str, Any]:
    """A run's ``command`` answering a ``HumanInTheLoopMiddleware`` interrupt of one call with ``decision``."""
    return {"resume": {"decisions": [{"type": decision, **extra}]}}


class AgentServerDoor(BridgeDoor):
    """The Agent Server API over the bridge, as ``langgraph-sdk`` calls it: ``POST /threads``, the graph run
    with ``POST /threads/{id}/runs/wait`` (its values, ``__interrupt__`` while one waits), an answer as a run
    whose ``command.resume`` holds the middleware's decisions (``POST /threads/{id}/runs``, then its ``join``
    for the values it ended with). The caller is shown LangGraph's interrupt, never a pause or its token: the
    pause behind it is read from the run store, and an answer is bound to what waits now."""

    id = "langgraph-api"
    shows_token = False  # a command.resume carries none: it answers the interrupt pending now

    def __init__(self, estate: Estate) -> None:
        super().__init__(estate)
        self.thread = unique("lga")

    def thread_made(self, thread: str) -> None:
        made = self.http.post("/threads", json={"thread_id": thread, "metadata": {"by": "conformance"}})
        assert made.status_code == 200 and made.json()["thread_id"] == thread, made.text

    def wait(self, body: Any, *, thread: str | None = None) -> httpx.Response:
        return self.http.post(f"/threads/{thread or self.thread}/runs/wait", json=body)

    def propose(self) -> Pause:
        """A thread, the graph run on the charge until it waits; the pause is the one open behind the
        interrupt the API showed."""
        self.thread_made(self.thread)
        waited = self.wait({"assistant_id": GRAPH, "input": say(("charge_card", CHARGE))})
        assert waited.status_code == 200, waited.text
        (interrupt,) = waited.json()["__interrupt__"]
        assert [a["name"] for a in interrupt["value"]["action_requests"]] == ["charge_card"], interrupt
        (pause_id,) = self.open_pauses()
        return Pause(id=pause_id, token="", thread=self.thread, shown=interrupt)

    def open_pauses(self, thread: str | None = None) -> list[str]:
        """The ids of the pauses open behind the graph thread's interrupts (in the run store)."""
        return [r[0] for r in self.rows("SELECT id FROM threads_interrupt WHERE thread_id = ? AND status = 'open' "
                                         "ORDER BY created_at, id", (f"lg-{GRAPH}-{thread or self.thread}",))]

    def command(self, command: Any, *, thread: str | None = None) -> httpx.Response:
        return self.runs({"assistant_id": GRAPH, "command": command}, thread=thread)

    def answer(self, pause: Pause, decision: str, *, token: str | None = None, worker: int = 0) -> Answer:
        """``decision`` as a run's ``command.resume`` (``token`` has nowhere to go: the API takes none),
        then what the graph's thread holds once that run ended (its ``join``)."""
        return self.told(self.command(approve_or_reject(decision), thread=pause.thread), pause.thread)

    def told(self, response: httpx.Response, thread: str) -> Answer:
        """A run's answer as an ``Answer``: refused (its error), or taken with what its values say of the charge."""
        body = response.json()
        if response.status_code != 200:
            return Answer(taken=False, code=body.get("error", ""), body=body, extra={"status": response.status_code})
        joined = self.http.get(f"/threads/{thread}/runs/{body['run_id']}/join")
        assert joined.status_code == 200, joined.text
        values = joined.json()
        outcome = "waiting" if values.get("__interrupt__") else graph_outcome(values.get("messages") or [])
        return Answer(taken=True, outcome=outcome, body=values, extra={"status": 200, "run": body})


class FreshIdsModel(ScriptedModel):
    """``ScriptedModel`` whose tool calls each get an id of their own, as a hosted model's do (the scripted
    model numbers them ``call-0``, ``call-1``, ... in every turn)."""

    def _generate(self, messages: list[Any], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Any:
        result = super()._generate(messages, stop, run_manager, **kwargs)
        for call in result.generations[0].message.tool_calls:
            call["id"] = f"call-{uuid.uuid4().hex[:12]}"
        return result


def shop_agent(model: Any, policies: list[dict[str, Any]] | None = None) -> Any:
    """``tests/langgraph/shop_agent.py``'s agent over ``model``; with ``policies``, an agent of its own
    (``ShopAgent-<digest of the policies>``) whose agent file gives them (docs/policies.md)."""
    from langchain.agents import create_agent
    from langgraph.checkpoint.memory import InMemorySaver

    from stalwart_site.langgraph import StalwartMiddleware
    from tests.langgraph.shop_agent import TOOLS

    if policies is None:
        middleware = StalwartMiddleware(TOOLS, agent="ShopAgent")
    else:
        name = "ShopAgent-" + hashlib.sha256(json.dumps(policies, sort_keys=True).encode()).hexdigest()[:8]
        middleware = StalwartMiddleware(agent_file_with(TOOLS, name, policies), agent=name)
    return create_agent(model, tools=TOOLS, name="shop-agent", checkpointer=InMemorySaver(), middleware=[middleware])


def agent_file_with(tools: list[Any], agent: str, policies: list[dict[str, Any]]) -> str:
    """The agent file ``StalwartMiddleware`` writes for ``tools``, with ``policies`` given to its agent (beside it)."""
    from stalwart_site.agent_middleware import agent_file_of

    plain = agent_file_of(tools, agent)
    spec = json.loads(plain.read_text(encoding="utf-8"))
    spec["agents"][0]["policies"] = policies
    made = plain.with_name(f"{plain.stem}-policies.json")
    made.write_text(json.dumps(spec), encoding="utf-8")
    return str(made)


class LangChainDoor(InProcess):
    """``StalwartMiddleware`` in ``create_agent`` (``tests/langgraph/shop_agent.py``'s tools, a scripted
    model whose tool calls have ids of their own): a write interrupts the graph; the graph's caller answers
    with LangGraph's ``Command(resume=...)``."""

    id = "langchain"
    via = "langgraph"
    shows_token = False  # the interrupt carries it, but the caller's resume value does not
    decisions = {"approve": "approve", "skip": "reject"}
    recorded = {"reject": "skip"}  # the middleware's pause is a confirm: a rejection leaves the call out, a skip

    def __init__(self, model: Any = None, policies: list[dict[str, Any]] | None = None) -> None:
        super().__init__()
        self.agent = shop_agent(model or FreshIdsModel(), policies)
        self.thread = unique("lc")
        self.config = {"configurable": {"thread_id": self.thread}}
        self.interrupt_id = ""

    def propose(self) -> Pause:
        out = self.agent.invoke(say(("charge_card", CHARGE)), self.config)
        (pending,) = out["__interrupt__"]
        self.interrupt_id = pending.id
        stalwart = pending.value["stalwart"]
        return Pause(id=stalwart["pause_id"], token=stalwart["token"], thread=self.thread, shown=pending.value)

    def answer(self, pause: Pause, decision: str, *, token: str | None = None, worker: int = 0) -> Answer:
        from langgraph.types import Command

        out = self.agent.invoke(Command(resume={self.interrupt_id: {"decisions": [{"type": decision}]}}), self.config)
        if out.get("__interrupt__"):
            return Answer(taken=False, code="interrupt", body=out)
        return Answer(taken=True, outcome=graph_outcome(list(out.get("messages") or [])), body=out)
