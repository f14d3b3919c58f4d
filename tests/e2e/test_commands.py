"""The `stalwart` commands as a person runs them."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from approvals.views import DETAIL_BAD_CODE
from tests.support.server import ROOT, SHOP, Server


def stalwart(*args: str, data_dir: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if k not in ("STALWART_AGENT_FILE", "DJANGO_SETTINGS_MODULE", "SECRET_KEY")}
    full_env.update({"STALWART_DATA_DIR": str(data_dir), **(env or {})})
    return subprocess.run([sys.executable, "-m", "stalwart_site.cli", *args], cwd=ROOT, env=full_env,
                          capture_output=True, text=True, timeout=120)


def test_plan_prints_the_plan_as_json_and_runs_nothing(data_dir):
    result = stalwart("plan", str(SHOP), "charge 40 to order 4411", data_dir=data_dir)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {
        "language": "en", "read": True, "asks": [],
        "calls": [{"step": 1, "tool": "charge_card", "arguments": [
            {"name": "amount", "value": 40, "origin": "typed"}, {"name": "order_id", "value": "4411", "origin": "typed"}]}],
    }
    assert not (data_dir / "shop.db").exists()


def test_plan_explain_says_which_rule_bound_each_argument(data_dir):
    result = stalwart("plan", str(SHOP), "charge 40 to order 4411", "--explain", data_dir=data_dir)
    assert result.returncode == 0, result.stderr
    plan = json.loads(result.stdout)
    assert plan["calls"][0]["tool"] == "charge_card"
    assert {"step": 1, "argument": "order_id", "rule": "typed: after 'order'"} in plan["explain"]


def test_plan_reads_portuguese_when_asked(data_dir):
    result = stalwart("plan", str(SHOP), "cobre 40 no pedido 4411", "--language", "pt-BR", data_dir=data_dir)
    plan = json.loads(result.stdout)
    assert plan["language"] == "pt-BR" and plan["calls"][0]["tool"] == "charge_card"


def test_createstaff_prints_a_one_time_password_that_signs_in_and_must_be_changed(data_dir):
    result = stalwart("createstaff", "ana", "--operator", data_dir=data_dir)
    assert result.returncode == 0, result.stderr
    database = re.search(r"Database: (.+)", result.stdout).group(1)  # type: ignore[union-attr]
    if not os.environ.get("DATABASE_URL"):
        assert database == f"SQLite {data_dir / 'runs.db'}"
    password = re.search(r"One-time password: (\S+)", result.stdout).group(1)  # type: ignore[union-attr]
    with Server(data_dir) as server, httpx.Client(base_url=server.url) as client:
        login = client.get("/admin/login/")
        response = client.post("/admin/login/?next=/admin/", data={
            "username": "ana", "password": password, "csrfmiddlewaretoken": login.cookies["csrftoken"]})
        assert response.status_code == 302 and response.headers["location"] == "/admin/"
        first = client.get("/admin/")
        assert first.status_code == 302 and first.headers["location"] == "/admin/password_change/"


def test_createstaff_refuses_where_no_data_folder_exists(tmp_path):
    missing = tmp_path / "nowhere"
    env = {"DATABASE_URL": ""}
    result = stalwart("createstaff", "ana", data_dir=missing, env=env)
    assert result.returncode == 2 and "no data folder" in result.stderr and not missing.exists()


def test_dev_pair_signs_a_browser_in_once(data_dir):
    with Server(data_dir, args=["--dev-pair"]) as server:
        deadline = time.monotonic() + 10
        while "Pairing code" not in server.log() and time.monotonic() < deadline:
            time.sleep(0.1)
        code = re.search(r"Pairing code: (\d{6})", server.log()).group(1)  # type: ignore[union-attr]
        with httpx.Client(base_url=server.url) as client:
            form = client.get("/pair/")
            token = form.cookies["csrftoken"]
            wrong = client.post("/pair/", data={"code": "000000" if code != "000000" else "111111",
                                                "csrfmiddlewaretoken": token})
            assert wrong.status_code == 400 and str(DETAIL_BAD_CODE) in wrong.text
            paired = client.post("/pair/", data={"code": code, "csrfmiddlewaretoken": token})
            assert paired.status_code == 302 and paired.headers["location"] == "/admin/"
            assert client.get("/admin/").status_code == 200
        with httpx.Client(base_url=server.url) as other:
            token = other.get("/pair/").cookies["csrftoken"]
            again = other.post("/pair/", data={"code": code, "csrfmiddlewaretoken": token})
            assert again.status_code == 400


def test_the_first_start_migrates_and_keeps_a_secret_key(data_dir):
    with Server(data_dir):
        pass
    assert (data_dir / "secret_key").stat().st_mode & 0o077 == 0
    if not os.environ.get("DATABASE_URL"):
        assert (data_dir / "runs.db").exists()


@pytest.mark.parametrize("public_url", ["https://bot.example.com"])
def test_check_deploy_is_clean_with_production_settings(data_dir, public_url):
    # No SECRET_KEY given: the one generated into the data folder must pass too.
    # One worker, said so: the in-memory channel layer is then enough (stalwart.W001 otherwise).
    env = {"DEBUG": "False", "STALWART_PUBLIC_URL": public_url, "STALWART_WORKERS": "1",
           "STALWART_AGENT_FILE": str(SHOP), "DJANGO_SETTINGS_MODULE": "stalwart_site.settings"}
    full_env = {k: v for k, v in os.environ.items() if k != "SECRET_KEY"}
    full_env.update({"STALWART_DATA_DIR": str(data_dir), **env})
    result = subprocess.run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
                            cwd=ROOT, env=full_env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_the_commands_are_manage_py_commands_too(data_dir):
    env = {k: v for k, v in os.environ.items() if k not in ("STALWART_AGENT_FILE", "DJANGO_SETTINGS_MODULE", "SECRET_KEY")}
    env.update({"STALWART_DATA_DIR": str(data_dir)})

    def manage(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=120)

    planned = manage("plan", str(SHOP), "show order 4411")
    assert json.loads(planned.stdout)["calls"][0]["tool"] == "get_order"
    verified = manage("verify", str(SHOP))
    assert verified.returncode == 0 and "warning write_without_compensation archive_order" in verified.stdout
    manage("migrate", "--verbosity", "0")
    created = manage("createstaff", "bo")
    assert created.returncode == 0 and "One-time password" in created.stdout


def test_the_desk_works_in_a_plain_script(data_dir):
    script = (
        "from stalwart_site.desk import Desk\n"
        "desk = Desk('examples/shop/agent.yaml')\n"
        "reply = desk.say('u-17', 'charge 40 to order 4411')\n"
        "print(reply.waiting[0]['tool'])\n"
        "print(desk.confirm('u-17', 'approve').text)\n"
    )
    env = {k: v for k, v in os.environ.items()
           if k not in ("STALWART_AGENT_FILE", "DJANGO_SETTINGS_MODULE", "DATABASE_URL", "SECRET_KEY")}
    env["STALWART_DATA_DIR"] = str(data_dir)
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == "charge_card" and "ch-4411" in result.stdout
