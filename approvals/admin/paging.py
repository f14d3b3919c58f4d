"""The queue's pages: an exact count up to a cap, "more than" above it.

Django's admin asks its paginator for ``count`` on every page of a list, and a
``COUNT(*)`` of open pauses reads every one of them: 93 ms of a 114 ms page at
100,000 open pauses on PostgreSQL. ``QueuePaginator`` counts at most
``COUNT_CAP + 1`` rows (a ``LIMIT`` under the count, read off an index), so a
page costs the same whatever the queue's length. Up to the cap the count is
exact; above it the page says "more than 10,000 pauses", which is true, rather
than a planner's estimate, which may be far off between two ``ANALYZE``s.
The queue's templates include Django's own pagination and search form; only
the count they read changes (``QueueChangeList.counted``), and a capped count
is left out of the search form, whose words need a number.

Above the cap the pages go on as long as there are rows: the pages up to the
cap are known to exist; from there each page reads one row more than it shows,
to know whether a next page exists. The page links end with "…" (more may
follow) rather than with a last page nobody counted.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.contrib.admin.views.main import ChangeList
from django.core.paginator import EmptyPage, Page, Paginator
from django.db import connections
from django.utils.formats import number_format
from django.utils.functional import cached_property
from django.utils.translation import gettext

COUNT_CAP = 10_000


class QueuePaginator(Paginator):
    cap = COUNT_CAP

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.last_known = 0  # the last page known to exist beyond the cap's pages (0: none read)
        self.end_known = False  # a page beyond the cap was read and nothing follows it
        # Also count every open pause (the header's work waiting), in the same statement:
        # set by the queue's admin for a person who may answer; read as ``open_count``.
        self.count_open: Any = None  # a queryset of the open pauses, or None
        self.open_count: int | None = None

    @cached_property
    def count(self) -> int:
        # At most cap + 1 rows, any order: the query stops there, whatever the queue's length.
        limited = self.object_list.order_by().values("pk")[: self.cap + 1]
        if self.count_open is None:
            return int(limited.count())
        if str(limited.query) == str(self.count_open.order_by().values("pk")[: self.cap + 1].query):
            self.open_count = int(limited.count())  # the unfiltered queue: one count is both
            return self.open_count
        # A filtered page: its count and the open pauses' in one statement (no query more).
        mine, mine_params = limited.query.sql_with_params()
        every, every_params = self.count_open.order_by().values("pk")[: self.cap + 1].query.sql_with_params()
        with connections[limited.db].cursor() as cursor:
            cursor.execute(f"SELECT (SELECT COUNT(*) FROM ({mine}) mine), (SELECT COUNT(*) FROM ({every}) every_open)",
                           [*mine_params, *every_params])
            here, everywhere = cursor.fetchone()
        self.open_count = int(everywhere)
        return int(here)

    @property
    def capped(self) -> bool:
        return self.count > self.cap

    def validate_number(self, number: Any) -> int:
        try:
            return int(super().validate_number(number))
        except EmptyPage:
            # Past the counted pages: it exists if it has rows, which page() finds out.
            if self.capped and int(number) > self.num_pages:
                return int(number)
            raise

    def page(self, number: Any) -> Page:
        if not self.capped:
            return super().page(number)
        number = self.validate_number(number)
        bottom = (number - 1) * self.per_page
        if number < self.num_pages:  # the pages the cap's count vouches for, full ones
            return self._get_page(self.object_list[bottom:bottom + self.per_page], number, self)
        rows = list(self.object_list[bottom:bottom + self.per_page + 1])
        if not rows:
            raise EmptyPage(self.error_messages["no_results"])
        self.last_known = number + 1 if len(rows) > self.per_page else number
        self.end_known = len(rows) <= self.per_page
        return self._get_page(rows[:self.per_page], number, self)

    def get_elided_page_range(self, number: Any = 1, *, on_each_side: int = 3, on_ends: int = 2) -> Iterator[Any]:
        if not self.capped:
            yield from super().get_elided_page_range(number, on_each_side=on_each_side, on_ends=on_ends)
            return
        number = self.validate_number(number)
        # As Django's, without a last page: the pages near this one, then "…" while more may follow.
        last = max(self.num_pages, self.last_known)  # the cap's count vouches for num_pages
        if number > 1 + on_each_side + on_ends + 1:
            yield from range(1, on_ends + 1)
            yield self.ELLIPSIS
            yield from range(number - on_each_side, number + 1)
        else:
            yield from range(1, number + 1)
        yield from range(number + 1, min(number + on_each_side, last) + 1)
        if not (self.end_known and number + on_each_side >= last):
            yield self.ELLIPSIS

    def more_than(self) -> str:
        """The capped count in words, as Django's pagination puts it before the list's name."""
        return gettext("More than %(count)s") % {"count": number_format(self.cap, force_grouping=True)}


class _CountInWords:
    """A queue's changelist as Django's own pagination template reads it, its
    ``result_count`` in words ("More than 10,000", then the template's "pauses")."""

    def __init__(self, changelist: ChangeList, words: str) -> None:
        self._changelist = changelist
        self.result_count = words

    def __getattr__(self, name: str) -> Any:
        return getattr(self._changelist, name)


class QueueChangeList(ChangeList):
    """The queue's list, its ties broken in the direction of the order chosen.

    Django breaks a tie with ``-pk`` whatever the order, so "oldest first" read
    ``created_at ASC, id DESC``: an order no index holds. Here a tie follows
    the column clicked (``created_at, id`` or ``-created_at, -id``; a thread's
    pauses by age), which the indexes of ``threads.Interrupt`` hold both ways.
    """

    TIES = {"created_at": ("id",), "thread_id": ("created_at", "id")}

    @property
    def counted(self) -> Any:
        """This list for Django's pagination template: itself, or past the cap its count in words."""
        paginator = self.paginator
        return _CountInWords(self, paginator.more_than()) if paginator.capped else self

    def get_ordering(self, request: Any, queryset: Any) -> list[Any]:
        # Without the model admin's own order appended after a column clicked: the ties below
        # then follow that column's direction.
        return list(super().get_ordering(request, queryset.order_by()))

    def _get_deterministic_ordering(self, ordering: list[Any]) -> list[Any]:
        ordering = list(ordering)
        last = ordering[-1] if ordering and isinstance(ordering[-1], str) else ""
        named = {"id" if o.lstrip("-") == "pk" else o.lstrip("-") for o in ordering if isinstance(o, str)}
        for tie in self.TIES.get(last.lstrip("-"), ()):
            if tie not in named:
                ordering.append(("-" if last.startswith("-") else "") + tie)
        return list(super()._get_deterministic_ordering(ordering))
