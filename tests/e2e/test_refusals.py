"""Unsafe configuration is refused at start with a clear message and a
non-zero exit, before anything is served (issue 14)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from approvals.webhooks import BLANK_SECRET, Webhook
from stalwart_site.bootstrap import REFUSED_BLANK, SECRETS, UnsafeConfiguration, refuse_unsafe
from tests.support.server import ROOT, SHOP, free_port

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


def test_set_secrets_and_unset_ones_are_both_fine():
    refuse_unsafe({name: "a-real-value" for name in SECRETS})
    refuse_unsafe({})


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
    ({"QLS_OPERATOR_TOKEN": "  "}, [], "QLS_OPERATOR_TOKEN"),
    ({"SECRET_KEY": " "}, [], "SECRET_KEY"),
    ({}, ["--operator-token", " "], "QLS_OPERATOR_TOKEN"),
])
def test_serve_refuses_a_blank_secret_with_a_message_and_a_non_zero_exit(tmp_path, env, args, name):
    done = serve(tmp_path, *args, env=env)
    assert done.returncode == 2
    assert "refused to start" in done.stderr and name in done.stderr
    assert "Serving" not in done.stdout


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
