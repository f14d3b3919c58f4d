"""A pause as AG-UI shows it (``doors.agui.events``): pure, no server."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import jsonschema
import pytest
from ag_ui.core import Event
from pydantic import TypeAdapter

from doors.agui import events as ev
from threads.engine import PauseView, StepView


def make_pause(**over):  # type: ignore[no-untyped-def]
    pause = {"id": "p-1", "kind": "confirm", "tool": "charge_card", "question": "Run charge_card?",
             "arguments": [{"name": "amount", "value": 40, "origin": "typed"},
                           {"name": "order_id", "value": "4411", "origin": "typed"}],
             "reasons": ["write"], "irreversible": False, "choices": ["approve", "skip", "cancel_all"],
             "token": "t" * 64, "step": 1, "run": "r-1"}
    extra = {k: over.pop(k) for k in ("ask",) if k in over}
    pause.update(over)
    return PauseView(**pause, extra=extra)


SCHEMA = {"properties": {"amount": {"type": "number"}, "order_id": {"type": "string"}}}


@pytest.mark.parametrize(("kind", "reason"), [("confirm", "tool_call"), ("ask", "input_required"),
                                              ("delegate", "confirmation"),
                                              ("outcome_unknown", "stalwart:outcome_unknown"),
                                              ("saga_stuck", "stalwart:saga_stuck")])
def test_each_kind_has_its_reason(kind, reason):
    assert ev.interrupt_of(make_pause(kind=kind)).reason == reason


def test_an_interrupt_carries_the_call_its_deadline_and_token_and_round_trips():
    interrupt = ev.interrupt_of(make_pause(expires_at=datetime(2026, 12, 1, 12, 0, tzinfo=UTC)),
                                tool_schema=SCHEMA)
    assert interrupt.tool_call_id == "r-1-1" and interrupt.expires_at == "2026-12-01T12:00:00Z"
    assert interrupt.metadata["stalwart"]["token"] == "t" * 64
    finished = ev.run_finished("t", "run", [interrupt])
    back = TypeAdapter(Event).validate_json(ev.encode([finished])[len("data: "):])
    assert back.outcome.interrupts[0].response_schema["properties"]["decision"]["enum"] == [
        "approve", "skip", "cancel_all"]


@pytest.mark.parametrize(("payload", "fits"), [
    ({"decision": "approve"}, True), ({"approved": False}, True), ({"editedArgs": {"amount": 30}}, True),
    ({"decision": "happened"}, False), ({}, False), ({"editedArgs": {}}, False),
    ({"editedArgs": {"amount": "thirty"}}, False), ({"editedArgs": {"card": "x"}}, False), ({"why": 1}, False),
])
def test_a_confirms_schema_takes_its_choices_approved_and_edits_only(payload, fits):
    schema = ev.response_schema(make_pause(), SCHEMA)
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(payload))
    assert (errors == []) is fits


def test_a_choice_question_takes_an_index_in_range():
    pause = make_pause(kind="ask", choices=["answer"], ask={"kind": "choice", "prompt": "Which?",
                                                             "choices": ["a", "b"]})
    schema = ev.response_schema(pause)
    validator = jsonschema.Draft202012Validator(schema)
    assert validator.is_valid({"answer": {"kind": "choice", "index": 1}})
    assert not validator.is_valid({"answer": {"kind": "choice", "index": 2}})
    assert not validator.is_valid({"decision": "answer"})  # the answer itself is required


def test_a_refusal_result_says_its_rule_and_sentence():
    step = StepView(step=2, tool="refund_card", kind="write", status="refused", arguments=[], reasons=[],
                    rule="privilege:refunds", sentence="Not yours.")
    result = ev.tool_result(step, "r-1")
    assert result.tool_call_id == "r-1-2" and json.loads(result.content) == {
        "status": "refused", "rule": "privilege:refunds", "sentence": "Not yours."}


def test_edited_args_are_the_whole_call_the_tools_required_arguments_required():
    tool = {"properties": {"amount": {"type": "number"}, "order_id": {"type": "string"}, "note": {"type": "string"}},
            "required": ["order_id", "amount"]}
    edited = ev.response_schema(make_pause(), tool)["properties"]["editedArgs"]
    assert edited["required"] == ["order_id", "amount"] and set(edited["properties"]) == {"amount", "order_id", "note"}
    validator = jsonschema.Draft202012Validator(ev.response_schema(make_pause(), tool))
    assert not validator.is_valid({"editedArgs": {"amount": 10}})  # a merge would have kept order_id: not so
    assert validator.is_valid({"editedArgs": {"amount": 10, "order_id": "4411"}})
    assert validator.is_valid({"editedArgs": {"amount": 10, "order_id": "4411", "note": "x"}})  # one not shown
    unknown = ev.response_schema(make_pause(), None)["properties"]["editedArgs"]  # the tool left the file
    assert set(unknown["properties"]) == {"amount", "order_id"} and "required" not in unknown
