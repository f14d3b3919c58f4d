"""The unseen held-out corpus (issue 13): three catalogues the selector was never
written or tuned with, scored like the held-out set in ``test_corpus.py``.

``tests/selector/unseen/<domain>/`` holds a catalogue, its vocabulary, an agent
file (so ``stalwart plan`` runs over it) and ``heldout.txt``, written from the
selector's contract (today in docs/agent-file.md and docs/getting-started.md),
issue 13 and those files alone, before the selector's source was read.
Each turn is planned and counted, per language, as one of:

- exact: the plan equals the expected one (calls, arguments, origins, asks);
- unread: the selector read nothing where a plan was expected;
- wrong: a planned call that differs from the expected one, or any call where
  "unread" was expected (``test_corpus.is_wrong``);
- other: read, no wrong call, yet not exact (a question where a value was
  typed, a choice where one tool was expected, ...).

Zero wrong calls is the first rule; the exact counts may only rise.
"""

from __future__ import annotations

import json
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

from catalogue.selector import Selector
from catalogue.tools import tools_from_catalogue
from catalogue.vocabulary import load_vocabulary
from tests.selector.corpus_format import Case, actual_shape, load_cases
from tests.selector.test_corpus import is_wrong

UNSEEN = Path(__file__).resolve().parent / "unseen"
DOMAINS = ("pharmacy", "fleet", "maintenance")
LANGUAGES = ("en", "pt-BR")
# The first figures, measured before any change to the selector for issue 13
# (249 turns: en 126, pt-BR 123; first score en 68 exact, 57 unread, 1 wrong;
# pt-BR 65 exact, 57 unread, 1 wrong). After issue 13's rules: en 126 exact;
# pt-BR 122 exact, 1 unread ("custo estimado": "estimado" is no word of the
# vocabulary); 0 wrong. A turn expected unread and left unread is exact. The
# exact counts may only rise.
UNSEEN_EXACT = {"en": 126, "pt-BR": 122}
# Issue 13's bar: both languages together, exact / all turns.
UNSEEN_EXACT_SHARE = 0.95
# Wrong calls the selector made on this corpus when it was written: 2, the same
# turn in both languages, fleet/heldout.txt:30 "show rental r-88 and then show
# its vehicle" and :70 "mostre a locação r-88 e depois mostre o veículo dela",
# planned as get_rental ; search_vehicles() (every vehicle) instead of
# get_vehicle(vin=result:1.vin). Fixed for issue 13: none is allowed now.


@cache
def selector(domain: str) -> Selector:
    folder = UNSEEN / domain
    tools = tools_from_catalogue(json.loads((folder / "catalogue.json").read_text()))
    return Selector(tools, load_vocabulary(folder / "vocabulary.yaml"))


def unseen_cases() -> list[Case]:
    cases: list[Case] = []
    for domain in DOMAINS:
        cases.extend(load_cases(UNSEEN / domain / "heldout.txt"))
    return cases


def run(case: Case) -> dict[str, Any] | None:
    plan = selector(case.source.split("/")[0]).plan(
        case.text, language=case.language, context=case.context, exclude=case.exclude)
    return actual_shape(json.loads(json.dumps(plan.to_json())))


def outcome(case: Case, actual: dict[str, Any] | None) -> str:
    if actual == case.expected:
        return "exact"
    if is_wrong(case.expected, actual):
        return "wrong"
    if actual is None:
        return "unread"
    return "other"


@cache
def scored() -> tuple[tuple[Case, dict[str, Any] | None, str], ...]:
    rows = []
    for case in unseen_cases():
        actual = run(case)
        rows.append((case, actual, outcome(case, actual)))
    return tuple(rows)


def figures() -> dict[str, Counter[str]]:
    """Print the figures per language and every miss; return the counts."""
    counts: dict[str, Counter[str]] = {lang: Counter() for lang in LANGUAGES}
    for case, _, kind in scored():
        counts[case.language][kind] += 1
    for lang in LANGUAGES:
        c = counts[lang]
        total = sum(c.values())
        print(f"\nunseen [{lang}]: {total} turns, exact {c['exact']} "
              f"({c['exact'] / total:.1%}), unread {c['unread']}, other {c['other']}, "
              f"wrong {c['wrong']}")
    for case, actual, kind in scored():
        if kind != "exact":
            print(f"  {kind} {case.source} [{case.language}] {case.text!r}\n"
                  f"    want {case.expected}\n    got  {actual}")
    return counts


def test_unseen_size() -> None:
    cases = unseen_cases()
    assert len(cases) >= 150
    by_lang = Counter(c.language for c in cases)
    assert set(by_lang) == set(LANGUAGES)
    assert min(by_lang.values()) >= 0.45 * len(cases)
    assert {c.source.split("/")[0] for c in cases} == set(DOMAINS)
    assert sum(c.expected is None for c in cases) >= len(cases) // 4


def test_unseen_exact() -> None:
    counts = figures()
    for lang in LANGUAGES:
        assert counts[lang]["exact"] >= UNSEEN_EXACT[lang], (
            f"unseen exact [{lang}] fell to {counts[lang]['exact']} from {UNSEEN_EXACT[lang]}")
    exact = sum(counts[lang]["exact"] for lang in LANGUAGES)
    assert exact / len(scored()) >= UNSEEN_EXACT_SHARE


def test_unseen_no_wrong_call() -> None:
    wrong = [f"{c.source} {c.text!r}" for c, _a, kind in scored() if kind == "wrong"]
    assert not wrong, wrong
