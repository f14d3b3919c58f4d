"""Graphs for the bridge's tests: real LangGraph and LangChain, a fake
tool-calling chat model, no network.

``ScriptedModel`` reads its tool calls from the person's last message (a
JSON list of ``{"name", "args"}``) and, once tool results came back, says
"done": the same answer in every process, so two servers over one
checkpointer see the same graph.
"""

from __future__ import annotations

import json
import operator
from typing import Annotated, Any

from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Send, interrupt
from typing_extensions import TypedDict

from examples.shop import tools as shop

SENT: list[dict[str, Any]] = []  # what send_email sent, in this process


class ScriptedModel(BaseChatModel):
    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedModel:
        return self

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        last = messages[-1]
        if isinstance(last, ToolMessage) or not isinstance(last, HumanMessage):
            message = AIMessage(content="done: " + "; ".join(
                str(m.content) for m in messages if isinstance(m, ToolMessage)))
        else:
            calls = json.loads(str(last.content))
            message = AIMessage(content="", tool_calls=[
                {"name": c["name"], "args": c["args"], "id": f"call-{i}"} for i, c in enumerate(calls)])
        return ChatResult(generations=[ChatGeneration(message=message)])


@tool
def send_email(to: str, body: str) -> str:
    """Send an email."""
    SENT.append({"to": to, "body": body})
    return f"sent to {to}"


@tool
def delete_file(path: str) -> str:
    """Delete a file."""
    return f"deleted {path}"


@tool
def charge_card(order_id: str, amount: float) -> str:
    """Charge an order's card."""
    return json.dumps(shop.charge_card(order_id=order_id, amount=amount))


def mail_agent(checkpointer: Any = None, **hitl: Any) -> Any:
    return create_agent(ScriptedModel(), tools=[send_email, delete_file, charge_card], name="mail",
                        middleware=[HumanInTheLoopMiddleware(interrupt_on={
                            "send_email": True, "charge_card": True,
                            "delete_file": {"allowed_decisions": ["approve", "reject"]}}, **hitl)],
                        checkpointer=checkpointer or InMemorySaver())


def say(*calls: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": json.dumps([{"name": n, "args": a} for n, a in calls])}]}


class FanState(TypedDict, total=False):
    items: list[str]
    answers: Annotated[list[str], operator.add]


def _ask(state: dict[str, Any]) -> dict[str, Any]:
    return {"answers": [f"{state['item']}={interrupt({'question': 'Colour of ' + state['item'] + '?'})}"]}


def fan_graph(checkpointer: Any = None) -> Any:
    """Two parallel interrupts (a ``Send`` fan-out): one question per item."""
    g = StateGraph(FanState)
    g.add_node("ask", _ask)
    g.add_conditional_edges(START, lambda s: [Send("ask", {"item": i}) for i in s["items"]])
    g.add_edge("ask", END)
    return g.compile(checkpointer=checkpointer or InMemorySaver(), name="fan")


class SeqState(TypedDict, total=False):
    first: str
    second: str


def _twice(state: SeqState) -> SeqState:
    first = interrupt({"question": "First?"})
    second = interrupt({"question": "Second?"})
    return {"first": first, "second": second}


def twice_graph(checkpointer: Any = None) -> Any:
    """Two sequential interrupts in one node (they share an id)."""
    g = StateGraph(SeqState)
    g.add_node("twice", _twice)
    g.add_edge(START, "twice")
    g.add_edge("twice", END)
    return g.compile(checkpointer=checkpointer or InMemorySaver(), name="twice")


def pg_mail_agent() -> Any:
    """``mail_agent`` over LangGraph's PostgresSaver in ``DATABASE_URL``'s database (two processes share it)."""
    import os

    from langgraph.checkpoint.postgres import PostgresSaver
    from psycopg.rows import dict_row
    from psycopg_pool import ConnectionPool

    url = os.environ["DATABASE_URL"].replace("postgres://", "postgresql://", 1)
    pool = ConnectionPool(url, min_size=1, max_size=4, open=True,
                          kwargs={"autocommit": True, "row_factory": dict_row, "prepare_threshold": 0})
    saver = PostgresSaver(pool)  # type: ignore[arg-type]
    saver.setup()
    return mail_agent(saver)


FLAKY = {"failures_left": 0, "sent": 0}


def _flaky(state: SeqState) -> SeqState:
    answer = interrupt({"question": "Go?"})
    if FLAKY["failures_left"] > 0:
        FLAKY["failures_left"] -= 1
        raise ConnectionError("the mail server hung up")
    FLAKY["sent"] += 1
    return {"first": answer}


def flaky_graph(checkpointer: Any = None) -> Any:
    """A node that fails after its interrupt while ``FLAKY["failures_left"]`` says so."""
    g = StateGraph(SeqState)
    g.add_node("flaky", _flaky)
    g.add_edge(START, "flaky")
    g.add_edge("flaky", END)
    return g.compile(checkpointer=checkpointer or InMemorySaver(), name="flaky")
