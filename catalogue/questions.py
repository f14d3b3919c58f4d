"""Questions a run asks a person, and their answers (docs/http-api.md, "Questions (ask)"), pure.

A question is made once, by ``make_question``, and is either valid and
normalised or refused with a ``QuestionError``; nothing in between. Wire
format::

    {"kind": "choice", "prompt": "Which card?", "choices": ["visa-0019", "mc-4420"]}
    {"kind": "open", "prompt": "Which order?"}

A choice question holds 1 to ``MAX_CHOICES`` non-empty choices. Choices that
arrive as objects (models often write ``[{"label": ...}]``) are flattened by
their first non-empty ``CHOICE_LABEL_KEYS``; a choice that flattens to nothing
is dropped. Flattening happens first and counting after, so a list that is too
long is refused whole, never cut to fit.

An answer is ``{"kind": "choice", "index": N}`` or ``{"kind": "open", "text":
...}``; ``validate_answer`` checks it against the live question (kind match,
index in range) and returns the chosen string or the text, or raises an
``AnswerError`` (``invalid_answer``, HTTP 422).

A question left unanswered for its timeout (``DEFAULT_TIMEOUT_SECONDS``)
closes as ``timed_out``; ``is_timed_out`` takes the clock as an argument.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any, Final

KINDS: Final = ("choice", "open")
MAX_CHOICES: Final = 4
# ``name`` and ``value`` are left out on purpose: they carry enum values and
# identifiers, not words for a person, and a junk label is worse than none.
CHOICE_LABEL_KEYS: Final = ("label", "description", "text", "title")
DEFAULT_TIMEOUT_SECONDS: Final = 600

# Error codes. ``invalid_answer`` is the one the HTTP layer renders (422).
INVALID_QUESTION: Final = "invalid_question"
INVALID_ANSWER: Final = "invalid_answer"

# Sentences (tests import these rather than copy them).
QUESTION_NOT_OBJECT: Final = "A question must be an object with a kind and a prompt."
QUESTION_KIND_UNKNOWN: Final = "A question's kind must be 'choice' or 'open', not {kind!r}."
QUESTION_PROMPT_EMPTY: Final = "A question needs a prompt: it cannot be empty."
QUESTION_CHOICES_NOT_LIST: Final = "A choice question's choices must be a list."
QUESTION_NO_CHOICES: Final = "A choice question needs at least one non-empty choice."
QUESTION_TOO_MANY_CHOICES: Final = (
    "A choice question allows at most {max} choices; this one has {count}."
)
QUESTION_OPEN_WITH_CHOICES: Final = (
    "An open question takes no choices; make it a choice question instead."
)
ANSWER_NOT_OBJECT: Final = "An answer must be an object with a kind."
ANSWER_KIND_MISMATCH: Final = (
    "The answer is of kind {answer!r} but the question is of kind {question!r}."
)
ANSWER_INDEX_NOT_INT: Final = "A choice answer's index must be a whole number."
ANSWER_INDEX_OUT_OF_RANGE: Final = (
    "Choice {index} is out of range: the question has choices 0 to {last}."
)
ANSWER_TEXT_EMPTY: Final = "An open answer needs some text: it cannot be empty."


class QuestionError(ValueError):
    """A question that cannot be asked. Raised when the question is made."""

    http_status = 422

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class AnswerError(ValueError):
    """An answer that does not fit its question (``invalid_answer``, 422)."""

    http_status = 422

    def __init__(self, message: str, code: str = INVALID_ANSWER) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def flatten_choice(choice: Any) -> str:
    """One choice as the words a person sees; ``""`` when there are none."""
    if isinstance(choice, str):
        return choice.strip()
    if isinstance(choice, Mapping):
        for key in CHOICE_LABEL_KEYS:
            label = choice.get(key)
            if isinstance(label, str) and label.strip():
                return label.strip()
        return ""
    # A bare number reads the same as a person would write it ("1", "40.5");
    # ``bool`` is an ``int`` in Python but "True" is no label.
    if isinstance(choice, int | float) and not isinstance(choice, bool):
        return str(choice)
    return ""


def make_question(raw: Mapping[str, Any]) -> dict[str, Any]:
    """Validate and normalise a question, or raise ``QuestionError``.

    The result holds only the keys of its kind, with strings stripped.
    """
    if not isinstance(raw, Mapping):
        raise QuestionError(INVALID_QUESTION, QUESTION_NOT_OBJECT)
    kind = raw.get("kind")
    if kind not in KINDS:
        raise QuestionError(INVALID_QUESTION, QUESTION_KIND_UNKNOWN.format(kind=kind))
    prompt = raw.get("prompt")
    prompt = prompt.strip() if isinstance(prompt, str) else ""
    if not prompt:
        raise QuestionError(INVALID_QUESTION, QUESTION_PROMPT_EMPTY)

    raw_choices = raw.get("choices")
    if kind == "open":
        # An empty list is how some writers say "none"; a non-empty one would
        # be lost if accepted, and nothing is dropped without a word.
        if raw_choices:
            raise QuestionError(INVALID_QUESTION, QUESTION_OPEN_WITH_CHOICES)
        return {"kind": "open", "prompt": prompt}

    if raw_choices is None:
        raw_choices = []
    # A string is a sequence too, but "abc" is not three choices.
    if not isinstance(raw_choices, list | tuple):
        raise QuestionError(INVALID_QUESTION, QUESTION_CHOICES_NOT_LIST)
    choices = [label for label in (flatten_choice(c) for c in raw_choices) if label]
    if not choices:
        raise QuestionError(INVALID_QUESTION, QUESTION_NO_CHOICES)
    if len(choices) > MAX_CHOICES:
        raise QuestionError(
            INVALID_QUESTION,
            QUESTION_TOO_MANY_CHOICES.format(max=MAX_CHOICES, count=len(choices)),
        )
    return {"kind": "choice", "prompt": prompt, "choices": choices}


def validate_answer(question: Mapping[str, Any], answer: Mapping[str, Any]) -> Any:
    """The chosen string (choice) or the stripped text (open) of an answer.

    Raises ``AnswerError`` when the answer does not fit the question. The
    question is normalised again first, so a stored question that was never
    valid fails loudly (``QuestionError``) instead of taking answers.
    """
    asked = make_question(question)
    if not isinstance(answer, Mapping):
        raise AnswerError(ANSWER_NOT_OBJECT)
    kind = answer.get("kind")
    if kind != asked["kind"]:
        raise AnswerError(ANSWER_KIND_MISMATCH.format(answer=kind, question=asked["kind"]))
    if asked["kind"] == "choice":
        index = answer.get("index")
        # ``True`` would otherwise pass as 1; "2" is text, not an index.
        if not isinstance(index, int) or isinstance(index, bool):
            raise AnswerError(ANSWER_INDEX_NOT_INT)
        choices: list[str] = asked["choices"]
        # Negative indexes are refused, not read from the end as Python would.
        if not 0 <= index < len(choices):
            raise AnswerError(ANSWER_INDEX_OUT_OF_RANGE.format(index=index, last=len(choices) - 1))
        return choices[index]
    text = answer.get("text")
    text = text.strip() if isinstance(text, str) else ""
    if not text:
        raise AnswerError(ANSWER_TEXT_EMPTY)
    return text


def is_timed_out(
    created_at: datetime,
    now: datetime,
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS,
) -> bool:
    """Whether a question asked at ``created_at`` has timed out at ``now``.

    The deadline itself counts as timed out: an answer must arrive strictly
    within the timeout. Both datetimes must be aware, since a naive one would
    compare wall clocks of unknown zones.
    """
    if created_at.tzinfo is None or now.tzinfo is None:
        raise ValueError(
            "is_timed_out() takes aware datetimes: pass timezone.now(), not datetime.now()."
        )
    if timeout_seconds < 0:
        raise ValueError("is_timed_out() takes a timeout of zero seconds or more.")
    return now - created_at >= timedelta(seconds=timeout_seconds)
