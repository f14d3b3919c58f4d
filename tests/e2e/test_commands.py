"""The `stalwart` commands as a person runs them."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx
import pytest

from approvals.views import DETAIL_BAD_CODE
from tests.e2e.conftest import on_postgres
from tests.e2e.test_faults import rows
from tests.support.server import ROOT, SHOP, Server, free_port


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
            # The console's own look (its stylesheets and header), under the page policy.
            assert form.status_code == 200 and "admin/css/login.css" in form.text and "Stalwart console" in form.text
            assert "script-src 'self'" in form.headers["Content-Security-Policy"]
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
    with Server(data_dir, empty=True):
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


def readme_block(language: str, after: str) -> str:
    """The README's first ``language`` code block after the text ``after``."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return text[text.index(after):].split(f"```{language}\n", 1)[1].split("```", 1)[0]


def as_asserts(snippet: str) -> str:
    """``expr  # value`` lines, as the README writes what they give, made into asserts."""
    return re.sub(r"^(\S.*?)\s+# (.+)$", r"assert (\1) == (\2), \1", snippet, flags=re.M)


@pytest.mark.skipif(not shutil.which("curl"), reason="the README's walk-through is curl")
def test_the_readmes_curl_walk_through_then_its_python_snippet_work_as_written(data_dir, tmp_path):
    # Thread ids made unique (a PostgreSQL run shares its database across tests); all else as written.
    curl_thread, desk_thread = f"u-17-{uuid.uuid4().hex[:6]}", f"desk-1-{uuid.uuid4().hex[:6]}"
    with Server(data_dir) as server:
        walk = readme_block("sh", "**The API, with curl.**").replace("localhost:8700", f"127.0.0.1:{server.port}")
        walk = walk.replace("/tmp/", f"{tmp_path}/").replace("u-17", curl_thread)
        walked = subprocess.run(["bash", "-euo", "pipefail", "-c", walk], cwd=tmp_path, capture_output=True,
                                text=True, timeout=120)
        assert walked.returncode == 0, walked.stderr
        assert "ch-4411" in walked.stdout
        snippet = as_asserts(readme_block("python", "**Python**")).replace("desk-1", desk_thread)
        assert snippet.count("assert (") == 2
        env = {k: v for k, v in os.environ.items() if k not in ("STALWART_AGENT_FILE", "DJANGO_SETTINGS_MODULE",
                                                                 "SECRET_KEY")}
        env["STALWART_DATA_DIR"] = str(data_dir)  # the demo's data folder (and database), as in a clone
        ran = subprocess.run([sys.executable, "-c", snippet], cwd=ROOT, env=env, capture_output=True, text=True,
                             timeout=120)
        assert ran.returncode == 0, ran.stderr


@pytest.mark.parametrize("reset", [True, False], ids=["reset", "not-reset"])
def test_reset_demo_beside_a_live_demo_makes_4411_chargeable_again_and_keeps_the_staff(data_dir, reset):
    password = re.search(r"One-time password: (\S+)",  # type: ignore[union-attr]
                         stalwart("createstaff", "ana", data_dir=data_dir).stdout).group(1)
    with Server(data_dir) as server, httpx.Client(base_url=server.url, timeout=60) as customer:
        def charge_4411(thread: str) -> str:
            pause = customer.post(f"/threads/{thread}/messages", json={"text": "charge 40 to order 4411"})
            customer.headers["Stalwart-Session"] = pause.headers["Stalwart-Session"]
            waiting = pause.json()["waiting"][0]
            return str(customer.post(f"/threads/{thread}/resume", json={
                "interrupt_id": waiting["id"], "decision": "approve", "token": waiting["token"]}).json()["reply"]["text"])

        first = f"u-{uuid.uuid4().hex[:8]}"
        assert "ch-4411" in charge_4411(first)
        if reset:
            done = stalwart("reset-demo", data_dir=data_dir)
            assert done.returncode == 0, done.stderr
            # On PostgreSQL the suite's tests share one database: other tests' threads and staff count too.
            said = (r"forgot 1 thread with .* kept 1 staff account and 0 MCP client keys\." if not on_postgres()
                    else r"forgot \d+ threads? with .* kept \d+ staff accounts? and \d+ MCP client keys?\.")
            assert re.search(said, done.stdout), done.stdout
            assert customer.get(f"/threads/{first}/interrupts").status_code == 404
        again = charge_4411(f"u-{uuid.uuid4().hex[:8]}")
        assert ("ch-4411" in again) if reset else ("already paid" in again)
        login = customer.get("/admin/login/")
        signed_in = customer.post("/admin/login/?next=/admin/", data={
            "username": "ana", "password": password, "csrfmiddlewaretoken": login.cookies["csrftoken"]})
        assert signed_in.status_code == 302


def test_reset_demo_where_nothing_ran_yet_says_so_and_makes_nothing(tmp_path):
    missing = tmp_path / "nowhere"
    result = stalwart("reset-demo", data_dir=missing, env={"DATABASE_URL": ""})
    assert result.returncode == 0 and "Nothing to reset" in result.stdout and not missing.exists()


def _installed_venv() -> Path | None:
    """This suite's virtualenv, if scripts/ installed it from this very pyproject.toml (else None: the
    script would run pip, which a test must not)."""
    import hashlib

    venv = Path(sys.prefix)
    want = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    stamps = [venv / ".installed[test]", venv / ".installed"]
    return venv if any(s.exists() and s.read_text().strip() == want for s in stamps) else None


@pytest.mark.skipif(_installed_venv() is None, reason="needs the virtualenv scripts/test made from this pyproject.toml")
def test_scripts_demo_reset_reseeds_the_shop_then_serves_in_a_few_lines(data_dir):
    from examples.shop import tools as shop

    shop.charge_card("4411", 40)  # the walk-through done: 4411 paid, in the demo's data folder
    assert shop.get_order("4411")["status"] == "paid"
    env = {k: v for k, v in os.environ.items() if k not in ("STALWART_AGENT_FILE", "DJANGO_SETTINGS_MODULE",
                                                             "SECRET_KEY")}
    env.update({"STALWART_DATA_DIR": str(data_dir), "VENV": str(_installed_venv()), "PYTHONUNBUFFERED": "1"})
    port = free_port()
    proc = subprocess.Popen([str(ROOT / "scripts" / "demo"), "--reset", "--port", str(port)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))
            if line.startswith("Serving ") or len(lines) > 20:
                break
        assert lines[-1] == f"Serving Shop at http://127.0.0.1:{port}/ (admin at /admin/)", "\n".join(lines)
        deadline = time.monotonic() + 30  # "Serving" is printed as daphne starts listening
        while True:
            try:
                assert httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code == 200
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "the demo printed Serving but never answered"
                time.sleep(0.2)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert len(lines) <= 10, "\n".join(lines)
    assert any(line.startswith("Reset the demo in ") for line in lines)
    assert any(line.startswith(f"The CLI: {env['VENV']}/bin/stalwart") for line in lines)
    assert shop.get_order("4411")["status"] == "unpaid"

@pytest.mark.parametrize("operator", [True, False])
def test_createstaff_of_an_operator_shows_how_to_make_an_operator_token(data_dir, operator):
    from stalwart_site.bootstrap import OPERATOR_TOKEN_HOW, refuse_unsafe
    from threads.strength import MAKE_ONE

    result = stalwart("createstaff", "ana", *(["--operator"] if operator else []), data_dir=data_dir)
    assert result.returncode == 0, result.stderr
    # Only an operator rolls back; an approver's output has no word of the token.
    assert (OPERATOR_TOKEN_HOW in result.stdout) is operator
    assert ("STALWART_OPERATOR_TOKEN" in result.stdout) is operator
    if operator:  # the command it shows makes a token the server accepts
        assert MAKE_ONE in result.stdout
        made = subprocess.run(["python3", "-c", MAKE_ONE.split(" -c ", 1)[1].strip("'")], capture_output=True,
                              text=True, timeout=30, check=True).stdout.strip()
        refuse_unsafe({"STALWART_OPERATOR_TOKEN": made})


def test_createstaff_with_a_group_makes_the_group_and_puts_the_account_in_it(data_dir):
    tail = uuid.uuid4().hex[:8]  # PostgreSQL's database is shared by the run's tests
    finance, audit, ana, bruno = f"finance-{tail}", f"audit-{tail}", f"ana-{tail}", f"bruno-{tail}"
    result = stalwart("createstaff", ana, "--group", finance, "--group", audit, data_dir=data_dir)
    assert result.returncode == 0, result.stderr
    assert f"Created approver '{ana}', in {finance}, in {audit}. One-time password:" in result.stdout
    again = stalwart("createstaff", bruno, "--group", finance, data_dir=data_dir)
    assert again.returncode == 0 and f"Created approver '{bruno}', in {finance}." in again.stdout
    members = rows(data_dir, "SELECT g.name, u.username FROM auth_group g JOIN auth_user_groups ug ON ug.group_id = g.id"
                             " JOIN auth_user u ON u.id = ug.user_id WHERE g.name IN (?, ?) ORDER BY g.name, u.username",
                   (finance, audit))
    assert members == [(audit, ana), (finance, ana), (finance, bruno)]
