"""Each door's "Your first five minutes" (docs/mcp.md, docs/langgraph.md,
docs/ag-ui.md), run as a new user would: the doc's own commands, taken from
between its ``<!-- first-five-minutes: NAME -->`` markers, in a fresh copy of
the repository, on SQLite.

- A ``sh`` block runs in bash (``-euo pipefail``), from the copy's top folder;
  one whose first line says ``(leave it running)`` runs in the background
  until the end, and the next block waits for its port.
- A ``text`` block is what the user should see: each of its lines appears in
  the output of the block before it.
- The Inspector's own command is not run (it opens a browser); the MCP
  steps are, with the MCP SDK's client as the doc writes them.
- The only change made to the commands is the ports (8700, 8800, 8000 become
  free ones), so a demo running beside the suite is not in the way.
- After all, ``git status`` in the copy is clean: no walk-through writes a
  tracked file or leaves an untracked one git does not ignore.

The copy's ``.venv`` is a link to this checkout's (the walk-throughs start
once ``./scripts/demo`` made it); ``npm ci`` runs offline, from npm's cache.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.mcp import Console
from tests.support.server import ROOT, free_port

pytestmark = pytest.mark.server

MARKED = re.compile(r"<!-- first-five-minutes: (\S+) -->(.*?)<!-- /first-five-minutes -->", re.S)
FENCE = re.compile(r"^```(sh|text)\n(.*?)^```", re.S | re.M)
INSPECTOR = "npx @modelcontextprotocol/inspector"
DOCS = {"mcp": "docs/mcp.md", "langgraph": "docs/langgraph.md", "ag-ui": "docs/ag-ui.md"}


@dataclass
class Step:
    kind: str  # "run", "background" or "see"
    text: str


def walk_through(name: str) -> list[Step]:
    """The doc's steps, in order, as the doc writes them."""
    doc = (ROOT / DOCS[name]).read_text(encoding="utf-8")
    found = {m.group(1): m.group(2) for m in MARKED.finditer(doc)}
    assert name in found, f"{DOCS[name]} has no first-five-minutes section"
    steps = []
    for lang, body in FENCE.findall(found[name]):
        if lang == "text":
            steps.append(Step("see", body))
        elif body.startswith(INSPECTOR):
            continue  # the Inspector's own UI: shown, not run
        else:
            first = body.splitlines()[0]
            steps.append(Step("background" if "(leave it running)" in first else "run", body))
    return steps


def test_each_walk_through_has_commands_and_what_to_see():
    for name in DOCS:
        steps = walk_through(name)
        assert any(s.kind == "background" for s in steps), name
        assert any(s.kind == "run" for s in steps) and any(s.kind == "see" for s in steps), name
    assert INSPECTOR + " --transport http --server-url http://127.0.0.1:8700/mcp/" in (ROOT / "docs/mcp.md").read_text()


def fresh_copy(target: Path) -> Path:
    """The checkout's files (tracked and new, as git lists them), committed in a repository of their own."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    (target / ".venv").symlink_to(ROOT / ".venv")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "a fresh clone"]):
        subprocess.run([*git, *command], cwd=target, check=True, capture_output=True)
    assert git_status(target) == ""
    return target


def git_status(folder: Path) -> str:
    return subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=folder,
                          capture_output=True, text=True, check=True).stdout


def user_environment(copy: Path) -> dict[str, str]:
    """A new user's shell: no variable of the suite's (SQLite in the copy's .stalwart/), npm offline."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("STALWART_", "QLS_", "DJANGO_", "PYTEST_")) and k not in (
               "DATABASE_URL", "REDIS_URL", "SECRET_KEY", "PYTHONPATH", "VIRTUAL_ENV")}
    env["npm_config_offline"] = "true"
    return env


def listening(port: int, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.3)
    raise AssertionError(f"nothing listens on {port} after {timeout} s")


def approve_when_waiting(base: str, copy: Path, stop: threading.Event) -> None:
    """The person of docs/mcp.md: an account, the console, Approve on the charge that waits."""
    console = Console(base, copy / ".stalwart", "ana")
    try:
        while not stop.is_set():
            with sqlite3.connect(copy / ".stalwart" / "runs.db", timeout=30) as db:
                row = db.execute("SELECT id FROM threads_interrupt WHERE status = 'open' AND tool = 'charge_card'"
                                 ).fetchone()
            if row:
                console.answer(row[0], "approve")
                return
            time.sleep(0.3)
    finally:
        console.close()


def page_approves_a_charge(url: str) -> None:
    """What docs/ag-ui.md says to do on the page it served: a charge, its card, Approve, the reply."""
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(chromium).exists():
        return  # the shell steps ran; the page needs a browser
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page()
        page.goto(url)
        expect(page.locator("#send")).not_to_have_text("", timeout=30_000)
        page.fill("#text", "charge 40 to order 4411")
        page.click("#send")
        page.locator(".card").wait_for(timeout=30_000)
        assert "Charge the card?" in page.locator(".card").inner_text()  # the card says what waits, in words
        page.reload()  # the card is still there: the pause is the server's
        page.locator(".card").wait_for(timeout=30_000)
        page.get_by_role("button", name="Approve").click()
        expect(page.locator("#log")).to_contain_text("ch-4411", timeout=30_000)
        browser.close()


@pytest.mark.parametrize("name", list(DOCS))
def test_the_first_five_minutes_run_verbatim_and_leave_the_clone_clean(tmp_path, monkeypatch, name):
    if name == "ag-ui" and not (shutil.which("npm") and (ROOT / "tests/agui/node_modules").is_dir()):
        pytest.skip("needs npm and npm's cache of tests/agui's packages (./scripts/test installs them)")
    for variable in ("DATABASE_URL", "REDIS_URL"):  # the console's helper (createstaff) on the copy's SQLite too
        monkeypatch.delenv(variable, raising=False)
    copy = fresh_copy(tmp_path / "stalwart")
    ports = {"8700": free_port(), "8800": free_port(), "8000": free_port()}
    env = user_environment(copy)
    started: list[subprocess.Popen[bytes]] = []
    said = ""
    try:
        for step in walk_through(name):
            text = step.text
            for old, new in ports.items():
                text = text.replace(old, str(new))
            if step.kind == "background":
                started.append(subprocess.Popen(["bash", "-c", text], cwd=copy, env=env, start_new_session=True,
                                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
                listening(next(p for p in ports.values() if str(p) in text))
            elif step.kind == "run":
                stop = threading.Event()
                helper = None
                if "charge_card" in text:  # the write waits for a person: one approves it in the console
                    helper = threading.Thread(target=approve_when_waiting,
                                              args=(f"http://127.0.0.1:{ports['8700']}", copy, stop), daemon=True)
                    helper.start()
                done = subprocess.run(["bash", "-euo", "pipefail", "-c", text], cwd=copy, env=env, timeout=240,
                                      capture_output=True, text=True)
                stop.set()
                if helper:
                    helper.join(timeout=30)
                said = done.stdout + done.stderr
                assert done.returncode == 0, f"{text}\n---\n{said}"
            else:
                for line in filter(None, step.text.splitlines()):
                    assert line in said, f"{DOCS[name]} says one sees {line!r}; the output was:\n{said}"
        if name == "ag-ui":
            page_approves_a_charge(f"http://127.0.0.1:{ports['8800']}/?base=http://127.0.0.1:{ports['8700']}")
    finally:
        for process in started:
            try:
                os.killpg(process.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for process in started:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=30)
    assert git_status(copy) == "", f"{DOCS[name]}'s walk-through left the clone changed:\n{git_status(copy)}"


def test_fronting_an_mcp_server_runs_from_the_top_folder_and_leaves_the_clone_clean(tmp_path):
    """docs/mcp.md's "An MCP server in front of an MCP server", as written (its MCP server's stdin closed:
    it says where its pauses go and ends with its input)."""
    doc = (ROOT / "docs/mcp.md").read_text(encoding="utf-8")
    section = doc.split("## An MCP server in front of an MCP server", 1)[1]
    commands = FENCE.search(section)
    assert commands and commands.group(1) == "sh"
    assert "cd " not in commands.group(2)  # from the clone's top folder
    copy = fresh_copy(tmp_path / "stalwart")
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", commands.group(2)], cwd=copy, env=user_environment(copy),
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    assert f"Database: SQLite {copy / '.stalwart' / 'runs.db'}; data folder: {copy / '.stalwart'}" in done.stderr
    assert git_status(copy) == "", git_status(copy)
