"""Inserting a row whose primary key may be taken, in one statement."""

from __future__ import annotations

from django.db import connection, models


def insert_new(obj: models.Model) -> bool:
    """Insert ``obj``'s row unless its primary key is taken: ``INSERT ...
    ON CONFLICT (pk) DO NOTHING RETURNING pk``, which PostgreSQL and SQLite
    (3.35+) both read. True when this call stored it (``obj`` is then saved,
    as ``create`` leaves it); False when the row was there, left as it was.

    It does what ``get_or_create`` does in one statement instead of four (a
    read, then a savepoint around the insert), in the caller's transaction;
    a row another transaction is inserting is waited for, as a unique index
    makes any insert wait."""
    meta, qn = obj._meta, connection.ops.quote_name
    fields = meta.concrete_fields
    values = [f.get_db_prep_save(f.pre_save(obj, True), connection) for f in fields]
    key = qn(meta.pk.column)
    sql = (f"INSERT INTO {qn(meta.db_table)} ({', '.join(qn(f.column) for f in fields)}) "
           f"VALUES ({', '.join(['%s'] * len(fields))}) ON CONFLICT ({key}) DO NOTHING RETURNING {key}")
    with connection.cursor() as cursor:
        cursor.execute(sql, values)
        stored = cursor.fetchone() is not None
    if stored:
        obj._state.adding, obj._state.db = False, connection.alias
    return stored
