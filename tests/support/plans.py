"""The database's plan for a query, to check which index it takes."""

from __future__ import annotations

from django.db import connection


def plan_of(sql: str, *, no_sort: bool = False) -> str:
    """The plan for ``sql``; ``no_sort``: as PostgreSQL plans it when a sort is ruled out."""
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("EXPLAIN QUERY PLAN " + sql)
            return "\n".join(str(row[-1]) for row in cursor.fetchall())
        cursor.execute(f"SET enable_sort = {'off' if no_sort else 'on'}")
        try:
            cursor.execute("EXPLAIN " + sql)
            return "\n".join(str(row[0]) for row in cursor.fetchall())
        finally:
            cursor.execute("RESET enable_sort")
