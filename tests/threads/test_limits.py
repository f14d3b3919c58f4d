"""Service tier: wrong guesses counted per client address in the database
(``threads.limits``, issue 26), the count every worker sees."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from threads.limits import Limit, guess_record, guesses_wait
from threads.models import WrongGuess

pytestmark = pytest.mark.django_db

LIMIT = Limit(scope="operator", per_client=3)


def test_a_client_is_held_at_its_limit_and_not_before():
    for _ in range(LIMIT.per_client - 1):
        guess_record(limit=LIMIT, client="10.0.0.1")
    assert guesses_wait(limit=LIMIT, client="10.0.0.1") == 0
    guess_record(limit=LIMIT, client="10.0.0.1")
    assert 1 <= guesses_wait(limit=LIMIT, client="10.0.0.1") <= 60


def test_the_twin_another_address_and_another_scope_are_not_held():
    for _ in range(LIMIT.per_client):
        guess_record(limit=LIMIT, client="10.0.0.1")
    assert guesses_wait(limit=LIMIT, client="10.0.0.2") == 0
    assert guesses_wait(limit=Limit(scope="pairing", per_client=3), client="10.0.0.1") == 0


def test_tries_that_left_the_window_no_longer_count_and_old_rows_are_pruned():
    for _ in range(LIMIT.per_client):
        guess_record(limit=LIMIT, client="10.0.0.1")
    WrongGuess.objects.update(created_at=timezone.now() - timedelta(seconds=61))
    assert guesses_wait(limit=LIMIT, client="10.0.0.1") == 0
    WrongGuess.objects.update(created_at=timezone.now() - timedelta(minutes=11))
    guess_record(limit=LIMIT, client="10.0.0.9")
    assert list(WrongGuess.objects.values_list("client", flat=True)) == ["10.0.0.9"]


def test_since_counts_only_tries_after_it():
    for _ in range(LIMIT.per_client):
        guess_record(limit=LIMIT, client="10.0.0.1")
    assert guesses_wait(limit=LIMIT, client="10.0.0.1", since=timezone.now()) == 0
    assert guesses_wait(limit=LIMIT, client="10.0.0.1", since=timezone.now() - timedelta(seconds=30)) > 0
