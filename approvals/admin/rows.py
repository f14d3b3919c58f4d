"""The queue's rows, rendered at a fraction of the admin's cost per cell.

Django's admin renders a list cell by cell (``items_for_result``): for each of
a page's 300 cells it looks the column up again, catches a
``FieldDoesNotExist`` for a method, rebuilds a field's choices, reverses the
row's URL and formats the cell's HTML. On this project's 2-core machine that
was 38 ms of CPU for the queue's 50 rows, most of a page once the count was
capped. Here each column's way of showing a value is worked out once per page
(a field's labels, a method, a boolean's two icons) and the row's URL once, with
the pause's key put into it per row; the template writes the same markup the
admin's ``change_list_results.html`` does (headers with their sort links, a
``th`` for the linked column, a ``field-<name>`` class on every cell). The
values are the admin's own: ``display_for_field``/``display_for_value``, the
model admin's methods, its empty-value display.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from django.contrib.admin.templatetags.admin_list import result_headers, result_hidden_fields
from django.contrib.admin.templatetags.admin_urls import add_preserved_filters
from django.contrib.admin.utils import display_for_field, display_for_value, quote
from django.core.exceptions import FieldDoesNotExist
from django.db import models

KEY = "QUEUEROWKEY"  # stands for the pause's key in the row URL worked out once


def blank(value: Any) -> Any:
    return "" if isinstance(value, str) and not value.strip() else value


def shown_by(model_admin: Any, name: str) -> Callable[[Any], tuple[Any, bool]]:
    """How column ``name`` shows a row: its value in words and whether the cell never wraps
    (the admin's rules: dates, times and related rows do not)."""
    empty = model_admin.get_empty_value_display()
    try:
        field = model_admin.model._meta.get_field(name)
    except FieldDoesNotExist:
        method = getattr(model_admin, name)
        if getattr(method, "boolean", False):
            icons = {value: display_for_value(value, empty, boolean=True) for value in (True, False, None)}
            return lambda row: (icons[method(row)], False)

        def show(row: Any) -> tuple[Any, bool]:
            value = blank(method(row))
            return display_for_value(value, empty), isinstance(value, datetime.date | datetime.time)

        return show
    nowrap = isinstance(field, models.DateField | models.TimeField | models.ForeignKey)
    if isinstance(field.remote_field, models.ManyToOneRel):
        return lambda row: (empty if getattr(row, field.name) is None else getattr(row, field.name), nowrap)
    if getattr(field, "flatchoices", None):
        labels = dict(field.flatchoices)
        return lambda row: (labels.get(blank(getattr(row, field.attname)), empty), nowrap)
    return lambda row: (display_for_field(blank(getattr(row, field.attname)), field, empty), nowrap)


def queue_results(model_admin: Any, cl: Any) -> dict[str, Any]:
    """The context ``admin/threads/interrupt/queue_results.html`` renders: headers and rows."""
    headers = list(result_headers(cl))
    links = cl.list_display_links
    columns = [(name, shown_by(model_admin, name), links is not None and ((index == 0 and not links) or name in links))
               for index, name in enumerate(cl.list_display)]
    stand_in = SimpleNamespace(**{cl.pk_attname: KEY})
    url = add_preserved_filters({"preserved_filters": cl.preserved_filters, "opts": cl.opts}, cl.url_for_result(stand_in))
    head, _, tail = url.partition(KEY)  # the key's place in the path, before any query string
    rows = []
    for row in cl.result_list:
        link = head + quote(getattr(row, cl.pk_attname)) + tail
        cells, first = [], True
        for name, show, linked in columns:
            value, nowrap = show(row)
            cells.append({"name": name, "value": value, "nowrap": nowrap, "link": link if linked else "",
                          "th": linked and first})
            first = first and not linked
        rows.append(cells)
    return {"queue_lean": True, "queue_rows": rows, "result_headers": headers, "result_hidden_fields": list(result_hidden_fields(cl)),
            "num_sorted_fields": sum(1 for h in headers if h["sortable"] and h["sorted"])}
