"""The corpus: every turn planned against its catalogue, compared exactly.

A *wrong call* is a planned call whose tool or any argument value differs
from the expected plan, or any plan where "unread" was expected. The corpus
must have none, and at least 95% of turns must plan exactly (calls,
arguments with their origins, and asks).

Two corpora: the in-sample one (``turns_*.txt``, written with the selector)
and a held-out one (``heldout.txt`` per catalogue, written from the selector's
contract and the catalogues before the selector was read). The held-out one must have no wrong
call either, and may not fall below the exact count it has reached.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.selector.catalogues import CORPUS, make_selector
from tests.selector.corpus_format import Case, actual_shape, load_cases

CATALOGUES = ("shop", "library", "clinic")
# The held-out corpus's exact count when it was last improved: it may only rise.
HELDOUT_EXACT = 235


def all_cases() -> list[Case]:
    cases: list[Case] = []
    for name in CATALOGUES:
        for path in sorted((CORPUS / name).glob("turns_*.txt")):
            cases.extend(load_cases(path))
    return cases


def heldout_cases() -> list[Case]:
    cases: list[Case] = []
    for name in CATALOGUES:
        cases.extend(load_cases(CORPUS / name / "heldout.txt"))
    return cases


def run(case: Case) -> dict[str, Any] | None:
    selector = make_selector(case.source.split("/")[0])
    plan = selector.plan(case.text, language=case.language, context=case.context,
                         exclude=case.exclude)
    return actual_shape(json.loads(json.dumps(plan.to_json())))


def is_wrong(expected: dict[str, Any] | None, actual: dict[str, Any] | None) -> bool:
    if actual is None:
        return False
    if expected is None:
        return bool(actual["calls"])
    by_step = {c["step"]: c for c in expected["calls"]}
    for call in actual["calls"]:
        if not call["tool"]:
            continue  # a choice asked of the person calls nothing
        want = by_step.get(call["step"])
        if want is None or want["tool"] != call["tool"]:
            return True
        values = {a["name"]: (a["value"], a.get("field")) for a in want["arguments"]}
        for arg in call["arguments"]:
            if arg["name"] not in values or values[arg["name"]] != (arg["value"], arg.get("field")):
                return True
    return False


def test_corpus_size() -> None:
    cases = all_cases()
    assert sum(c.language == "en" for c in cases) >= 150
    assert sum(c.language == "pt-BR" for c in cases) >= 150
    assert {c.source.split("/")[0] for c in cases} == set(CATALOGUES)
    assert sum(c.expected is None for c in cases) >= 40


def figures(label: str, cases: list[Case]) -> tuple[int, list[Case]]:
    """Print the corpus's figures and misses; return the exact count and the wrong calls."""
    exact, wrong, misses = 0, [], []
    for case in cases:
        actual = run(case)
        if actual == case.expected:
            exact += 1
            continue
        misses.append((case, actual))
        if is_wrong(case.expected, actual):
            wrong.append((case, actual))
    share = exact / len(cases)
    print(f"\n{label}: {len(cases)} turns, exact {exact} ({share:.1%}), wrong calls {len(wrong)}")
    for case, actual in misses:
        print(f"  miss {case.source} [{case.language}] {case.text!r}\n"
              f"    want {case.expected}\n    got  {actual}")
    return exact, [c for c, _ in wrong]


def test_corpus_figures() -> None:
    cases = all_cases()
    exact, wrong = figures("in-sample corpus", cases)
    assert not wrong, [c.source for c in wrong]
    assert exact / len(cases) >= 0.95


def test_heldout_size() -> None:
    cases = heldout_cases()
    assert sum(c.language == "en" for c in cases) >= 80
    assert sum(c.language == "pt-BR" for c in cases) >= 80
    assert {c.source.split("/")[0] for c in cases} == set(CATALOGUES)
    assert sum(c.expected is None for c in cases) >= 30


def test_heldout_figures() -> None:
    cases = heldout_cases()
    exact, wrong = figures("held-out corpus", cases)
    assert not wrong, [c.source for c in wrong]
    assert exact >= HELDOUT_EXACT, f"held-out exact fell to {exact} from {HELDOUT_EXACT}"


@pytest.mark.parametrize("case", all_cases() + heldout_cases(), ids=lambda c: c.source)
def test_no_wrong_call(case: Case) -> None:
    assert not is_wrong(case.expected, run(case))
