"""Unsafe configuration is refused at start with a clear message and a
non-zero exit, before anything is served (issue 14)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from approvals.webhooks import BLANK_SECRET, SHORT_SECRET, Webhook
from stalwart_site.bootstrap import (
    MINIMUM,
    REFUSED_BLANK,
    REFUSED_SHORT,
    SECRETS,
    UnsafeConfiguration,
    refuse_unsafe,
)
from tests.support.server import ROOT, SHOP, free_port
from threads.strength import MAKE_ONE, MIN_SECRET_BYTES, MIN_TOKEN_CHARACTERS

pytestmark = pytest.mark.server


def serve(data_dir: Path, *args: str, env: dict[str, str] | None = None, port: int | None = None,
          timeout: float = 60) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items()
            if k not in ("STALWART_AGENT_FILE", "DJANGO_SETTINGS_MODULE", "SECRET_KEY", *SECRETS)}
    base.update({"STALWART_DATA_DIR": str(data_dir), **(env or {})})
    return subprocess.run(
        [sys.executable, "-m", "stalwart_site.cli", "serve", str(SHOP), "--port", str(port or free_port()), *args],
        cwd=ROOT, env=base, capture_output=True, text=True, timeout=timeout,
    )


@pytest.mark.parametrize("name", sorted(SECRETS))
@pytest.mark.parametrize("value", ["", "   ", "\t\n"])
def test_a_blank_secret_of_any_kind_is_refused(name, value):
    with pytest.raises(UnsafeConfiguration) as refused:
        refuse_unsafe({name: value})
    assert name in str(refused.value)


def at_least(name: str, extra: int = 0) -> str:
    """A value of exactly the minimum length of ``name`` (plus ``extra``)."""
    return "k" * (MINIMUM[name][0] + extra)


def test_set_secrets_and_unset_ones_are_both_fine():
    refuse_unsafe({name: at_least(name) for name in SECRETS})
    refuse_unsafe({})


def test_the_minimums_are_32_bytes_for_signing_secrets_and_24_characters_for_the_operator_token():
    assert MINIMUM == {"SECRET_KEY": (32, "bytes"), "STALWART_RESUME_SECRET": (32, "bytes"),
                       "STALWART_WEBHOOK_SECRET": (32, "bytes"), "STALWART_CONTEXT_SECRET": (32, "bytes"),
                       "STALWART_OPERATOR_TOKEN": (24, "characters"), "QLS_OPERATOR_TOKEN": (24, "characters")}
    assert (MIN_SECRET_BYTES, MIN_TOKEN_CHARACTERS) == (32, 24)


@pytest.mark.parametrize("name", sorted(SECRETS))
def test_a_secret_one_short_of_its_minimum_is_refused_naming_it_and_the_rule(name):
    minimum, unit = MINIMUM[name]
    with pytest.raises(UnsafeConfiguration) as refused:
        refuse_unsafe({name: at_least(name, -1)})
    assert str(refused.value) == REFUSED_SHORT.format(name=name, what=SECRETS[name], minimum=minimum, unit=unit,
                                                      length=minimum - 1, make=MAKE_ONE)
    refuse_unsafe({name: at_least(name)})  # the twin: exactly the minimum starts


def test_a_signing_secret_is_measured_in_bytes_and_a_webhook_key_as_the_standard_decodes_it():
    refuse_unsafe({"STALWART_CONTEXT_SECRET": "é" * 16})  # 16 characters, 32 bytes of UTF-8
    with pytest.raises(UnsafeConfiguration, match="STALWART_WEBHOOK_SECRET"):
        refuse_unsafe({"STALWART_WEBHOOK_SECRET": "whsec_" + "QUJD" * 8})  # 38 characters, a 24-byte key
    refuse_unsafe({"STALWART_WEBHOOK_SECRET": "whsec_" + "QUJD" * 11})  # a 33-byte key


def test_the_generated_secret_key_and_the_suggested_command_pass(tmp_path):
    from stalwart_site.bootstrap import kept_secret_key

    made = subprocess.run(["python3", "-c", MAKE_ONE.split(" -c ", 1)[1].strip("'")], capture_output=True,
                          text=True, timeout=30, check=True).stdout.strip()
    refuse_unsafe({"SECRET_KEY": kept_secret_key(tmp_path), **{name: made for name in SECRETS}})


@pytest.mark.parametrize("secret", ["s3cret", "whsec_" + "QUJD" * 8])
def test_a_webhook_with_a_short_secret_raises(secret):
    with pytest.raises(ValueError) as refused:
        Webhook("http://127.0.0.1:9/hook", secret)
    assert str(refused.value) == SHORT_SECRET.format(minimum=32, length=len(secret) if "whsec" not in secret else 24,
                                                     make=MAKE_ONE)
    Webhook("http://127.0.0.1:9/hook", "s" * 32)  # the twin


def test_a_webhook_url_without_a_secret_is_refused():
    with pytest.raises(UnsafeConfiguration):
        refuse_unsafe({"STALWART_WEBHOOK_URL": "http://127.0.0.1:9/hook"})


@pytest.mark.parametrize("secret", ["", " ", "\n"])
def test_a_webhook_with_a_blank_secret_raises(secret):
    with pytest.raises(ValueError, match="secret"):
        Webhook("http://127.0.0.1:9/hook", secret)
    assert "blank" in BLANK_SECRET


@pytest.mark.parametrize(("env", "args", "name"), [
    ({"STALWART_RESUME_SECRET": " "}, [], "STALWART_RESUME_SECRET"),
    ({"STALWART_WEBHOOK_SECRET": ""}, [], "STALWART_WEBHOOK_SECRET"),
    ({"STALWART_CONTEXT_SECRET": "\t"}, [], "STALWART_CONTEXT_SECRET"),
    ({"STALWART_OPERATOR_TOKEN": "  "}, [], "STALWART_OPERATOR_TOKEN"),
    ({"SECRET_KEY": " "}, [], "SECRET_KEY"),
    ({}, ["--operator-token", " "], "STALWART_OPERATOR_TOKEN"),
])
def test_serve_refuses_a_blank_secret_with_a_message_and_a_non_zero_exit(tmp_path, env, args, name):
    done = serve(tmp_path, *args, env=env)
    assert done.returncode == 2
    assert "refused to start" in done.stderr and name in done.stderr
    assert "Serving" not in done.stdout


@pytest.mark.parametrize(("env", "args", "name"), [
    ({"STALWART_RESUME_SECRET": "s3cret"}, [], "STALWART_RESUME_SECRET"),
    ({"STALWART_WEBHOOK_SECRET": "s3cret"}, ["--webhook", "http://127.0.0.1:9/hook"], "STALWART_WEBHOOK_SECRET"),
    ({"STALWART_CONTEXT_SECRET": "a"}, [], "STALWART_CONTEXT_SECRET"),
    ({"STALWART_OPERATOR_TOKEN": "a"}, [], "STALWART_OPERATOR_TOKEN"),
    ({"QLS_OPERATOR_TOKEN": "a"}, [], "QLS_OPERATOR_TOKEN"),  # the old name, refused the same way
    ({"SECRET_KEY": "x"}, [], "SECRET_KEY"),
    ({}, ["--operator-token", "a" * 23], "STALWART_OPERATOR_TOKEN"),
])
def test_serve_refuses_a_short_secret_with_its_name_and_the_rule(tmp_path, env, args, name):
    # The hostile test's own values (issue 26): each started a server before.
    done = serve(tmp_path, *args, env=env)
    assert done.returncode == 2
    assert f"refused to start: {name} is too short" in done.stderr
    minimum, unit = MINIMUM[name]
    assert f"at least {minimum} {unit}" in done.stderr and MAKE_ONE in done.stderr
    assert "Serving" not in done.stdout and "Traceback" not in done.stderr


def test_make_app_refuses_a_short_secret():
    from stalwart_site.serve import make_app

    with pytest.raises(UnsafeConfiguration, match="STALWART_RESUME_SECRET is too short"):
        make_app(SHOP, secret="s3cret", migrate=False)


def test_settings_imported_directly_refuse_a_short_secret(tmp_path):
    # A server of a team's own that imports the settings without the bootstrap.
    env = {k: v for k, v in os.environ.items() if k not in ("DJANGO_SETTINGS_MODULE", *SECRETS)}
    env.update({"STALWART_DATA_DIR": str(tmp_path), "SECRET_KEY": "k" * 40})
    code = "import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = 'stalwart_site.settings'; django.setup()"
    fine = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert fine.returncode == 0, fine.stderr
    short = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**env, "STALWART_OPERATOR_TOKEN": "a"},
                           capture_output=True, text=True, timeout=60)
    assert short.returncode == 1 and "ImproperlyConfigured: STALWART_OPERATOR_TOKEN is too short" in short.stderr


@pytest.mark.parametrize(("env", "read"), [
    ({"STALWART_OPERATOR_TOKEN": "n" * 24}, "n" * 24),
    ({"QLS_OPERATOR_TOKEN": "o" * 24}, "o" * 24),  # the old name still works
    ({"STALWART_OPERATOR_TOKEN": "n" * 24, "QLS_OPERATOR_TOKEN": "o" * 24}, "n" * 24),  # the new name wins
    ({}, ""),
])
def test_the_operator_token_is_read_by_its_new_name_and_its_old_one(tmp_path, env, read):
    base = {k: v for k, v in os.environ.items() if k not in ("DJANGO_SETTINGS_MODULE", *SECRETS)}
    base.update({"STALWART_DATA_DIR": str(tmp_path), "SECRET_KEY": "k" * 40, **env})
    code = ("import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = 'stalwart_site.settings'; django.setup(); "
            "from django.conf import settings; print(repr(settings.OPERATOR_TOKEN))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=base, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == repr(read)


def test_make_app_refuses_a_blank_secret():
    from stalwart_site.serve import make_app

    with pytest.raises(UnsafeConfiguration) as refused:
        make_app(SHOP, secret="  ", migrate=False)
    assert str(refused.value) == REFUSED_BLANK.format(
        name="STALWART_RESUME_SECRET", what=SECRETS["STALWART_RESUME_SECRET"])


def test_serve_on_a_busy_port_exits_non_zero_saying_so(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = serve(tmp_path, port=port)
    assert done.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr
    assert "Serving" not in done.stdout
