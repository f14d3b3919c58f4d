"""The console's queue at scale (issue 15): what an operator reads, in what order,
in how many queries, and through which index.

The count stops at ``COUNT_CAP`` (10,000): below it the queue says exactly how
many pauses, above it "More than 10,000 pauses", in English and pt-BR. The
pages go on past the cap while rows do; the links end in "…" until the last
page is reached."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from approvals.admin.paging import COUNT_CAP
from tests.approvals.builders import make_open_pauses
from tests.support.plans import plan_of
from tests.support.staff import make_staff
from threads.models import Interrupt

pytestmark = pytest.mark.django_db

QUEUE = "/admin/threads/interrupt/"
OVER = COUNT_CAP + 60  # 201 full pages and one of 10


def rows(page: str) -> list[int]:
    """The bulk pauses a page lists, by number (p-bulk-N is the Nth oldest)."""
    return [int(n) for n in re.findall(r'href="/admin/threads/interrupt/p-bulk-(\d+)/change/', page)]


def paginator(page: str) -> list[str]:
    """The page links and the count, as words (ellipsis included)."""
    # Django's own markup: <p class="paginator"> in 5.2; <nav class="paginator"> with a hidden heading in 6.
    block = re.search(r'<(p|nav) class="paginator"[^>]*>(.*?)</\1>', page, re.S)
    assert block, "the queue has a paginator"
    shown = re.sub(r'<h2[^>]*class="visually-hidden"[^>]*>.*?</h2>', "", block.group(2), flags=re.S)
    return [t.strip() for t in re.split(r"<[^>]+>|\n", shown) if t.strip()]


def get(client: Client, path: str) -> str:
    response = client.get(path)
    assert response.status_code == 200, (path, response.status_code)
    return response.content.decode()


@pytest.fixture
def over_the_cap() -> None:
    make_open_pauses(OVER)


def test_a_short_queue_says_exactly_how_many_in_both_languages() -> None:
    make_open_pauses(3, threads=3)
    assert paginator(get(make_staff(), QUEUE)) == ["3 pauses"]
    assert paginator(get(make_staff("bia", language="pt-BR"), QUEUE)) == ["3 pausas"]
    Interrupt.objects.exclude(pk="p-bulk-0").update(status=Interrupt.Status.ANSWERED)
    assert paginator(get(make_staff("caio"), QUEUE)) == ["1 pause"]


def test_over_the_cap_the_queue_says_more_than_10000_in_both_languages(over_the_cap: None) -> None:
    assert paginator(get(make_staff(), QUEUE)) == ["1", "2", "3", "4", "…", "More than 10,000 pauses"]
    page = get(make_staff("bia", language="pt-BR"), QUEUE)
    assert paginator(page) == ["1", "2", "3", "4", "…", "Mais de 10.000 pausas"]
    # No count that was never made, in what the page says (its attributes hold the rows'
    # tokens, hex digests that may hold "10000" by chance: once in CI).
    said = re.sub(r"<[^>]+>", " ", page)
    assert "10000" not in said and "10001" not in said


def test_the_pages_read_oldest_first_past_the_cap_to_the_last_one(over_the_cap: None) -> None:
    staff = make_staff()
    assert rows(get(staff, QUEUE)) == list(range(0, 50))
    assert rows(get(staff, QUEUE + "?p=2")) == list(range(50, 100))
    # Page 201 holds the 10,001st pause: the cap's count vouches for it; one more row read
    # shows a page 202 exists, and nothing yet says it is the last.
    page = get(staff, QUEUE + "?p=201")
    assert rows(page) == list(range(10_000, 10_050))
    assert paginator(page)[-5:] == ["200", "201", "202", "…", "More than 10,000 pauses"]
    # The last page: ten rows, no link past it, no "…" after it.
    last = get(staff, QUEUE + "?p=202")
    assert rows(last) == list(range(10_050, 10_060))
    assert paginator(last)[-4:] == ["200", "201", "202", "More than 10,000 pauses"]
    # Past the last page: Django's answer to a page that does not exist (back to the list).
    assert staff.get(QUEUE + "?p=203").status_code == 302


def test_newest_first_is_the_same_index_read_backwards(over_the_cap: None) -> None:
    staff = make_staff()
    with CaptureQueriesContext(connection) as queries:
        page = get(staff, QUEUE + "?o=-5")  # the age column, descending
    assert rows(page) == list(range(OVER - 1, OVER - 51, -1))
    listing = [q["sql"] for q in queries.captured_queries if "LIMIT 50" in q["sql"]]
    assert listing and listing[0].endswith(
        'ORDER BY "threads_interrupt"."created_at" DESC, "threads_interrupt"."id" DESC LIMIT 50')


def test_the_filters_show_their_pauses_only_and_count_them() -> None:
    make_open_pauses(200, threads=20)
    Interrupt.objects.filter(pk__in=["p-bulk-7", "p-bulk-150"]).update(agent="Desk", kind=Interrupt.Kind.ASK)
    Interrupt.objects.filter(pk="p-bulk-9").update(status=Interrupt.Status.ANSWERED)
    staff = make_staff()
    page = get(staff, QUEUE + "?agent=Desk")
    assert rows(page) == [7, 150] and paginator(page) == ["2 pauses"]
    assert rows(get(staff, QUEUE + "?kind=ask&agent=Desk")) == [7, 150]
    assert rows(get(staff, QUEUE + "?kind=confirm"))[:9] == [0, 1, 2, 3, 4, 5, 6, 8, 10]
    assert rows(get(staff, QUEUE + "?status=answered")) == [9]
    everything = get(staff, QUEUE + "?status=all&p=1")
    assert rows(everything) == list(range(0, 50)) and paginator(everything) == ["1", "2", "3", "4", "200 pauses", "Show all"]
    searched = get(staff, QUEUE + "?q=bulk-3")
    assert rows(searched) == list(range(3, 200, 20))
    assert "10 results" in searched and paginator(searched) == ["10 pauses"]


def test_a_page_of_the_queue_costs_seven_queries_past_the_cap(over_the_cap: None,
                                                             django_assert_num_queries: Any) -> None:
    staff = make_staff()
    # The session, the user, the password check, the permissions (two), the count (stopped at
    # the cap) and the page's rows: never a COUNT of the whole table, never one query per row.
    for path, statements in ((QUEUE, 7), (QUEUE + "?p=2", 7), (QUEUE + "?p=202", 7),
                             (QUEUE + "?agent=Shop&kind=confirm", 7), (QUEUE + "?status=all", 7),
                             (QUEUE + "?q=bulk-3", 8),  # + the keys of every session's thread of that id
                             (QUEUE + "?o=-5", 7)):
        with django_assert_num_queries(statements):
            response = staff.get(path)
        assert response.status_code == 200, path


def test_each_filter_reads_its_rows_off_an_index_in_order() -> None:
    make_open_pauses(10_000)  # a history: the oldest 8,000 answered, 2,000 open
    cut = Interrupt.objects.get(pk="p-bulk-8000").created_at
    Interrupt.objects.filter(created_at__lt=cut).update(status=Interrupt.Status.ANSWERED)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:  # the statistics autovacuum keeps
            cursor.execute("ANALYZE threads_interrupt")
    staff = make_staff()
    for path, index in ((QUEUE, "interrupt_queue"), (QUEUE + "?o=-5", "interrupt_queue"),
                        (QUEUE + "?agent=Nobody", "interrupt_queue_agent"),
                        (QUEUE + "?kind=saga_stuck", "interrupt_queue_kind"),
                        (QUEUE + "?status=all", "interrupt_queue_all"),
                        (QUEUE + "?q=bulk-3", "interrupt_thread_open"),
                        (QUEUE + "?q=refund_card", "interrupt_queue_tool")):
        with CaptureQueriesContext(connection) as queries:
            get(staff, path)
        count, listing = [q["sql"] for q in queries.captured_queries if 'FROM "threads_interrupt"' in q["sql"]]
        # The count stops at the cap. (Where every pause matches, PostgreSQL may read those
        # 10,001 rows off the table rather than an index: bounded all the same.)
        assert "LIMIT 10001" in count, path
        counted = plan_of(count)
        assert "Limit" in counted if connection.vendor == "postgresql" else "USING COVERING INDEX" in counted, counted
        natural = plan_of(listing) + "\n"  # the rows: never a scan of the table
        assert "Seq Scan on threads_interrupt" not in natural and "SCAN threads_interrupt\n" not in natural, \
            (path, natural)
        # The rows come off the index in the page's order: no sort (SQLite's TEMP B-TREE, a Sort node).
        shown = plan_of(listing, no_sort=True)
        # (A row's step index is a correlated lookup by primary key: a line of its own in the plan.)
        assert f"INDEX {index} " in shown.replace("\n", " ") + " " or f"using {index} on" in shown, (path, shown)
        assert "TEMP B-TREE" not in shown and "Sort" not in shown, (path, shown)
