"""Arguments bound by their role (issue 13), rule by rule, English and pt-BR.

Every table runs on ``builders.courier_tools()``, a catalogue no corpus uses,
so the rules are tried on words they were not written with. ``None`` means
the turn is unread: each rule fires only when it leaves one reading.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.selector.builders import calls, courier_plan

Want = list[tuple[str, dict[str, Any]]] | None


def check(language: str, text: str, want: Want, asks: tuple[str, ...] = ()) -> None:
    got = courier_plan(text, language)
    if want is None:
        assert not got.read, calls(got)
        return
    assert calls(got) == want
    assert tuple(a.argument for a in got.asks) == asks


# 1. An identifier named after what it is, not the noun.
@pytest.mark.parametrize(("language", "text", "want"), [
    ("en", "show parcel TRK-1", [("get_parcel", {"tracking_code": "TRK-1"})]),
    ("pt-BR", "mostre a encomenda TRK-1", [("get_parcel", {"tracking_code": "TRK-1"})]),
    ("en", "return parcel TRK-1", [("return_parcel", {"tracking_code": "TRK-1"})]),
    ("pt-BR", "devolva a encomenda TRK-1", [("return_parcel", {"tracking_code": "TRK-1"})]),
    # send_notice's tracking_code has no description: the catalogue tells it.
    ("en", "send a notice for parcel TRK-1 to ana@example.com",
     [("send_notice", {"tracking_code": "TRK-1", "email": "ana@example.com"})]),
    ("pt-BR", "envie um aviso da encomenda TRK-1 para ana@example.com",
     [("send_notice", {"tracking_code": "TRK-1", "email": "ana@example.com"})]),
    ("en", "show product P-1", [("get_product", {"sku": "P-1"})]),
    # A multi-word thing, and its Portuguese plural made on the head word.
    ("en", "show shipping label SL-4", [("get_shipping_label", {"label_number": "SL-4"})]),
    ("pt-BR", "mostre a etiqueta de envio SL-4",
     [("get_shipping_label", {"label_number": "SL-4"})]),
    ("pt-BR", "liste as etiquetas de envio do depósito D-1",
     [("list_shipping_labels", {"depot_code": "D-1"})]),
    # A tool without the thing's identifier never takes its value.
    ("en", "return product P-1", None),
    ("en", "add a comment to product P-1: dented", None),
    ("en", "list parcels of depot D-1", [("search_parcels", {"depot_code": "D-1"})]),
])
def test_identifier_after_the_thing_noun(language: str, text: str, want: Want) -> None:
    check(language, text, want)


# 2. A value introduced by a naming word.
@pytest.mark.parametrize(("language", "text", "want"), [
    ("en", "find products named Lamp", [("search_products", {"name": "Lamp"})]),
    ("en", 'search products called "Desk Lamp"', [("search_products", {"name": "Desk Lamp"})]),
    ("pt-BR", "busque produtos chamados Abajur", [("search_products", {"name": "Abajur"})]),
    ("pt-BR", 'procure produtos com o nome "Abajur de mesa"',
     [("search_products", {"name": "Abajur de mesa"})]),
    ("en", 'find manuals titled "Forklift"', [("search_manuals", {"title": "Forklift"})]),
    ("pt-BR", 'procure manuais intitulados "Empilhadeira"',
     [("search_manuals", {"title": "Empilhadeira"})]),
    # Two arguments for names and a word that prefers neither: not a guess.
    ("en", 'find manuals called "Forklift"', None),
    # No argument for names in a write.
    ("en", "return parcels named Old", None),
    # A naming word with no value after it cannot be placed.
    ("en", "find products named", None),
    ("pt-BR", "abra um chamado para o produto P-1", None),
])
def test_naming_word(language: str, text: str, want: Want) -> None:
    check(language, text, want)


# 3. A preposition and a noun that is a field, with direction words.
@pytest.mark.parametrize(("language", "text", "want", "asks"), [
    ("en", "move parcel TRK-1 from depot D-1 to depot D-2",
     [("move_parcel", {"tracking_code": "TRK-1", "from_depot": "D-1", "to_depot": "D-2"})], ()),
    ("en", "move parcel TRK-1 to depot D-2 from depot D-1",
     [("move_parcel", {"tracking_code": "TRK-1", "from_depot": "D-1", "to_depot": "D-2"})], ()),
    ("pt-BR", "mova a encomenda TRK-1 do depósito D-1 para o depósito D-2",
     [("move_parcel", {"tracking_code": "TRK-1", "from_depot": "D-1", "to_depot": "D-2"})], ()),
    ("en", "move parcel TRK-1 to depot D-2",
     [("move_parcel", {"tracking_code": "TRK-1", "to_depot": "D-2"})], ("from_depot",)),
    ("en", "relocate crate C-7 from bay B-1 to bay B-4",
     [("relocate_crate", {"crate_no": "C-7", "source_bay": "B-1", "target_bay": "B-4"})], ()),
    ("pt-BR", "realoque o caixote C-7 da baia B-1 para a baia B-4",
     [("relocate_crate", {"crate_no": "C-7", "source_bay": "B-1", "target_bay": "B-4"})], ()),
    # No direction word: two readings, none taken.
    ("en", "move parcel TRK-1 depot D-1 depot D-2", None, ()),
])
def test_direction_picks_between_from_and_to(language: str, text: str, want: Want,
                                             asks: tuple[str, ...]) -> None:
    check(language, text, want, asks)


# 4. Typed values matched by shape.
@pytest.mark.parametrize(("language", "text", "want"), [
    ("en", "schedule a pickup for parcel TRK-1 on 2026-12-03",
     [("schedule_pickup", {"tracking_code": "TRK-1", "pickup_day": "2026-12-03"})]),
    ("pt-BR", "agende uma coleta da encomenda TRK-1 em 03/12/2026",
     [("schedule_pickup", {"tracking_code": "TRK-1", "pickup_day": "03/12/2026"})]),
    ("en", "extend storage of parcel TRK-1 by 2 days",
     [("extend_storage", {"tracking_code": "TRK-1", "days": 2})]),
    ("pt-BR", "prorrogue o armazenamento da encomenda TRK-1 por 2 dias",
     [("extend_storage", {"tracking_code": "TRK-1", "days": 2})]),
])
def test_values_by_shape(language: str, text: str, want: Want) -> None:
    check(language, text, want)


# 5. Text after a colon to the one free-text argument.
@pytest.mark.parametrize(("language", "text", "want"), [
    ("en", "return parcel TRK-1: customer refused it",
     [("return_parcel", {"tracking_code": "TRK-1", "reason": "customer refused it"})]),
    ("pt-BR", "devolva a encomenda TRK-1: cliente recusou",
     [("return_parcel", {"tracking_code": "TRK-1", "reason": "cliente recusou"})]),
    ("en", "add a comment to parcel TRK-1: fragile, handle with care",
     [("add_comment", {"tracking_code": "TRK-1", "comment": "fragile, handle with care"})]),
    # No free-text argument; or the text goes on to another call.
    ("en", "show parcel TRK-1: urgent", None),
    ("en", "return parcel TRK-1: damaged and then show parcel TRK-2", None),
    ("pt-BR", "devolva a encomenda TRK-1: avariada e depois mostre a encomenda TRK-2", None),
])
def test_text_after_a_colon(language: str, text: str, want: Want) -> None:
    check(language, text, want)


# 6. Numbers written as words.
@pytest.mark.parametrize(("language", "text", "want"), [
    ("en", "pack parcel TRK-1 in three boxes",
     [("pack_parcel", {"tracking_code": "TRK-1", "quantity": 3})]),
    ("pt-BR", "embale a encomenda TRK-1 em três caixas",
     [("pack_parcel", {"tracking_code": "TRK-1", "quantity": 3})]),
    ("en", "set the price of product P-1 to forty-two", [("set_price", {"sku": "P-1", "price": 42})]),
    ("pt-BR", "mude o preço do produto P-1 para R$ quarenta e dois",
     [("set_price", {"sku": "P-1", "price": 42})]),
    ("en", "extend storage of parcel TRK-1 by two hundred and fifty days",
     [("extend_storage", {"tracking_code": "TRK-1", "days": 250})]),
    ("pt-BR", "prorrogue o armazenamento da encomenda TRK-1 por duzentos e cinquenta dias",
     [("extend_storage", {"tracking_code": "TRK-1", "days": 250})]),
    # A number in words is never an identifier.
    ("en", "show parcel forty", None),
])
def test_numbers_as_words(language: str, text: str, want: Want) -> None:
    check(language, text, want)


# 7. Bare capitalised values.
@pytest.mark.parametrize(("language", "text", "want"), [
    ("en", "show parcels of recipient Souza", [("search_parcels", {"recipient": "Souza"})]),
    ("pt-BR", "mostre as encomendas do destinatário Souza",
     [("search_parcels", {"recipient": "Souza"})]),
    ("en", "search products Lamp", [("search_products", {"name": "Lamp"})]),
    # A bare word is never an identifier, and needs a noun right before it.
    ("en", "show parcels of depot Central", None),
    ("en", "return parcel Souza", None),
    ("en", "show Souza", None),
])
def test_bare_capitalised_values(language: str, text: str, want: Want) -> None:
    check(language, text, want)


@pytest.mark.parametrize(("language", "text"), [
    ("en", "list my parcels"), ("pt-BR", "liste minhas encomendas"),
])
def test_my_takes_the_context(language: str, text: str) -> None:
    got = courier_plan(text, language, context={"customer_id": "c-9"})
    assert calls(got) == [("list_parcels", {"customer_id": "c-9"})]
    assert got.calls[0].arguments[0].origin == "context"
