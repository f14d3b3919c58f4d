"""The LangGraph doors: the bridge (``stalwart_site.langgraph.make_app`` over
a real graph with ``HumanInTheLoopMiddleware``, served by daphne; its own
routes ``/threads/{id}/runs`` and ``/resume``), and the LangChain middleware
(``StalwartMiddleware`` in a ``create_agent`` graph with a fake chat model,
in this process). Both say ``reject`` where the other doors say ``skip``."""

from __future__ import annotations

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
        return self.http.post(f"/threads/{thread or self.thread}/runs", json=body, headers=headers or {})

    def propose(self) -> Pause:
        started = self.runs({"input": say(("charge_card", CHARGE))})
        assert started.status_code == 200, started.text
        waiting = started.json()["waiting"]
        assert [p["tool"] for p in waiting] == ["charge_card"], started.text
        return Pause(id=waiting[0]["id"], token=waiting[0]["token"], thread=self.thread, shown=waiting[0])

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

    def close(self) -> None:
        self.http.close()


class FreshIdsModel(ScriptedModel):
    """``ScriptedModel`` whose tool calls each get an id of their own, as a hosted model's do (the scripted
    model numbers them ``call-0``, ``call-1``, ... in every turn)."""

    def _generate(self, messages: list[Any], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Any:
        result = super()._generate(messages, stop, run_manager, **kwargs)
        for call in result.generations[0].message.tool_calls:
            call["id"] = f"call-{uuid.uuid4().hex[:12]}"
        return result


def shop_agent(model: Any) -> Any:
    """``tests/langgraph/shop_agent.py``'s agent over ``model``."""
    from langchain.agents import create_agent
    from langgraph.checkpoint.memory import InMemorySaver

    from stalwart_site.langgraph import StalwartMiddleware
    from tests.langgraph.shop_agent import TOOLS

    return create_agent(model, tools=TOOLS, name="shop-agent", checkpointer=InMemorySaver(),
                        middleware=[StalwartMiddleware(TOOLS, agent="ShopAgent")])


class LangChainDoor(InProcess):
    """``StalwartMiddleware`` in ``create_agent`` (``tests/langgraph/shop_agent.py``'s tools, a scripted
    model whose tool calls have ids of their own): a write interrupts the graph; the graph's caller answers
    with LangGraph's ``Command(resume=...)``."""

    id = "langchain"
    via = "langgraph"
    shows_token = False  # the interrupt carries it, but the caller's resume value does not
    decisions = {"approve": "approve", "skip": "reject"}
    recorded = {"reject": "skip"}  # the middleware's pause is a confirm: a rejection leaves the call out, a skip

    def __init__(self, model: Any = None) -> None:
        super().__init__()
        self.agent = shop_agent(model or FreshIdsModel())
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
