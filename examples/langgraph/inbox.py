"""An Agent Inbox-style graph served by Stalwart, runnable with no network and no model key:

    .venv/bin/pip install -e '.[langgraph]'
    .venv/bin/daphne -b 127.0.0.1 -p 8000 examples.langgraph.inbox:application

then point ``langgraph-sdk`` (or Agent Inbox's "Add Inbox": deployment URL
``http://127.0.0.1:8000``, assistant ``inbox``) at it (docs/langgraph.md, "The Agent Server API").

Each thread is one customer's email: the graph drafts a reply (a deterministic stand-in for a
model: it never runs out, so any number of conversations run at once) and asks, with Agent
Inbox's ``HumanInterrupt``, whether to send it (``allow_accept``, ``allow_edit``,
``allow_respond``, ``allow_ignore``). Stalwart mirrors the question as a pause in its console;
whoever answers (the SDK's ``command.resume``, Agent Inbox, the console), the graph gets a
``HumanResponse`` and sends the reply once, or sends the edited one, or records the note, or
leaves it.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt
from typing_extensions import TypedDict

SENT: list[dict[str, Any]] = []  # the replies sent, in this process (a stand-in for a mail server)


class Email(TypedDict):
    from_email: str
    subject: str
    body: str


class State(TypedDict, total=False):
    email: Email
    draft: dict[str, Any]
    messages: Annotated[list[dict[str, Any]], operator.add]


def draft(state: State) -> dict[str, Any]:
    """The reply a model would write: the same for the same email, every time."""
    email = state["email"]
    reply = {"to": email["from_email"], "subject": "Re: " + email["subject"],
             "body": f"Thank you for writing about \u201c{email['subject']}\u201d: we are on it."}
    return {"draft": reply, "messages": [{"role": "assistant", "content": "A reply is drafted."}]}


def review(state: State) -> dict[str, Any]:
    """Ask a person, as Agent Inbox expects; act on the HumanResponse that comes back."""
    reply = state["draft"]
    response = interrupt([{
        "action_request": {"action": "send_email", "args": reply},
        "config": {"allow_accept": True, "allow_edit": True, "allow_respond": True, "allow_ignore": True},
        "description": f"Send this reply to {reply['to']}?",
    }])[0]
    kind, args = response.get("type"), response.get("args")
    if kind == "accept":
        SENT.append(reply)
        return {"messages": [{"role": "assistant", "content": f"Sent the reply to {reply['to']}."}]}
    if kind == "edit":
        edited = dict(args["args"])
        SENT.append(edited)
        return {"draft": edited, "messages": [{"role": "assistant", "content": f"Sent the edited reply to "
                                                                              f"{edited.get('to')}."}]}
    if kind == "response":
        return {"messages": [{"role": "user", "content": str(args)},
                             {"role": "assistant", "content": "Noted: the reply was not sent."}]}
    return {"messages": [{"role": "assistant", "content": "Left without a reply."}]}


def build(checkpointer: Any = None) -> Any:
    graph = StateGraph(State)
    graph.add_node("draft", draft)
    graph.add_node("review", review)
    graph.add_edge(START, "draft")
    graph.add_edge("draft", "review")
    graph.add_edge("review", END)
    return graph.compile(checkpointer=checkpointer or InMemorySaver(), name="inbox")


def __getattr__(name: str) -> Any:
    if name == "application":  # `daphne examples.langgraph.inbox:application`
        from stalwart_site.langgraph import make_app

        return make_app(build())
    raise AttributeError(name)
