"""Stalwart with LangGraph, runnable with no network and no model key:

    .venv/bin/pip install -e '.[langgraph]'
    .venv/bin/python -m examples.langgraph.mail    # mirrors, approves and resumes, in this process
    # or serve the bridge (the console at /admin/):
    #   .venv/bin/daphne -p 8000 examples.langgraph.mail:application

A ``create_agent`` agent with ``HumanInTheLoopMiddleware`` over a fake chat
model that asks to send one email per conversation (it never runs out: any
number of threads run at once); the bridge mirrors its interrupt as a
Stalwart pause, which is approved through Stalwart's claim and token, and the
graph resumes once. ``main`` calls the routes (``POST /threads/{id}/runs``,
``GET /threads/{id}/interrupts``, ``POST /threads/{id}/resume``) on the
application ``make_app`` returns, in this process, as a client over HTTP would.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver


class FakeModel(BaseChatModel):
    """A fake chat model: asked by a person, it calls ``send_email``; told what a tool did, it says it is done.
    The same answer for the same conversation, every time (it never runs out)."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> FakeModel:
        return self

    @property
    def _llm_type(self) -> str:
        return "fake-mail"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        if isinstance(messages[-1], ToolMessage):
            message = AIMessage(content="The email is sent.")
        else:
            message = AIMessage(content="", tool_calls=[{"name": "send_email", "id": "c-1", "args": {
                "to": "ana@example.com", "body": "Your order shipped."}}])
        return ChatResult(generations=[ChatGeneration(message=message)])


@tool
def send_email(to: str, body: str) -> str:
    """Send an email."""
    return f"sent to {to}"


def build() -> Any:
    return create_agent(FakeModel(), tools=[send_email], name="mail", checkpointer=InMemorySaver(),
                        middleware=[HumanInTheLoopMiddleware(interrupt_on={"send_email": True})])


async def approve_once(app: Any) -> None:
    """Run the graph, print what waits, approve it, print what the graph did."""
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
        await client.post("/threads/t-1/runs", json={
            "if_not_exists": "create", "input": {"messages": [{"role": "user", "content": "Tell Ana it shipped."}]}})
        pause = (await client.get("/threads/t-1/interrupts")).json()["waiting"][0]
        print("waiting:", pause["tool"], {a["name"]: a["value"] for a in pause["arguments"]}, pause["choices"])
        done = (await client.post("/threads/t-1/resume", json={
            "interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]})).json()
    print("resumed:", done["resumed"], "->", done["output"]["messages"][-1]["content"])
    print(json.dumps({"waiting": done["waiting"]}))


def main() -> None:
    from stalwart_site.langgraph import make_app

    asyncio.run(approve_once(make_app(build(), worker=False)))


def __getattr__(name: str) -> Any:
    if name == "application":  # `daphne examples.langgraph.mail:application`
        from stalwart_site.langgraph import make_app

        return make_app(build())
    raise AttributeError(name)


if __name__ == "__main__":
    main()
