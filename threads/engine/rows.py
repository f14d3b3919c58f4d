"""The engine's hottest reads, written out once and made into model instances
as Django makes them.

Django compiles a queryset into SQL each time it runs; for the few reads on
every pause and resume, compiling took longer than running them (a run's steps
with their verdicts: 4.2 ms through the ORM, 0.9 ms written out). These reads
are written once from the models' own table and column names, and each row is
made into instances with ``Model.from_db`` after the same converters the ORM
applies (``docs/decisions.md``: "The hot reads are written out").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

from django.db import connection
from django.db.models import Model


class Columns:
    """A model's concrete columns under a table alias in a hand-written SELECT."""

    def __init__(self, model: type[Model], alias: str) -> None:
        self.model, self.alias = model, alias
        self.fields = list(model._meta.concrete_fields)
        self.attnames = [f.attname for f in self.fields]
        self.pk_at = self.fields.index(model._meta.pk)

    def __len__(self) -> int:
        return len(self.fields)

    @property
    def table(self) -> str:
        """``"table" alias``, for FROM and JOIN."""
        return f"{connection.ops.quote_name(self.model._meta.db_table)} {self.alias}"

    def col(self, name: str) -> str:
        """``alias."column"`` of the field ``name``."""
        return f"{self.alias}.{connection.ops.quote_name(self.model._meta.get_field(name).column)}"

    def select(self) -> str:
        return ", ".join(self.col(f.name) for f in self.fields)

    def load(self, values: Sequence[Any]) -> Model | None:
        """The instance, as the ORM would make it; None for a LEFT JOIN that found no row."""
        if values[self.pk_at] is None:
            return None
        values = list(values)
        for i, expression, converters in _converters(self, connection.vendor):
            for convert in converters:
                values[i] = convert(values[i], expression, connection)
        return self.model.from_db(connection.alias, self.attnames, values)


@cache
def _converters(columns: Columns, vendor: str) -> list[tuple[int, Any, list[Callable[..., Any]]]]:
    """Per column, what the ORM runs on a value read (the backend's and the field's own)."""
    out = []
    for i, field in enumerate(columns.fields):
        expression = field.get_col(columns.alias)
        converters = connection.ops.get_db_converters(expression) + expression.get_db_converters(connection)
        if converters:
            out.append((i, expression, converters))
    return out


def read(sql: str, params: Sequence[Any], parts: Sequence[Columns]) -> list[list[Any]]:
    """Run ``sql``, whose SELECT lists ``parts``' columns in order and then
    any others; each row as its instances (one per part) and the other values."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    out = []
    for row in rows:
        made: list[Any] = []
        at = 0
        for part in parts:
            made.append(part.load(row[at:at + len(part)]))
            at += len(part)
        out.append(made + list(row[at:]))
    return out


def statement(build: Callable[[], str]) -> Callable[[], str]:
    """``build``'s SQL, made once per database vendor."""
    made: dict[str, str] = {}

    def sql() -> str:
        if connection.vendor not in made:
            made[connection.vendor] = build()
        return made[connection.vendor]

    return sql
