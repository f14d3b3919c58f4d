"""Reading a turn's words (issue 13): numbers as words, text after a colon,
Portuguese verb forms."""

from __future__ import annotations

from decimal import Decimal

import pytest

from catalogue.selector.lexicon_pt import pt_forms
from catalogue.selector.numwords import read_number
from catalogue.selector.text import tokenize


@pytest.mark.parametrize(("language", "text", "value", "used"), [
    ("en", "forty packs", 40, 1),
    ("en", "forty-two", 42, 1),
    ("en", "twenty five days", 25, 2),
    ("en", "two hundred and fifty packs", 250, 4),
    ("en", "one hundred and twenty", 120, 4),
    ("en", "two thousand and twenty", 2020, 4),
    ("en", "ten thousand", 10000, 2),
    ("pt-BR", "quarenta caixas", 40, 1),
    ("pt-BR", "duzentas e cinquenta", 250, 3),
    ("pt-BR", "cento e vinte", 120, 3),
    ("pt-BR", "vinte e um", 21, 3),
    ("pt-BR", "mil e quinhentos", 1500, 3),
    ("pt-BR", "trinta e dois mil", 32000, 4),
    ("pt-BR", "tres dias", 3, 1),
    # "and"/"e" join only a smaller part to a larger one.
    ("en", "two and three", 2, 1),
    ("pt-BR", "dois e depois", 2, 1),
    ("en", "five six", 5, 1),
])
def test_numbers_as_words(language: str, text: str, value: int, used: int) -> None:
    assert read_number(text.split(), language) == (used, Decimal(value))


@pytest.mark.parametrize(("language", "text"), [
    ("en", "one"), ("pt-BR", "um"), ("pt-BR", "uma falha"), ("en", "thousand"),
    ("en", "hundred"), ("en", "order"), ("es", "cuarenta"),
])
def test_articles_and_other_words_are_no_numbers(language: str, text: str) -> None:
    assert read_number(text.split(), language) is None


@pytest.mark.parametrize(("language", "text", "kinds"), [
    ("pt-BR", "para R$ quarenta", [("word", "para"), ("money", "quarenta")]),
    ("en", "$ forty", [("money", "forty")]),
    ("en", "the $ sign", [("word", "the"), ("word", "sign")]),
    ("en", "flag it: dose too high", [("word", "flag"), ("word", "it"), ("text", "dose too high")]),
    ("en", 'flag it: "dose too high"', [("word", "flag"), ("word", "it"), ("sep", ":"),
                                        ("quote", "dose too high")]),
    ("en", "at 8:30", [("word", "at"), ("num", "8"), ("sep", ":"), ("num", "30")]),
    ("en", 'flag it "note: dose high"', [("word", "flag"), ("word", "it"),
                                         ("quote", "note: dose high")]),
])
def test_tokens(language: str, text: str, kinds: list[tuple[str, str]]) -> None:
    assert [(t.kind, t.text) for t in tokenize(text, language)] == kinds


@pytest.mark.parametrize(("infinitive", "form"), [
    ("transferir", "transfira"), ("transferir", "transfere"), ("seguir", "siga"),
    ("vestir", "vista"), ("inserir", "insira"), ("repor", "reponha"), ("repor", "repor"),
    ("compor", "componha"),
])
def test_portuguese_irregular_families(infinitive: str, form: str) -> None:
    assert form in pt_forms(infinitive)


@pytest.mark.parametrize(("infinitive", "not_a_form"), [
    ("emitir", "imita"),  # the e is not in the stem's last syllable
])
def test_stem_change_only_in_the_last_syllable(infinitive: str, not_a_form: str) -> None:
    assert not_a_form not in pt_forms(infinitive)
