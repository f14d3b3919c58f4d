"""The queue's rows, cell for cell as Django's change list writes them, for less.

Django's ``items_for_result`` costs about 30 µs a cell whatever the cell holds
(the column looked up again on every row, the empty value's words, a
``format_html`` per cell) and, on a filtered list, resolves every row's link
again to decide which filters it keeps: at 50 rows of 8 columns, about half of
the queue page's time (bench/console.py, docs/decisions.md). Here each column
is looked up once per page, the preserved filters are added to the link once,
and a row is one string. The markup is Django's own for the kinds of column
the queue has (the action checkbox, the model admin's display methods, fields
with choices); a column of another kind, a popup or an editable list goes
through Django's ``results`` unchanged. ``tests/approvals/test_console_list.py``
checks the two against each other.
"""

from __future__ import annotations

import datetime
import functools
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import quote as url_quote
from urllib.parse import urlsplit

from django.contrib.admin.templatetags.admin_list import ResultList, result_headers, result_hidden_fields, results
from django.contrib.admin.templatetags.admin_urls import add_preserved_filters
from django.contrib.admin.utils import display_for_field, display_for_value, quote
from django.db import models
from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils.html import conditional_escape
from django.utils.http import RFC3986_SUBDELIMS
from django.utils.safestring import mark_safe

Read = Callable[[Any], tuple[str, bool]]  # a row's cell as shown, and whether it must not wrap
MARK = "row-0key0"


@functools.lru_cache(maxsize=64)
def _around(name: str, current_app: str | None, script_prefix: str, urlconf: Any) -> tuple[str, str]:
    head, _, tail = reverse(name, args=(MARK,), current_app=current_app, urlconf=urlconf).partition(MARK)
    return head, tail


def row_url(name: str, pk: Any, current_app: str | None = None) -> str:
    """``reverse(name, args=(quote(pk),))`` for one row of many: the address reversed once per
    name, the row's key put in as Django's resolver puts it (the admin's quoting, then the path's)."""
    head, tail = _around(name, current_app, get_script_prefix(), get_urlconf())
    return head + url_quote(quote(str(pk)), safe=RFC3986_SUBDELIMS + "/~:@") + tail


def _method_cell(attr: Any, empty: str) -> Read:
    empty = getattr(attr, "empty_value_display", empty)
    boolean = getattr(attr, "boolean", False)

    def cell(result: Any) -> tuple[str, bool]:
        value = attr(result)
        if isinstance(value, str) and value.strip() == "":
            value = ""
        return display_for_value(value, empty, boolean), isinstance(value, (datetime.date, datetime.time))
    return cell


def _field_cell(field: models.Field[Any, Any], empty: str, linked: bool) -> Read:
    nowrap = isinstance(field, (models.DateField, models.TimeField, models.ForeignKey))

    def cell(result: Any) -> tuple[str, bool]:
        value = getattr(result, field.attname)
        if isinstance(value, str) and value.strip() == "":
            value = ""
        return display_for_field(value, field, empty, avoid_link=linked), nowrap
    return cell


def _columns(cl: Any) -> list[tuple[str, Read, bool]] | None:
    """Each column's name, how to read its cell, and whether it links to the pause; None when
    a column is of a kind this does not write (Django's own rows are then used)."""
    admin = cl.model_admin
    empty = admin.get_empty_value_display()
    fields = {f.name: f for f in cl.lookup_opts.concrete_fields}
    links = cl.list_display_links
    out = []
    for index, name in enumerate(cl.list_display):
        if not isinstance(name, str):
            return None
        linked = links is not None and ((index == 0 and not links) or name in links)
        if name in fields and not fields[name].is_relation:
            out.append((name, _field_cell(fields[name], empty, linked), linked))
        elif name not in fields and callable(getattr(admin, name, None)):
            out.append((name, _method_cell(getattr(admin, name), empty), linked))
        else:
            return None
    return out


def queue_results(cl: Any) -> Iterator[ResultList]:
    """The rows of ``cl.result_list`` as ``change_list_results.html`` iterates them."""
    columns = _columns(cl)
    if columns is None or cl.formset or cl.is_popup or cl.to_field:
        yield from results(cl)
        return
    query = urlsplit(add_preserved_filters({"preserved_filters": cl.preserved_filters, "opts": cl.opts},
                                           cl.url_for_result(cl.result_list[0]))).query if cl.result_list else ""
    name = f"admin:{cl.opts.app_label}_{cl.opts.model_name}_change"
    site = cl.model_admin.admin_site.name
    for result in cl.result_list:
        cells, first = [], True
        for column, read, linked in columns:
            shown, nowrap = read(result)
            classes = "action-checkbox" if column == "action_checkbox" else f"field-{column}"
            if nowrap:
                classes += " nowrap"
            shown = conditional_escape(shown)
            if linked:
                tag = "th" if first else "td"
                first = False
                url = row_url(name, result.pk, site)
                href = conditional_escape(f"{url}?{query}" if query else url)
                cells.append(f'<{tag} class="{classes}"><a href="{href}">{shown}</a></{tag}>')
            else:
                cells.append(f'<td class="{classes}">{shown}</td>')
        yield ResultList(None, [mark_safe("".join(cells))])


def queue_result_list(cl: Any) -> dict[str, Any]:
    """Django's ``result_list`` context with the rows above."""
    headers = list(result_headers(cl))
    return {"cl": cl, "result_hidden_fields": list(result_hidden_fields(cl)), "result_headers": headers,
            "num_sorted_fields": sum(1 for h in headers if h["sortable"] and h["sorted"]),
            "results": list(queue_results(cl))}
