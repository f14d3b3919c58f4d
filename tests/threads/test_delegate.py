"""The delegate path: an unread turn handed to a model only with a person's consent.

Against a real local HTTP server speaking the chat-completions format.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from catalogue.llm.messages import MESSAGES
from examples.shop import tools as shop
from tests.conftest import SHOP
from tests.fakes.chat_server import FakeChatServer, clarify_reply, text_reply, tool_calls_reply
from threads.models import Interrupt, Message, Run, Step

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


def _handed_to_a_dead_worker(desk, thread: str, monkeypatch) -> Run:  # type: ignore[no-untyped-def]
    """What a worker SIGKILLed after the claim, while it asked the model, leaves:
    the run running under its lease, which then lapses."""
    from threads.engine import services
    from threads.engine.lease import worker_id

    desk.say(thread, "put forty on my last purchase please")
    with monkeypatch.context() as m:
        m.setattr(services, "delegate_run", lambda progress: progress)  # the claim commits, then the worker dies
        desk.confirm(thread, "approve")
    run = Run.objects.get(thread_id=desk.key(thread))
    assert (run.status, run.replay_owner) == ("running", worker_id())  # the claim took the run's lease
    Run.objects.filter(pk=run.pk).update(replay_owner="dead-host:1:x",
                                         replay_until=timezone.now() - timedelta(seconds=1))
    return run


def test_a_hand_off_whose_worker_died_is_asked_again_by_the_sweep_once(shop_dir, tmp_path, monkeypatch):
    from threads.engine import sweep_once

    monkeypatch.setenv("TEST_MODEL_KEY", "sk-test")
    with FakeChatServer([text_reply("Here is a song about your order.")]) as server:
        desk = model_desk(tmp_path, server.url)
        run = _handed_to_a_dead_worker(desk, "d-dead", monkeypatch)
        assert server.requests == []
        assert sweep_once() == 1
        assert len(server.requests) == 1 and sweep_once() == 0  # taken once
    run.refresh_from_db()
    assert (run.status, run.replay_owner) == ("done", "")
    said = Message.objects.filter(run=run, role="assistant").order_by("created_at").values_list("text", flat=True)
    assert list(said)[-1] == "Here is a song about your order."  # after the offer to hand it over


def test_a_live_hand_off_is_left_alone_and_its_lease_renewed(shop_dir, tmp_path, monkeypatch):
    from threads.engine import sweep_once
    from threads.engine.lease import heartbeat, run_lease_forget, worker_id

    monkeypatch.setenv("TEST_MODEL_KEY", "sk-test")
    with FakeChatServer([]) as server:
        desk = model_desk(tmp_path, server.url)
        run = _handed_to_a_dead_worker(desk, "d-live", monkeypatch)
        Run.objects.filter(pk=run.pk).update(replay_owner=worker_id())  # this worker, still asking
        assert heartbeat() == 1  # renewed while it asks
        run.refresh_from_db()
        assert run.replay_until > timezone.now()
        assert sweep_once() == 0 and server.requests == []
        run_lease_forget(run)


def test_a_hand_off_taken_over_while_the_model_answered_records_nothing(shop_dir, tmp_path, monkeypatch):
    from threads.engine import delegate as handoff

    asked = handoff.delegate

    def slow_worker(*args, **kwargs):  # type: ignore[no-untyped-def]
        answer = asked(*args, **kwargs)
        Run.objects.update(replay_owner="a-sweeper-elsewhere")  # our heartbeat lapsed meanwhile
        return answer

    monkeypatch.setenv("TEST_MODEL_KEY", "sk-test")
    monkeypatch.setattr(handoff, "delegate", slow_worker)
    with FakeChatServer([tool_calls_reply(("charge_card", {"order_id": "4411", "amount": 40}))]) as server:
        desk = model_desk(tmp_path, server.url)
        desk.say("d-over", "put forty on my last purchase please")
        reply = desk.confirm("d-over", "approve")
    # The sweep that holds the run now asks the model and replies; this worker records none of it.
    assert reply.text == "" and reply.waiting == []
    assert not Step.objects.exists() and not Interrupt.objects.filter(status="open").exists()
    run = Run.objects.get()
    assert (run.status, run.replay_owner) == ("running", "a-sweeper-elsewhere")


def test_a_lapsed_replay_lease_of_a_teams_steps_is_not_taken_for_a_hand_off(shop_dir, tmp_path, monkeypatch):
    from threads.engine import sweep_once

    monkeypatch.setenv("TEST_MODEL_KEY", "sk-test")
    with FakeChatServer([]) as server:
        desk = model_desk(tmp_path, server.url)
        run = _handed_to_a_dead_worker(desk, "d-team", monkeypatch)
        Run.objects.filter(pk=run.pk).update(plan={**run.plan, "steps": "examples.team:steps"})
        # One lease on a run: a team's lapsed replay is taken over as a replay, never as a hand-off.
        assert sweep_once() == 1 and server.requests == []
    run.refresh_from_db()
    assert (run.status, run.replay_owner) == ("done", "")
    said = Message.objects.filter(run=run, role="assistant").order_by("created_at").values_list("text", flat=True)
    assert "examples.team" in list(said)[-1]  # the replay found no such function, said so, and ended the run
