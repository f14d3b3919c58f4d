"""The delegate path: an unread turn handed to a model only with a person's consent.

Against a real local HTTP server speaking the chat-completions format.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from catalogue.llm import MESSAGES
from examples.shop import tools as shop
from tests.conftest import SHOP
from tests.fakes.chat_server import FakeChatServer, clarify_reply, text_reply, tool_calls_reply

pytestmark = pytest.mark.django_db(transaction=True)


def model_desk(tmp_path: Path, url: str, timeout: float = 5.0):  # type: ignore[no-untyped-def]
    from stalwart_site.desk import Desk

    text = SHOP.read_text().replace(
        "    vocabulary: vocabulary.yaml\n",
        f"    vocabulary: vocabulary.yaml\n    model: {{base_url: '{url}', model: fake, key_env: TEST_MODEL_KEY,"
        f" timeout: {timeout}}}\n",
    )
    (tmp_path / "agent.yaml").write_text(text)
    (tmp_path / "vocabulary.yaml").write_text((SHOP.parent / "vocabulary.yaml").read_text())
    return Desk(tmp_path / "agent.yaml")


def test_approve_hands_the_turn_to_the_model_and_its_write_pauses_with_origin_model(shop_dir, tmp_path,
                                                                                       monkeypatch):
    monkeypatch.setenv("TEST_MODEL_KEY", "sk-test")
    with FakeChatServer([tool_calls_reply(("charge_card", {"order_id": "4411", "amount": 40}))]) as server:
        desk = model_desk(tmp_path, server.url)
        reply = desk.say("d-1", "put forty on my last purchase please")
        assert [p["kind"] for p in reply.waiting] == ["delegate"]
        assert server.requests == []  # nothing goes to the model before a person agrees
        reply = desk.confirm("d-1", "approve")
        sent = server.requests[0].json
        assert sent["model"] == "fake"
        assert sent["messages"][-1]["content"] == "put forty on my last purchase please"
        assert server.requests[0].headers["authorization"] == "Bearer sk-test"
    pause = reply.waiting[0]
    assert (pause["kind"], pause["tool"]) == ("confirm", "charge_card")
    assert {a["origin"] for a in pause["arguments"]} == {"model"}
    assert "argument_origin: amount" in pause["reasons"] and "argument_origin: order_id" in pause["reasons"]
    reply = desk.confirm("d-1", "approve")
    assert "ch-4411" in reply.text and len(shop.charges("4411")) == 1


def test_a_withdrawn_tool_is_never_offered_to_the_model(shop_dir, tmp_path, monkeypatch):
    from catalogue.models import Withdrawal

    monkeypatch.setenv("TEST_MODEL_KEY", "sk-test")
    Withdrawal.objects.create(agent="Shop", tool="archive_order")
    with FakeChatServer([text_reply("I can't do that.")]) as server:
        desk = model_desk(tmp_path, server.url)
        desk.say("d-2", "please tidy up my old stuff")
        reply = desk.confirm("d-2", "approve")
        offered = [t["function"]["name"] for t in server.requests[0].json["tools"]]
    assert "archive_order" not in offered and "get_order" in offered
    assert reply.text == "I can't do that."


def test_a_model_question_becomes_an_ask_and_the_answer_goes_back(shop_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("TEST_MODEL_KEY", "sk-test")
    replies = [clarify_reply({"kind": "choice", "prompt": "Which order?", "choices": ["4411", "5001"]}),
               tool_calls_reply(("get_order", {"order_id": "5001"}))]
    with FakeChatServer(replies) as server:
        desk = model_desk(tmp_path, server.url)
        desk.say("d-3", "the usual one, you know")
        reply = desk.confirm("d-3", "approve")
        assert reply.waiting[0]["kind"] == "ask" and reply.waiting[0]["ask"]["choices"] == ["4411", "5001"]
        reply = desk.answer("d-3", index=1)
        second = server.requests[1].json["messages"]
    assert second[-1] == {"role": "user", "content": "5001"}
    assert "mc-4420" in reply.text and reply.waiting == []


def test_decline_replies_that_it_could_not_help(shop_dir, tmp_path):
    with FakeChatServer([]) as server:
        desk = model_desk(tmp_path, server.url)
        desk.say("d-4", "sing me a song")
        desk.confirm("d-4", "decline")
        assert server.requests == []


def test_no_key_says_the_bot_needs_its_ai_key(shop_dir, tmp_path, monkeypatch):
    monkeypatch.delenv("TEST_MODEL_KEY", raising=False)
    with FakeChatServer([]) as server:
        desk = model_desk(tmp_path, server.url)
        desk.say("d-5", "sing me a song")
        reply = desk.confirm("d-5", "approve")
    assert reply.text == MESSAGES["en"]["no_key"].format(variable="TEST_MODEL_KEY")


def test_no_model_configured_says_so(desk):
    desk.say("d-6", "sing me a song")
    assert desk.confirm("d-6", "approve").text == MESSAGES["en"]["no_model"]


@pytest.mark.parametrize("mode", ["garbage", "sleep"])
def test_a_model_that_answers_garbage_or_times_out_replies_clearly_and_loses_nothing(shop_dir, tmp_path,
                                                                                     monkeypatch, mode):
    monkeypatch.setenv("TEST_MODEL_KEY", "sk-test")
    with FakeChatServer([], mode=mode, sleep_seconds=3) as server:
        desk = model_desk(tmp_path, server.url, timeout=0.5)
        desk.say("d-7", "sing me a song")
        reply = desk.confirm("d-7", "approve")
    key = "garbage_body" if mode == "garbage" else "model_timeout"
    assert reply.text == MESSAGES["en"][key]
    assert reply.waiting == []
    assert "visa-0019" in desk.say("d-7", "show order 4411").text  # the thread goes on
