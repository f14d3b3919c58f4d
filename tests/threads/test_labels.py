"""The words for a pause's decisions: a person picks one of them in a filter, so no two read the same."""

from __future__ import annotations

import pytest
from django.utils import translation

from threads.labels import DECISIONS, decision_words


@pytest.mark.parametrize("language", ["en", "pt-br"])
def test_no_two_decisions_read_the_same(language):
    with translation.override(language):
        words = {decision: decision_words(decision) for decision in DECISIONS}
    assert len(set(words.values())) == len(words), words


def test_a_langgraph_respond_and_an_answer_to_a_question_read_apart_in_portuguese():
    with translation.override("pt-br"):
        assert (decision_words("answer"), decision_words("respond")) == ("Responder", "Responder com texto")
