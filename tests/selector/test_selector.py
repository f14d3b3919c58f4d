"""The selector's contract, turn by turn (docs/getting-started.md, "Plan without running anything";
docs/http-api.md, "POST /plan")."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest

from catalogue.plan import Argument, Ask, Call, Plan, Vocabulary
from catalogue.selector import Selector
from catalogue.selector.lexicon_pt import pt_forms
from catalogue.selector.numbers import parse_number
from catalogue.tools import Tool
from tests.selector.catalogues import catalogue_vocabulary, make_selector, make_shop_tools


def plan(text: str, language: str = "en", **kw: Any) -> Plan:
    return make_selector("shop").plan(text, language=language, **kw)


def make_tool(name: str, kind: str = "read", **props: Any) -> Tool:
    required = [k for k, v in props.items() if not v.pop("optional", False)]
    return Tool(name=name, kind=kind,  # type: ignore[arg-type]
                input_schema={"type": "object", "properties": props, "required": required})


@pytest.mark.parametrize(("language", "text", "tool", "arguments"), [
    ("en", "show order 4411", "get_order", {"order_id": "4411"}),
    ("en", "charge 40 to order 4411", "charge_card", {"amount": 40, "order_id": "4411"}),
    ("en", "refund 40 on order 4411", "refund_card", {"amount": 40, "order_id": "4411"}),
    ("en", "search orders for customer c-208", "search_orders", {"customer": "c-208"}),
    ("en", "archive order 4412", "archive_order", {"order_id": "4412"}),
    ("pt-BR", "mostre o pedido 4411", "get_order", {"order_id": "4411"}),
    ("pt-BR", "cobre 40 no pedido 4411", "charge_card", {"amount": 40, "order_id": "4411"}),
    ("pt-BR", "estorne 40 do pedido 4411", "refund_card", {"amount": 40, "order_id": "4411"}),
    ("pt-BR", "busque os pedidos do cliente c-208", "search_orders", {"customer": "c-208"}),
])
def test_spec_turns(language: str, text: str, tool: str, arguments: dict[str, Any]) -> None:
    got = plan(text, language)
    assert got.read and not got.asks
    assert [c.tool for c in got.calls] == [tool]
    assert {a.name: a.value for a in got.calls[0].arguments} == arguments
    assert all(a.origin == "typed" for a in got.calls[0].arguments)


def test_plan_json_shape() -> None:
    assert plan("charge 40 to order 4411").to_json() == {
        "language": "en", "read": True,
        "calls": [{"step": 1, "tool": "charge_card", "arguments": [
            {"name": "amount", "value": 40, "origin": "typed"},
            {"name": "order_id", "value": "4411", "origin": "typed"}]}],
        "asks": []}


def test_values_take_the_schema_type() -> None:
    args = {a.name: a.value for a in plan("charge 40.50 to order 4411").calls[0].arguments}
    assert args == {"amount": 40.5, "order_id": "4411"}
    assert isinstance(args["amount"], float) and isinstance(args["order_id"], str)


def test_missing_argument_is_asked_in_the_plan_language() -> None:
    en = plan("show order")
    assert en.calls == (Call(1, "get_order", ()),)
    assert en.asks == (Ask(1, "order_id", {"kind": "open", "prompt": "Which order?"}),)
    pt = plan("mostre o pedido", "pt-BR")
    assert pt.asks == (Ask(1, "order_id", {"kind": "open", "prompt": "Qual pedido?"}),)
    amount = plan("cobre o pedido 4411", "pt-BR").asks[0]
    assert amount.question == {"kind": "open", "prompt": "Qual valor?"}
    assert plan("charge order 4411").asks[0].question["prompt"] == "What amount?"


def test_idempotency_argument_is_never_planned_or_asked() -> None:
    got = plan("charge 40 to order 4411")
    assert "idempotency_key" not in {a.name for a in got.calls[0].arguments}
    assert not got.asks


def test_small_enum_is_a_choice() -> None:
    selector = make_selector("library")
    got = selector.plan("send a reminder to member m-77")
    assert got.asks == (Ask(1, "channel", {"kind": "choice", "prompt": "Which channel?",
                                           "choices": ["email", "sms"]}),)
    days = selector.plan("renove o empréstimo", language="pt-BR")
    assert days.asks[0].question == {"kind": "open", "prompt": "Qual empréstimo?"}


def test_equal_fits_are_a_choice_between_tools() -> None:
    tools = [make_tool("get_order", order_id={"type": "string"}),
             make_tool("fetch_order", order_id={"type": "string"})]
    got = Selector(tools).plan("show order 4411")
    assert got.calls == (Call(1, "", ()),)
    assert got.asks == (Ask(1, None, {"kind": "choice", "prompt": "Which of these do you mean?",
                                      "choices": ["fetch_order", "get_order"]},
                            tools=("fetch_order", "get_order")),)


def test_more_than_four_equal_fits_are_unread() -> None:
    tools = [make_tool(f"{verb}_order", order_id={"type": "string"})
             for verb in ("fetch", "view", "display", "retrieve", "find")]
    assert not Selector(tools).plan("show order 4411").read


def test_exact_action_wins_over_a_synonym() -> None:
    tools = [make_tool("get_order", order_id={"type": "string"}),
             make_tool("fetch_order", order_id={"type": "string"})]
    assert Selector(tools).plan("fetch order 4411").calls[0].tool == "fetch_order"


def test_context_fills_what_the_turn_does_not_type() -> None:
    got = plan("search orders", context={"customer": "c-208"})
    assert got.calls[0].arguments == (Argument("customer", "c-208", "context"),)
    typed = plan("search orders for customer c-311", context={"customer": "c-208"})
    assert typed.calls[0].arguments == (Argument("customer", "c-311", "typed"),)


def test_result_of_an_earlier_step() -> None:
    got = plan("show order 5001 and charge its total")
    assert got.calls[1] == Call(2, "charge_card", (
        Argument("order_id", "5001", "typed"),
        Argument("amount", None, "result:1", field="total")))


def test_pronoun_points_back() -> None:
    for language, text in (("en", "show order 4411 and then charge 40 to it"),
                           ("pt-BR", "mostre o pedido 4411 e depois cobre 40 nele")):
        got = plan(text, language)
        assert [c.tool for c in got.calls] == ["get_order", "charge_card"]
        assert Argument("order_id", "4411", "typed") in got.calls[1].arguments


def test_withdrawn_tools_are_never_planned() -> None:
    assert not plan("charge 40 to order 4411", exclude={"charge_card"}).read
    assert plan("show 4411", exclude={"search_orders"}).calls[0].tool == "get_order"


@pytest.mark.parametrize(("language", "text"), [
    ("en", "mostre o pedido 4411"), ("pt-BR", "show order 4411"),
    ("es", "muestra el pedido 4411"), ("pt-PT", "mostre o pedido 4411"),
    ("fr", "show order 4411"), ("", "show order 4411"),
])
def test_language_is_never_guessed(language: str, text: str) -> None:
    got = plan(text, language)
    assert got == Plan.unread(language)


@pytest.mark.parametrize("text", [
    "", " ", "\n\t ", "\x00\x01\x02", "🙂🙂🙂", "show order 4411" * 300, "a" * 4000,
    "show order " + "4" * 4000, "show ордер 4411", "показать заказ 4411", "显示订单 4411",
    "show\u200border 4411", "\ufeff", "'''\"\"\"", "\"unclosed quote", "charge 1,2,3,4 to order 1",
    "$$$", "R$", "#", "-", "charge -40 to order 4411", "order " * 1000, "and and and then",
    "show order 4411 " + "and archive it " * 40, "\ud800", "x@y", "@@@@.com",
])
def test_bad_input_never_raises(text: str) -> None:
    for language in ("en", "pt-BR"):
        got = plan(text, language)
        assert isinstance(got, Plan)
        json.dumps(got.to_json())


def test_control_characters_and_emoji_are_skipped() -> None:
    assert plan("show\x07 order\x1b 4411 🙂").calls[0].tool == "get_order"


@pytest.mark.parametrize(("raw", "language", "value"), [
    ("40", "en", Decimal("40")), ("40.50", "en", Decimal("40.50")),
    ("40,50", "en", Decimal("40.50")), ("40,50", "pt-BR", Decimal("40.50")),
    ("1,234.50", "en", Decimal("1234.50")), ("1.234,50", "pt-BR", Decimal("1234.50")),
    ("1.234,50", "en", Decimal("1234.50")), ("1,234", "en", Decimal("1234")),
    ("1.234", "pt-BR", Decimal("1234")), ("1,234", "pt-BR", Decimal("1.234")),
    ("1.234.567", "en", Decimal("1234567")), ("12a", "en", None), ("", "en", None),
])
def test_numbers_in_both_notations(raw: str, language: str, value: Decimal | None) -> None:
    assert parse_number(raw, language) == value


@pytest.mark.parametrize(("infinitive", "form"), [
    ("pagar", "pague"), ("buscar", "busque"), ("cobrar", "cobre"), ("cobrar", "cobra"),
    ("mostrar", "mostre"), ("estornar", "estorne"), ("começar", "comece"),
    ("devolver", "devolva"), ("remover", "remova"), ("excluir", "exclua"),
    ("excluir", "exclui"), ("abrir", "abra"), ("eleger", "eleja"), ("ler", "leia"),
    ("ver", "veja"), ("emprestar", "empreste"), ("cobrar", "cobrando"), ("enviar", "enviem"),
])
def test_portuguese_forms_from_the_infinitive(infinitive: str, form: str) -> None:
    assert form in pt_forms(infinitive)


def test_vocabulary_verbs_read_in_their_regular_forms() -> None:
    vocab = Vocabulary(words={"pt-BR": {"faturar": "charge", "encomenda": "order"}})
    got = Selector(make_shop_tools(), vocab).plan("fature 40 na encomenda 4411", language="pt-BR")
    assert got.calls[0].tool == "charge_card"


def test_plans_are_deterministic() -> None:
    texts = ["show 4411", "show order 5001 and charge its total", "mostre os pedidos"]
    first = [make_selector("shop").plan(t).to_json() for t in texts]
    again = Selector(make_shop_tools(), None)
    assert first == [make_selector("shop").plan(t).to_json() for t in texts]
    assert [again.plan(t).to_json() for t in texts[:2]] == first[:2]


def test_cost_follows_the_turn_not_the_catalogue(monkeypatch: pytest.MonkeyPatch) -> None:
    """Structural, not timed: a turn fits only the tools its words reach."""
    tools = make_shop_tools() + [make_tool(f"get_widget{i}", widget_id={"type": "string"})
                                 for i in range(5000)]
    selector = Selector(tools)
    reached: list[str] = []
    import catalogue.selector as package
    original = package.fit

    def counting(info: Any, *args: Any) -> Any:
        reached.append(info.name)
        return original(info, *args)

    monkeypatch.setattr(package, "fit", counting)
    assert selector.plan("show order 4411").calls[0].tool == "get_order"
    assert len(reached) <= 5


def test_a_large_catalogue_never_changes_a_call() -> None:
    """Padding the shop with 5,000 other tools plans the same, or (a verb alone) unread."""
    from tests.selector.test_corpus import all_cases
    big = Selector(make_shop_tools() + [
        make_tool(f"{('get', 'charge', 'archive', 'send')[i % 4]}_thing{i:05d}",
                  **{f"thing{i:05d}_id": {"type": "string"}}) for i in range(5000)],
        catalogue_vocabulary("shop"))
    for case in all_cases():
        if not case.source.startswith("shop/"):
            continue
        kw: dict[str, Any] = {"language": case.language, "context": case.context,
                              "exclude": case.exclude}
        small_plan = make_selector("shop").plan(case.text, **kw)
        big_plan = big.plan(case.text, **kw)
        assert big_plan == small_plan or not big_plan.read, case.text
