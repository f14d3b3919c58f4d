"""Withdrawals and the language setting are read once per process and read
again after any change in any process (catalogue.stored): no SQL per turn on a
warm copy, and a withdrawal refused from its commit on, an approved pause
included. Run with REDIS_URL, the shared token lives in Redis; without, in
files in the data folder."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from django.conf import settings
from django.core.cache import caches
from django.db import connection, transaction

from catalogue import registry, stored
from catalogue.check import SENTENCE_WITHDRAWN
from catalogue.models import AgentSetting, Withdrawal
from catalogue.services import withdrawal_create, withdrawal_delete
from examples.shop import tools as shop
from tests.catalogue.conftest import REPO, free_port
from tests.conftest import SHOP

pytestmark = pytest.mark.django_db(transaction=True)  # real commits, as in production


def shop_agent() -> Any:
    return registry.get_agent("Shop")


def warm(django_assert_num_queries: Any) -> None:
    """Read once, then prove the next reads are served from this process's copy."""
    registry.withdrawn_tools(shop_agent())
    registry.choose_language(shop_agent())
    with django_assert_num_queries(0):
        registry.withdrawn_tools(shop_agent())
        registry.choose_language(shop_agent())


def archive_is_planned(desk: Any, thread: str) -> bool:
    reply = desk.say(thread, "archive order 4412")
    return [p.get("tool") for p in reply.waiting] == ["archive_order"]


def test_the_shared_cache_is_redis_with_redis_url_else_files() -> None:
    # So a run with REDIS_URL exercises the Redis path, one without the files.
    expected = "SharedRedisCache" if settings.REDIS_URL else "FileBasedCache"
    assert type(caches["shared"]).__name__ == expected


def test_a_warm_copy_reads_nothing_from_the_database(desk: Any, django_assert_num_queries: Any) -> None:
    desk.say("t-warm", "show order 4411")
    with django_assert_num_queries(0):
        assert registry.withdrawn_tools(shop_agent()) == shop_agent().withdrawn
        assert registry.choose_language(shop_agent()) == "en"


def test_a_withdrawal_made_after_the_copy_warmed_is_refused_on_the_next_turn(
        desk: Any, django_assert_num_queries: Any) -> None:
    assert archive_is_planned(desk, "t-before")
    warm(django_assert_num_queries)
    withdrawal_create(agent="Shop", tool="archive_order", reason="broken")
    reply = desk.say("t-after", "archive order 4412")
    assert reply.steps == [] and [p["kind"] for p in reply.waiting] == ["delegate"]


def test_a_pause_approved_after_the_withdrawal_is_refused(desk: Any, django_assert_num_queries: Any) -> None:
    pause = desk.say("t-late", "archive order 4412").waiting[0]
    assert pause["tool"] == "archive_order"
    warm(django_assert_num_queries)
    withdrawal_create(agent="Shop", tool="archive_order", reason="broken")
    reply = desk.resume("t-late", pause["id"], "approve", pause["token"])
    assert reply.refusals == [{"tool": "archive_order", "rule": "withdrawn", "step": 1,
                               "sentence": SENTENCE_WITHDRAWN.format(tool="Archive order")}]
    assert shop.get_order("4412")["status"] == "paid"


def test_deleting_a_withdrawal_restores_the_tool(desk: Any, django_assert_num_queries: Any) -> None:
    withdrawal_create(agent="Shop", tool="archive_order", reason="broken")
    assert not archive_is_planned(desk, "t-withdrawn")
    warm(django_assert_num_queries)
    withdrawal_delete(agent="Shop", tool="archive_order")
    assert archive_is_planned(desk, "t-restored")


def test_a_language_setting_change_takes_effect(desk: Any, django_assert_num_queries: Any) -> None:
    setting = AgentSetting.objects.create(agent="Shop", language="")
    assert "visa-0019" in desk.say("t-en", "show order 4411").text
    warm(django_assert_num_queries)
    setting.language = "pt-BR"
    setting.save(update_fields=["language"])  # as the admin's list saves it
    assert registry.choose_language(shop_agent()) == "pt-BR"
    assert "visa-0019" in desk.say("t-pt", "mostre o pedido 4411").text


@pytest.mark.parametrize("write", ["create", "update", "bulk_create", "queryset_delete", "admin"])
def test_every_write_path_is_seen(write: str, django_assert_num_queries: Any, admin_client: Any) -> None:
    if write in ("update", "queryset_delete"):
        Withdrawal.objects.create(agent="Shop", tool="get_order")
    warm(django_assert_num_queries)
    write_it = {
        "create": lambda: Withdrawal.objects.create(agent="Shop", tool="archive_order"),
        "update": lambda: Withdrawal.objects.filter(tool="get_order").update(tool="archive_order"),
        "bulk_create": lambda: Withdrawal.objects.bulk_create([Withdrawal(agent="Shop", tool="archive_order")]),
        "queryset_delete": lambda: Withdrawal.objects.filter(agent="Shop").delete(),
        "admin": lambda: admin_client.post("/admin/catalogue/tool/withdraw/", {
            "agent": "Shop", "tool": "archive_order", "reason": "broken"}),
    }[write]
    write_it()
    withdrawn = registry.withdrawn_tools(shop_agent())
    assert ("archive_order" in withdrawn) is (write != "queryset_delete")
    assert "get_order" not in withdrawn


def test_the_language_is_seen_after_a_queryset_update(django_assert_num_queries: Any) -> None:
    AgentSetting.objects.create(agent="Shop", language="")
    warm(django_assert_num_queries)
    AgentSetting.objects.filter(agent="Shop").update(language="pt-BR")
    assert registry.choose_language(shop_agent()) == "pt-BR"


# --- Another process ------------------------------------------------------------


class Peer:
    """tests/catalogue/stored_peer.py on this test's database and shared cache."""

    def __init__(self) -> None:
        db = connection.settings_dict
        if connection.vendor == "sqlite":
            url = f"sqlite:///{db['NAME']}"
        else:
            url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
        env = {**os.environ, "DATABASE_URL": url, "STALWART_DATA_DIR": str(settings.DATA_DIR),
               "STALWART_AGENT_FILE": str(SHOP), "DJANGO_SETTINGS_MODULE": "stalwart_site.settings"}
        self.proc = subprocess.Popen([sys.executable, "-m", "tests.catalogue.stored_peer"], cwd=REPO, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, line: str) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        answer = json.loads(self.proc.stdout.readline())
        assert "error" not in answer, answer
        return dict(answer)

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(30)


@pytest.fixture
def peer() -> Iterator[Peer]:
    other = Peer()
    try:
        yield other
    finally:
        other.close()


def test_a_withdrawal_made_by_another_process_is_refused_here(
        desk: Any, peer: Peer, django_assert_num_queries: Any) -> None:
    pause = desk.say("t-other", "archive order 4412").waiting[0]
    warm(django_assert_num_queries)
    peer.ask("withdraw archive_order")
    assert "archive_order" in registry.withdrawn_tools(shop_agent())
    reply = desk.resume("t-other", pause["id"], "approve", pause["token"])
    assert [r["rule"] for r in reply.refusals] == ["withdrawn"]
    peer.ask("restore archive_order")
    assert archive_is_planned(desk, "t-other-restored")


def test_another_process_sees_a_withdrawal_and_a_language_made_here(peer: Peer) -> None:
    first = peer.ask("read")
    assert "archive_order" not in first["withdrawn"] and first["language"] == "en"
    assert peer.ask("read")["queries"] == 0  # its copy is warm
    withdrawal_create(agent="Shop", tool="archive_order", reason="broken")
    assert "archive_order" in peer.ask("read")["withdrawn"]
    assert peer.ask("read")["queries"] == 0
    AgentSetting.objects.create(agent="Shop", language="pt-BR")
    assert peer.ask("read")["language"] == "pt-BR"
    withdrawal_delete(agent="Shop", tool="archive_order")
    assert "archive_order" not in peer.ask("read")["withdrawn"]


def test_a_second_process_simulated_sees_the_change(django_assert_num_queries: Any) -> None:
    # Another process: its own copy (here, one kept before), the same shared token.
    warm(django_assert_num_queries)
    kept = dict(stored._kept)
    withdrawal_create(agent="Shop", tool="archive_order", reason="broken")
    stored._kept.update(kept)  # this process's copy is dropped on renew; the other's is not
    assert "archive_order" in registry.withdrawn_tools(shop_agent())


# --- Transactions, a lost token, an unreachable cache ------------------------------------


def test_an_uncommitted_change_is_seen_by_its_own_transaction_and_never_kept(
        django_assert_num_queries: Any) -> None:
    withdrawal_create(agent="Shop", tool="archive_order", reason="broken")
    warm(django_assert_num_queries)
    with pytest.raises(RuntimeError), transaction.atomic():
        withdrawal_delete(agent="Shop", tool="archive_order")
        assert "archive_order" not in registry.withdrawn_tools(shop_agent())  # its own view
        raise RuntimeError("rolled back")
    assert "archive_order" in registry.withdrawn_tools(shop_agent())  # the restore never happened


def test_a_change_in_an_open_transaction_is_announced_at_its_commit_never_before(
        django_assert_num_queries: Any) -> None:
    warm(django_assert_num_queries)
    before = caches["shared"].get(stored.TOKEN_KEY)
    with transaction.atomic():
        withdrawal_create(agent="Shop", tool="archive_order", reason="broken")
        assert caches["shared"].get(stored.TOKEN_KEY) == before
    assert caches["shared"].get(stored.TOKEN_KEY) != before
    assert "archive_order" in registry.withdrawn_tools(shop_agent())


@pytest.mark.django_db  # a test's own transaction, never committed: its on-commit callbacks run by hand
def test_inside_a_test_transaction_the_change_is_seen_and_kept_once_its_callbacks_run(
        django_assert_num_queries: Any, django_capture_on_commit_callbacks: Any) -> None:
    warm(django_assert_num_queries)
    with django_capture_on_commit_callbacks(execute=True):
        Withdrawal.objects.create(agent="Shop", tool="archive_order")
    assert "archive_order" in registry.withdrawn_tools(shop_agent())
    with django_assert_num_queries(0):
        assert "archive_order" in registry.withdrawn_tools(shop_agent())
    Withdrawal.objects.create(agent="Shop", tool="get_order")  # its notice waits for a commit that never comes
    with django_assert_num_queries(2):  # so read from the database, and never kept
        assert {"archive_order", "get_order"} <= registry.withdrawn_tools(shop_agent())


def test_a_lost_token_makes_every_copy_read_again(django_assert_num_queries: Any) -> None:
    warm(django_assert_num_queries)
    with connection.cursor() as cursor:  # around Django: no signal, no notice
        cursor.execute("INSERT INTO catalogue_withdrawal (agent, tool, reason, withdrawn_at) "
                       "VALUES ('Shop', 'archive_order', '', CURRENT_TIMESTAMP)")
    caches["shared"].delete(stored.TOKEN_KEY)  # as a Redis restart loses it
    assert "archive_order" in registry.withdrawn_tools(shop_agent())


def test_a_change_made_around_django_is_seen_when_announced_or_after_keep_seconds(
        django_assert_num_queries: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [1000.0]
    monkeypatch.setattr(stored, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    warm(django_assert_num_queries)
    with connection.cursor() as cursor:
        cursor.execute("INSERT INTO catalogue_withdrawal (agent, tool, reason, withdrawn_at) "
                       "VALUES ('Shop', 'archive_order', '', CURRENT_TIMESTAMP)")
    assert "archive_order" not in registry.withdrawn_tools(shop_agent())  # no notice yet: the copy
    clock[0] += stored.KEEP_SECONDS
    assert "archive_order" in registry.withdrawn_tools(shop_agent())
    with connection.cursor() as cursor:  # around Django again, then announced
        cursor.execute("DELETE FROM catalogue_withdrawal")
    stored.changed()
    assert "archive_order" not in registry.withdrawn_tools(shop_agent())


@pytest.fixture
def unreachable_cache(settings: Any) -> None:
    settings.CACHES = {**settings.CACHES, "shared": {
        "BACKEND": "catalogue.stored.SharedRedisCache", "LOCATION": f"redis://127.0.0.1:{free_port()}/0",
        "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1}}}


def test_an_unreachable_cache_reads_the_database_every_time(
        desk: Any, django_assert_num_queries: Any, unreachable_cache: None, caplog: Any) -> None:
    with caplog.at_level(logging.WARNING, logger="stalwart.catalogue"):
        assert archive_is_planned(desk, "t-down")
        with django_assert_num_queries(2):  # nothing kept: the rows, every call
            registry.withdrawn_tools(shop_agent())
        withdrawal_create(agent="Shop", tool="archive_order", reason="broken")  # its notice fails: logged
        assert not archive_is_planned(desk, "t-down-withdrawn")
    assert any(r.levelno == logging.ERROR for r in caplog.records)
    assert any("cannot be reached" in r.getMessage() for r in caplog.records if r.levelno == logging.WARNING)
