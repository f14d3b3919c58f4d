"""Names read as words (catalogue/words.py) and vocabulary files (catalogue/vocabulary.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalogue.tools import Tool
from catalogue.vocabulary import VocabularyError, load_vocabulary, vocabulary_from_data
from catalogue.words import action_and_thing, name_words


@pytest.mark.parametrize("name", ["get_order", "getOrder", "get-order", "GetOrder", "get order",
                                  "get.order", "GET_ORDER"])
def test_names_read_as_the_same_words(name: str) -> None:
    assert name_words(name) == ["get", "order"]


@pytest.mark.parametrize(("name", "words"), [
    ("searchOrdersByCustomer", ["search", "orders", "by", "customer"]),
    ("HTTPGetOrder", ["http", "get", "order"]),
    ("get_order_v2", ["get", "order", "v2"]),
    ("  ", []),
    ("", []),
])
def test_name_words(name: str, words: list[str]) -> None:
    assert name_words(name) == words


def test_action_and_thing() -> None:
    assert action_and_thing("renew_loan") == ("renew", "loan")
    assert action_and_thing("getMemberLoans") == ("get", "member loans")
    assert action_and_thing("") == ("", "")


def test_tool_reads_its_name() -> None:
    tool = Tool(name="lendBook")
    assert (tool.words, tool.action, tool.thing) == ("lend book", "lend", "book")


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "vocabulary.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_vocabulary_loads(tmp_path: Path) -> None:
    vocab = load_vocabulary(write(tmp_path, """
settings:
  language: pt-BR
words:
  pt-BR:
    Pedido: order
    caixa de entrada: inbox
  en:
    bill: charge
"""))
    assert vocab.language == "pt-BR"
    assert vocab.for_language("pt-BR") == {"pedido": "order", "caixa de entrada": "inbox"}
    assert vocab.for_language("en") == {"bill": "charge"}


def test_the_shop_vocabulary_loads() -> None:
    root = Path(__file__).resolve().parents[2]
    vocab = load_vocabulary(root / "examples" / "shop" / "vocabulary.yaml")
    assert vocab.for_language("pt-BR")["pedido"] == "order"


def test_empty_vocabulary_file(tmp_path: Path) -> None:
    assert load_vocabulary(write(tmp_path, "")).words == {}


@pytest.mark.parametrize(("text", "place"), [
    ("- a\n- b\n", "vocabulary"),
    ("colours: {}\n", "colours"),
    ("settings: [pt-BR]\n", "settings"),
    ("settings: {language: pt-PT}\n", "settings.language"),
    ("settings: {lang: en}\n", "settings.lang"),
    ("words: [pedido]\n", "words"),
    ("words: {es: {pedido: order}}\n", "words.es"),
    ("words: {pt-BR: [pedido]}\n", "words.pt-BR"),
    ("words: {pt-BR: {pedido: ''}}\n", "words.pt-BR.pedido"),
    ("words: {pt-BR: {pedido: 3}}\n", "words.pt-BR.pedido"),
    ("words: {pt-BR: {3: order}}\n", "words.pt-BR.3"),
])
def test_vocabulary_errors_name_the_place(tmp_path: Path, text: str, place: str) -> None:
    with pytest.raises(VocabularyError) as info:
        vocabulary_from_data(__import__("yaml").safe_load(text))
    assert info.value.place == place
    assert info.value.reason
    with pytest.raises(VocabularyError):
        load_vocabulary(write(tmp_path, text))


def test_vocabulary_bad_yaml(tmp_path: Path) -> None:
    with pytest.raises(VocabularyError) as info:
        load_vocabulary(write(tmp_path, "words: {pt-BR: [unclosed\n"))
    assert "YAML" in info.value.reason


def test_vocabulary_missing_file(tmp_path: Path) -> None:
    with pytest.raises(VocabularyError) as info:
        load_vocabulary(tmp_path / "absent.yaml")
    assert info.value.place.endswith("absent.yaml")
