"""Stalwart with LangGraph, runnable with no network and no model key:

    pip install -e '.[langgraph]'
    python -m examples.langgraph.mail          # mirrors, approves and resumes, in this process
    # or serve the bridge (the console at /admin/):
    #   daphne -p 8000 examples.langgraph.mail:application

A ``create_agent`` agent with ``HumanInTheLoopMiddleware`` over a fake chat
model that asks to send one email; the bridge mirrors its interrupt as a
Stalwart pause, which is approved through Stalwart's claim and token, and the
graph resumes once.
"""

from __future__ import annotations

import json
from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver


class FakeModel(GenericFakeChatModel):
    """A fake chat model that calls tools (LangChain's own fake, with tools bound as they are)."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> FakeModel:
        return self


@tool
def send_email(to: str, body: str) -> str:
    """Send an email."""
    return f"sent to {to}"


def build() -> Any:
    model = FakeModel(messages=iter([
        AIMessage(content="", tool_calls=[{"name": "send_email", "id": "c-1",
                                           "args": {"to": "ana@example.com", "body": "Your order shipped."}}]),
        AIMessage(content="The email is sent."),
    ]))
    return create_agent(model, tools=[send_email], name="mail", checkpointer=InMemorySaver(),
                        middleware=[HumanInTheLoopMiddleware(interrupt_on={"send_email": True})])


def main() -> None:
    from stalwart_site.langgraph import make_app

    app = make_app(build(), worker=False)
    bridge = app.bridge
    start = bridge.run("t-1", {"input": {"messages": [{"role": "user", "content": "Tell Ana it shipped."}]}})
    pause = start["waiting"][0]
    print("waiting:", pause["tool"], {a["name"]: a["value"] for a in pause["arguments"]}, pause["choices"])
    done = bridge.resume("t-1", {"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]},
                         by="example", via="langgraph")
    print("resumed:", done["resumed"], "->", done["output"]["messages"][-1]["content"])
    print(json.dumps({"waiting": done["waiting"]}))


def __getattr__(name: str) -> Any:
    if name == "application":  # `daphne examples.langgraph.mail:application`
        from stalwart_site.langgraph import make_app

        return make_app(build())
    raise AttributeError(name)


if __name__ == "__main__":
    main()
