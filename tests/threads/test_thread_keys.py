"""Threads per session: keys (pure) and the migration that moves every
existing thread, its rows with it, to its key."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from threads.keys import KEY_RE, NAME_RE, thread_key, thread_name

BEFORE = [("threads", "0011_wrong_guess"), ("approvals", "0009_operators_read_feedback")]
AFTER = [("threads", "0014_thread_keys_moved"), ("approvals", "0010_thread_keys")]


def test_a_key_is_the_id_and_the_session_and_reads_back_as_the_id():
    mine, theirs = thread_key("u-17", "a" * 64), thread_key("u-17", "b" * 64)
    assert mine != theirs and mine.startswith("u-17~") and len(mine) == len("u-17~") + 16
    assert thread_name(mine) == thread_name(theirs) == thread_name("u-17") == "u-17"
    assert KEY_RE.match(mine) and KEY_RE.match("u-17") and not NAME_RE.match(mine)
    assert not KEY_RE.match("u-17~xyz") and not KEY_RE.match(mine + "0")
    assert thread_key("x" * 128, "a" * 64) and KEY_RE.match(thread_key("x" * 128, "a" * 64))


def migrate(targets: list[tuple[str, str]]) -> object:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.mark.skipif(connection.vendor != "sqlite", reason="migrating back would take tables from under the "
                    "servers that share this PostgreSQL database")
@pytest.mark.django_db(transaction=True)
def test_the_migration_moves_each_thread_and_its_rows_to_its_key_and_back():
    old = migrate(BEFORE)
    thread = old.get_model("threads", "Thread").objects.create(id="u-17", session_hash="c" * 64, agent="Shop")
    run = old.get_model("threads", "Run").objects.create(id="r-1", thread=thread, agent="Shop", text="charge")
    old.get_model("threads", "Message").objects.create(id="m-1", thread=thread, run=run, role="person", text="hi")
    old.get_model("threads", "Interrupt").objects.create(id="p-1", thread=thread, run=run, agent="Shop",
                                                          kind="confirm", tool="charge_card", payload={})
    old.get_model("approvals", "McpCall").objects.create(client="local", thread_id="u-17", run_id="r-1",
                                                         tool="charge_card", arguments_hash="h")
    key = thread_key("u-17", "c" * 64)

    new = migrate(AFTER)
    moved = new.get_model("threads", "Thread").objects.get()
    assert (moved.pk, moved.name, moved.session_hash) == (key, "u-17", "c" * 64)
    for model in ("Run", "Message", "Interrupt"):
        assert list(new.get_model("threads", model).objects.values_list("thread_id", flat=True)) == [key], model
    assert new.get_model("approvals", "McpCall").objects.get().thread_id == key

    back = migrate(BEFORE)
    assert list(back.get_model("threads", "Thread").objects.values_list("pk", flat=True)) == ["u-17"]
    assert back.get_model("threads", "Interrupt").objects.get().thread_id == "u-17"
    assert back.get_model("approvals", "McpCall").objects.get().thread_id == "u-17"
    migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())  # every app as the suite had it
