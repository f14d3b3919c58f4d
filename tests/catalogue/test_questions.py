"""Questions and answers (docs/http-api.md, "Questions (ask)"): making, flattening, answering, timing out."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from catalogue import questions as q
from catalogue.questions import (
    AnswerError,
    QuestionError,
    is_timed_out,
    make_question,
    validate_answer,
)


def make_choice(**overrides: Any) -> dict[str, Any]:
    raw: dict[str, Any] = {"kind": "choice", "prompt": "Which card?", "choices": ["visa", "mc"]}
    raw.update(overrides)
    return raw


def make_open(**overrides: Any) -> dict[str, Any]:
    raw: dict[str, Any] = {"kind": "open", "prompt": "Which order?"}
    raw.update(overrides)
    return raw


# --- making a question -------------------------------------------------------

MADE = [
    pytest.param(
        make_choice(),
        {"kind": "choice", "prompt": "Which card?", "choices": ["visa", "mc"]},
        id="choice",
    ),
    pytest.param(make_open(), {"kind": "open", "prompt": "Which order?"}, id="open"),
    pytest.param(
        make_choice(prompt="  Which card?\n", choices=["  visa ", "mc\t"]),
        {"kind": "choice", "prompt": "Which card?", "choices": ["visa", "mc"]},
        id="strings-stripped",
    ),
    pytest.param(
        make_choice(choices=["a"]),
        {"kind": "choice", "prompt": "Which card?", "choices": ["a"]},
        id="one-choice",
    ),
    pytest.param(
        make_choice(choices=["a", "b", "c", "d"]),
        {"kind": "choice", "prompt": "Which card?", "choices": ["a", "b", "c", "d"]},
        id="four-choices",
    ),
    pytest.param(
        make_choice(choices=("a", "b")),
        {"kind": "choice", "prompt": "Which card?", "choices": ["a", "b"]},
        id="tuple-choices",
    ),
    pytest.param(
        make_open(extra="dropped", choices=[]),
        {"kind": "open", "prompt": "Which order?"},
        id="open-empty-choices-and-unknown-keys",
    ),
    pytest.param(
        make_choice(choices=["a", "b", "c", "d", "   ", {"name": "x"}]),
        {"kind": "choice", "prompt": "Which card?", "choices": ["a", "b", "c", "d"]},
        id="empties-dropped-before-counting",
    ),
]


@pytest.mark.parametrize(("raw", "expected"), MADE)
def test_make_question(raw: dict[str, Any], expected: dict[str, Any]) -> None:
    assert make_question(raw) == expected


REFUSED = [
    pytest.param("Which card?", q.QUESTION_NOT_OBJECT, id="not-a-mapping"),
    pytest.param(
        make_choice(kind="yesno"), q.QUESTION_KIND_UNKNOWN.format(kind="yesno"), id="kind"
    ),
    pytest.param({"prompt": "Which?"}, q.QUESTION_KIND_UNKNOWN.format(kind=None), id="no-kind"),
    pytest.param(make_choice(prompt=""), q.QUESTION_PROMPT_EMPTY, id="empty-prompt"),
    pytest.param(make_open(prompt="   "), q.QUESTION_PROMPT_EMPTY, id="blank-prompt"),
    pytest.param(make_open(prompt=None), q.QUESTION_PROMPT_EMPTY, id="no-prompt"),
    pytest.param(make_open(prompt=42), q.QUESTION_PROMPT_EMPTY, id="prompt-not-text"),
    pytest.param(make_choice(choices=[]), q.QUESTION_NO_CHOICES, id="zero-choices"),
    pytest.param(make_choice(choices=None), q.QUESTION_NO_CHOICES, id="choices-missing"),
    pytest.param(make_choice(choices=["", "  "]), q.QUESTION_NO_CHOICES, id="all-empty"),
    pytest.param(
        make_choice(choices=[{"name": "visa"}, {"value": "mc"}]),
        q.QUESTION_NO_CHOICES,
        id="all-flatten-to-nothing",
    ),
    pytest.param(make_choice(choices="visa"), q.QUESTION_CHOICES_NOT_LIST, id="choices-a-string"),
    pytest.param(
        make_choice(choices={"label": "visa"}), q.QUESTION_CHOICES_NOT_LIST, id="choices-a-mapping"
    ),
    pytest.param(
        make_choice(choices=["a", "b", "c", "d", "e"]),
        q.QUESTION_TOO_MANY_CHOICES.format(max=4, count=5),
        id="five-choices-never-cut",
    ),
    pytest.param(make_open(choices=["a"]), q.QUESTION_OPEN_WITH_CHOICES, id="open-with-choices"),
]


@pytest.mark.parametrize(("raw", "message"), REFUSED)
def test_make_question_refuses(raw: Any, message: str) -> None:
    with pytest.raises(QuestionError) as caught:
        make_question(raw)
    assert caught.value.code == q.INVALID_QUESTION
    assert caught.value.message == message
    assert str(caught.value) == message


# --- flattening choices that arrive as objects --------------------------------

FLATTENED = [
    pytest.param("  visa ", "visa", id="string"),
    pytest.param({"label": "Visa"}, "Visa", id="label"),
    pytest.param({"description": "Visa card"}, "Visa card", id="description"),
    pytest.param({"text": "Visa"}, "Visa", id="text"),
    pytest.param({"title": "Visa"}, "Visa", id="title"),
    pytest.param(
        {"title": "T", "text": "X", "description": "D", "label": "L"}, "L", id="label-first"
    ),
    pytest.param({"label": "", "description": "D", "text": "X"}, "D", id="empty-label-skipped"),
    pytest.param({"label": "  ", "title": " T "}, "T", id="blank-label-skipped"),
    pytest.param({"label": 7, "text": "seven"}, "seven", id="non-text-label-skipped"),
    pytest.param({"name": "visa_0019", "label": "Visa"}, "Visa", id="name-ignored-when-label"),
    pytest.param({"name": "visa_0019"}, "", id="name-never-a-label"),
    pytest.param({"value": "visa_0019"}, "", id="value-never-a-label"),
    pytest.param({"name": "n", "value": "v"}, "", id="name-and-value"),
    pytest.param({}, "", id="empty-object"),
    pytest.param(40, "40", id="integer"),
    pytest.param(40.5, "40.5", id="number"),
    pytest.param(True, "", id="bool"),
    pytest.param(None, "", id="none"),
    pytest.param(["visa"], "", id="list"),
]


@pytest.mark.parametrize(("choice", "label"), FLATTENED)
def test_flatten_choice(choice: Any, label: str) -> None:
    assert q.flatten_choice(choice) == label


def test_object_choices_in_a_question_are_flattened_and_empties_dropped() -> None:
    raw = make_choice(
        choices=[{"label": "Visa", "value": "visa-0019"}, {"value": "junk"}, {"description": "MC"}]
    )
    assert make_question(raw)["choices"] == ["Visa", "MC"]


def test_make_question_does_not_change_its_input() -> None:
    raw = make_choice(choices=[" a ", {"label": "b"}])
    make_question(raw)
    assert raw == make_choice(choices=[" a ", {"label": "b"}])


# --- answers ------------------------------------------------------------------

ANSWERED = [
    pytest.param(make_choice(), {"kind": "choice", "index": 0}, "visa", id="first-choice"),
    pytest.param(make_choice(), {"kind": "choice", "index": 1}, "mc", id="last-choice"),
    pytest.param(
        make_choice(choices=[{"label": "Visa"}, {"name": "x"}, "MC"]),
        {"kind": "choice", "index": 1},
        "MC",
        id="index-into-flattened-choices",
    ),
    pytest.param(make_open(), {"kind": "open", "text": " 4411 "}, "4411", id="open-stripped"),
]


@pytest.mark.parametrize(("question", "answer", "value"), ANSWERED)
def test_validate_answer(question: dict[str, Any], answer: dict[str, Any], value: str) -> None:
    assert validate_answer(question, answer) == value


NOT_ANSWERED = [
    pytest.param(make_choice(), "visa", q.ANSWER_NOT_OBJECT, id="not-a-mapping"),
    pytest.param(
        make_choice(),
        {"kind": "open", "text": "visa"},
        q.ANSWER_KIND_MISMATCH.format(answer="open", question="choice"),
        id="open-answer-to-choice",
    ),
    pytest.param(
        make_open(),
        {"kind": "choice", "index": 0},
        q.ANSWER_KIND_MISMATCH.format(answer="choice", question="open"),
        id="choice-answer-to-open",
    ),
    pytest.param(
        make_open(),
        {"text": "4411"},
        q.ANSWER_KIND_MISMATCH.format(answer=None, question="open"),
        id="no-kind",
    ),
    pytest.param(
        make_choice(),
        {"kind": "choice", "index": 2},
        q.ANSWER_INDEX_OUT_OF_RANGE.format(index=2, last=1),
        id="index-past-end",
    ),
    pytest.param(
        make_choice(),
        {"kind": "choice", "index": -1},
        q.ANSWER_INDEX_OUT_OF_RANGE.format(index=-1, last=1),
        id="negative-index",
    ),
    pytest.param(
        make_choice(), {"kind": "choice", "index": "1"}, q.ANSWER_INDEX_NOT_INT, id="index-text"
    ),
    pytest.param(
        make_choice(), {"kind": "choice", "index": 1.0}, q.ANSWER_INDEX_NOT_INT, id="index-float"
    ),
    pytest.param(
        make_choice(), {"kind": "choice", "index": True}, q.ANSWER_INDEX_NOT_INT, id="index-bool"
    ),
    pytest.param(make_choice(), {"kind": "choice"}, q.ANSWER_INDEX_NOT_INT, id="index-missing"),
    pytest.param(make_open(), {"kind": "open", "text": ""}, q.ANSWER_TEXT_EMPTY, id="empty-text"),
    pytest.param(
        make_open(), {"kind": "open", "text": " \n"}, q.ANSWER_TEXT_EMPTY, id="blank-text"
    ),
    pytest.param(make_open(), {"kind": "open"}, q.ANSWER_TEXT_EMPTY, id="text-missing"),
    pytest.param(
        make_open(), {"kind": "open", "text": 4411}, q.ANSWER_TEXT_EMPTY, id="text-not-text"
    ),
]


@pytest.mark.parametrize(("question", "answer", "message"), NOT_ANSWERED)
def test_validate_answer_refuses(question: dict[str, Any], answer: Any, message: str) -> None:
    with pytest.raises(AnswerError) as caught:
        validate_answer(question, answer)
    assert caught.value.code == "invalid_answer"
    assert caught.value.http_status == 422
    assert caught.value.message == message


def test_validate_answer_refuses_a_question_that_was_never_valid() -> None:
    with pytest.raises(QuestionError):
        validate_answer(
            make_choice(choices=["a", "b", "c", "d", "e"]), {"kind": "choice", "index": 4}
        )


# --- timing out ---------------------------------------------------------------

ASKED = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)

TIMED = [
    pytest.param(ASKED, q.DEFAULT_TIMEOUT_SECONDS, False, id="just-asked"),
    pytest.param(ASKED + timedelta(seconds=599), q.DEFAULT_TIMEOUT_SECONDS, False, id="599s"),
    pytest.param(
        ASKED + timedelta(seconds=600), q.DEFAULT_TIMEOUT_SECONDS, True, id="600s-deadline"
    ),
    pytest.param(ASKED + timedelta(hours=1), q.DEFAULT_TIMEOUT_SECONDS, True, id="an-hour"),
    pytest.param(ASKED + timedelta(seconds=30), 30, True, id="custom-timeout"),
    pytest.param(ASKED + timedelta(seconds=29.5), 30, False, id="custom-not-yet"),
    pytest.param(ASKED, 0, True, id="zero-timeout"),
    pytest.param(
        datetime(2025, 1, 1, 9, 9, tzinfo=timezone(timedelta(hours=-3))),
        q.DEFAULT_TIMEOUT_SECONDS,
        False,
        id="other-zone-same-instant-plus-9min",
    ),
]


@pytest.mark.parametrize(("now", "timeout", "timed_out"), TIMED)
def test_is_timed_out(now: datetime, timeout: float, timed_out: bool) -> None:
    assert is_timed_out(ASKED, now, timeout) is timed_out


def test_default_timeout_is_ten_minutes() -> None:
    assert q.DEFAULT_TIMEOUT_SECONDS == 600
    assert is_timed_out(ASKED, ASKED + timedelta(seconds=600)) is True
    assert is_timed_out(ASKED, ASKED + timedelta(seconds=599)) is False


@pytest.mark.parametrize(
    ("created_at", "now"),
    [
        pytest.param(ASKED.replace(tzinfo=None), ASKED, id="naive-created"),
        pytest.param(ASKED, ASKED.replace(tzinfo=None), id="naive-now"),
    ],
)
def test_is_timed_out_refuses_naive_datetimes(created_at: datetime, now: datetime) -> None:
    with pytest.raises(ValueError, match="aware"):
        is_timed_out(created_at, now)


def test_is_timed_out_refuses_a_negative_timeout() -> None:
    with pytest.raises(ValueError, match="zero seconds or more"):
        is_timed_out(ASKED, ASKED, -1)
