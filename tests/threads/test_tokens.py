"""Pure tier: pause ids and tokens (docs/http-api.md, "The pause")."""

from __future__ import annotations

from threads.tokens import canonical, pause_id, pause_token, request_hash, token_matches

ARGS = [{"name": "amount", "value": 40, "origin": "typed"}, {"name": "order_id", "value": "4411", "origin": "typed"}]


def make_id(**overrides: object) -> str:
    fields: dict[str, object] = {"run_id": "r-1", "step": 1, "kind": "confirm", "generation": 0, "arguments": ARGS}
    fields.update(overrides)
    return pause_id(**fields)  # type: ignore[arg-type]


def test_the_same_pause_has_the_same_id_everywhere():
    assert make_id() == make_id()


def test_changed_arguments_or_a_new_decision_point_give_a_new_id():
    other_args = [dict(ARGS[0], value=41), ARGS[1]]
    ids = {make_id(), make_id(arguments=other_args), make_id(generation=1), make_id(step=2), make_id(run_id="r-2")}
    assert len(ids) == 5


def test_a_token_covers_tool_arguments_and_point():
    token = pause_token("k", pause="p-1", tool="charge_card", arguments=ARGS, run_id="r-1", step=1)
    assert token_matches(token, token)
    for changed in (
        pause_token("k2", pause="p-1", tool="charge_card", arguments=ARGS, run_id="r-1", step=1),
        pause_token("k", pause="p-1", tool="refund_card", arguments=ARGS, run_id="r-1", step=1),
        pause_token("k", pause="p-1", tool="charge_card", arguments=ARGS[:1], run_id="r-1", step=1),
        pause_token("k", pause="p-1", tool="charge_card", arguments=ARGS, run_id="r-1", step=2),
    ):
        assert not token_matches(token, changed)


def test_token_matches_refuses_what_is_not_a_string():
    assert not token_matches("abc", None) and not token_matches("abc", 123)


def test_canonical_json_ignores_key_order():
    assert canonical({"b": 1, "a": [1, "é"]}) == '{"a":[1,"é"],"b":1}'


def test_request_hash_leaves_secrets_out():
    assert request_hash("t", {"a": 1, "pin": "1234"}, frozenset({"pin"})) == request_hash("t", {"a": 1})
