"""Fixes found by the held-out corpus (tests/selector/corpus/*/heldout.txt)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.selector.catalogues import make_selector


def calls(catalogue: str, text: str, language: str = "en", **kw: Any) -> list[Any]:
    plan = make_selector(catalogue).plan(text, language=language, **kw).to_json()
    return [(c["tool"], {a["name"]: a["value"] for a in c["arguments"]}) for c in plan["calls"]]


@pytest.mark.parametrize(("language", "text"), [
    ("en", "charge 40 to the order, 4411"),
    ("pt-BR", "cobre 40 no pedido, 4411"),
    ("pt-BR", "você poderia cobrar 12,50 no pedido nº 4411?"),
])
def test_a_value_before_a_noun_is_never_that_nouns(language: str, text: str) -> None:
    # Was a wrong call: amount=4411, order_id="40" (the loose 40 went to the named order).
    got = calls("shop", text, language)
    assert got == [] or got[0][1]["order_id"] == "4411"
