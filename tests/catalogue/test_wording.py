"""Pure tier: what a tool says to a person, per language (catalogue.wording)."""

from __future__ import annotations

import pytest

from catalogue.plan import Vocabulary
from catalogue.tools import Tool
from catalogue.wording import argument_label, said_in, tool_phrase, tool_title, wording_problem

SHOP_WORDS = Vocabulary(words={"pt-BR": {"pedido": "order", "pedidos": "order", "cartão": "card",
                                         "caixa de entrada": "inbox"}})


def make_tool(**overrides: object) -> Tool:
    fields: dict[str, object] = {"name": "charge_card", "kind": "write"}
    fields.update(overrides)
    return Tool(**fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(("language", "title"), [("en", "Charge card?"), ("pt-BR", "Cobrar cartão?")])
def test_an_undeclared_title_reads_the_name_through_the_vocabulary(language, title):
    assert tool_title(make_tool(), language, SHOP_WORDS) == title


@pytest.mark.parametrize(
    ("confirm", "language", "title"),
    [({"en": "Charge the card?", "pt-BR": "Cobrar no cartão?"}, "pt-BR", "Cobrar no cartão?"),
     ({"en": "Charge the card?", "pt-BR": "Cobrar no cartão?"}, "en", "Charge the card?"),
     ({"en": "Charge the card?"}, "pt-BR", "Charge the card?"),  # no pt-BR words: the English ones
     ("Charge it?", "pt-BR", "Charge it?")],
)
def test_a_declared_confirm_is_said_in_the_threads_language(confirm, language, title):
    assert tool_title(make_tool(confirm=confirm), language, SHOP_WORDS) == title


@pytest.mark.parametrize(
    ("argument", "language", "label"),
    [("order_id", "en", "Order"), ("order_id", "pt-BR", "Pedido"), ("amount", "pt-BR", "Valor"),
     ("customer", "pt-BR", "Cliente"), ("amount", "en", "Amount"), ("email", "en", "Email"),
     ("idempotencyKey", "en", "Idempotency")],
)
def test_an_undeclared_label_is_the_name_read_as_words_never_the_raw_name(argument, language, label):
    assert argument_label(make_tool(), argument, language, SHOP_WORDS) == label


def test_a_declared_label_wins_and_falls_back_to_english():
    tool = make_tool(labels={"order_id": {"en": "Order number", "pt-BR": "Número do pedido"}, "amount": "Sum"})
    assert argument_label(tool, "order_id", "pt-BR", SHOP_WORDS) == "Número do pedido"
    assert argument_label(tool, "order_id", "en", SHOP_WORDS) == "Order number"
    assert argument_label(tool, "amount", "pt-BR", SHOP_WORDS) == "Sum"


@pytest.mark.parametrize(
    ("name", "language", "phrase"),
    [("read_inbox", "pt-BR", "ler caixa de entrada"), ("get_order", "pt-BR", "consultar pedido"),
     ("refund_card", "pt-BR", "estornar cartão"), ("getOrder", "en", "get order"),
     ("archive_order", "pt-BR", "arquivar pedido")],
)
def test_a_tool_in_a_sentence_is_its_words(name, language, phrase):
    assert tool_phrase(name, language, SHOP_WORDS) == phrase


@pytest.mark.parametrize(
    ("value", "problem"),
    [("Charge?", ""), ({"en": "Charge?", "pt-BR": "Cobrar?"}, ""), ("  ", "must not be empty"),
     ({}, "at least one language"), ({"fr": "Payer ?"}, "not a language"), ({"en": 3}, "non-empty text"),
     (["Charge?"], "text per language")],
)
def test_a_wording_is_text_or_text_per_language(value, problem):
    assert (problem in wording_problem(value)) if problem else wording_problem(value) == ""


def test_said_in_takes_the_language_then_english():
    assert said_in({"en": "Yes", "pt-BR": "Sim"}, "pt-BR") == "Sim"
    assert said_in({"pt-BR": "Sim"}, "en") == "Sim"
    assert said_in(None, "en") == ""
