"""The house rules the tree keeps (docs/architecture.md):

- import-linter's contracts in pyproject.toml: the apps depend one way
  (catalogue <- threads <- approvals <- stalwart_site) and the pure modules
  reach no framework, transitively;
- no import circle between modules, and no private name imported across
  packages;
- no module of any app over 400 lines;
- the status of a run, a step or a pause is written only by its one function
  (``threads.engine.lifecycle``, ``threads.engine.pauses.pause_close``);
- every link of every Markdown file resolves to a file inside the repository.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("catalogue", "threads", "approvals", "doors", "stalwart_site")
LINT_IMPORTS = str(Path(sys.executable).with_name("lint-imports"))
MAX_LINES = 400


def lint_imports(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([LINT_IMPORTS, "--no-cache", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, env={"PYTHONPATH": str(cwd), "PATH": "/usr/bin:/bin"})


@pytest.mark.parametrize("contract", ["layers", "facade", "doors", "doors-apart", "pure"])
def test_import_contract_is_kept(contract: str) -> None:
    done = lint_imports(ROOT, "--contract", contract)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "KEPT" in done.stdout and "BROKEN" not in done.stdout


def test_import_contracts_catch_an_upward_and_a_framework_import(tmp_path: Path) -> None:
    # The twin of the test above: the same contracts on a copy of the tree
    # with one import that climbs a layer and one that reaches Django
    # through another module.
    for package in PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__", "ts"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "catalogue" / "helper_for_test.py").write_text("from django.conf import settings\n")
    with (tmp_path / "catalogue" / "words.py").open("a") as f:
        f.write("\nfrom catalogue import helper_for_test  # noqa\n")
    with (tmp_path / "threads" / "tokens.py").open("a") as f:
        f.write("\nimport approvals.webhooks  # noqa\n")
    with (tmp_path / "approvals" / "groups.py").open("a") as f:  # the console reaching past the engine's facade
        f.write("\nfrom threads.engine.unit import unit  # noqa\n")
    with (tmp_path / "doors" / "mcp" / "calls.py").open("a") as f:  # a door reading the run store's tables
        f.write("\nfrom threads.models import Run  # noqa\n")
    with (tmp_path / "doors" / "agui" / "events.py").open("a") as f:  # a door leaning on another door
        f.write("\nimport doors.http.idempotency  # noqa\n")
    done = lint_imports(tmp_path)
    assert done.returncode == 1
    assert "catalogue.helper_for_test" in done.stdout and "approvals.webhooks" in done.stdout
    assert "approvals.groups -> threads.engine.unit" in done.stdout
    assert "doors.mcp.calls -> threads.models" in done.stdout
    assert "doors.agui.events -> doors.http.idempotency" in done.stdout
    assert done.stdout.count("BROKEN") == 5, done.stdout


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph(*PACKAGES, include_external_packages=False)


def test_no_import_circles(graph: grimp.ImportGraph) -> None:
    circles = set()
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            if graph.find_shortest_chain(importer=imported, imported=module):
                circles.add(tuple(sorted((module, imported))))
    assert not circles, f"modules that import each other, directly or through others: {sorted(circles)}"


def _python_files() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py") if "migrations" not in p.parts)


def test_no_private_name_imported_across_packages() -> None:
    crossings = []
    for path in _python_files():
        package = path.relative_to(ROOT).parts[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                if node.module.split(".")[0] in PACKAGES and node.module.split(".")[0] != package:
                    crossings += [f"{path.relative_to(ROOT)}: {node.module}.{a.name}"
                                  for a in node.names if a.name.startswith("_")]
    assert crossings == []


@pytest.mark.parametrize(
    "path", _python_files(),
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_module_stays_small(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(ROOT)} has {lines} lines: split it by sub-area"


# The one function per state change (docs/architecture.md: ``lifecycle``, ``pauses``,
# ``replays``): every write of a run's, a step's or a pause's status is one of these.
STATUS_WRITERS = {
    ("threads/engine/lifecycle.py", "run_status_set"), ("threads/engine/lifecycle.py", "step_status_set"),
    ("threads/engine/lifecycle.py", "step_claim"), ("threads/engine/lifecycle.py", "steps_status_set"),
    ("threads/engine/pauses.py", "pause_close"), ("threads/engine/replays.py", "replay_status_set"),
    ("threads/engine/replays.py", "replay_take"),  # a row inserted with its first status
}
ENGINE_MODELS = {"Run", "Step", "Interrupt", "Replay"}
RELATED = {"steps", "interrupts", "runs"}  # a run's steps, a thread's runs, ...
# Other models with a status of their own, written in their own services.
OTHER_STATUS_FILES = {"threads/idempotency.py", "catalogue/commands.py"}


def _names_in(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | {
        n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}


class _StatusWrites(ast.NodeVisitor):
    def __init__(self, name: str) -> None:
        self.name, self.function, self.found = name, "", []  # type: ignore[var-annotated]

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        outer, self.function = self.function, node.name
        self.generic_visit(node)
        self.function = outer

    visit_AsyncFunctionDef = visit_FunctionDef

    def write(self, node: ast.AST, what: str) -> None:
        if (self.name, self.function) not in STATUS_WRITERS and self.name not in OTHER_STATUS_FILES:
            self.found.append(f"{self.name}:{getattr(node, 'lineno', '?')} {what}")

    def visit_Call(self, node: ast.Call) -> None:
        keywords = {k.arg for k in node.keywords}
        if isinstance(node.func, ast.Attribute):
            engine = bool(_names_in(node.func.value) & (ENGINE_MODELS | RELATED))
            if node.func.attr in ("update", "create", "get_or_create", "update_or_create") \
                    and "status" in keywords and engine:
                self.write(node, f"{node.func.attr}(status=...)")
            if node.func.attr == "save" and any(
                    k.arg == "update_fields" and "status" in {c.value for c in ast.walk(k.value)
                                                             if isinstance(c, ast.Constant)} for k in node.keywords):
                self.write(node, "save(update_fields=[... 'status' ...])")
        if isinstance(node.func, ast.Name) and node.func.id in ENGINE_MODELS and "status" in keywords:
            self.write(node, f"{node.func.id}(status=...)")
        self.generic_visit(node)

    def _assigned(self, node: ast.AST, targets: list[ast.expr]) -> None:
        for target in targets:
            if any(isinstance(t, ast.Attribute) and t.attr == "status" and isinstance(t.ctx, ast.Store)
                   for t in ast.walk(target)):
                self.write(node, ".status = ...")
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        self._assigned(node, node.targets)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._assigned(node, [node.target])

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._assigned(node, [node.target])


def status_writes(root: Path) -> list[str]:
    """Every place under ``root`` that writes a run's, step's or pause's
    status outside ``STATUS_WRITERS``: an ``update(status=...)`` or a create
    with a ``status``, a ``save(update_fields=[... "status" ...])``, or a
    ``<obj>.status = ...`` (saved later by whoever holds it)."""
    found: list[str] = []
    for path in sorted(p for package in PACKAGES for p in (root / package).rglob("*.py")
                       if "migrations" not in p.parts):
        visitor = _StatusWrites(str(path.relative_to(root)))
        visitor.visit(ast.parse(path.read_text(encoding="utf-8")))
        found += visitor.found
    return found


def test_each_status_is_written_by_its_one_function() -> None:
    assert status_writes(ROOT) == []


def test_a_status_written_elsewhere_is_found(tmp_path: Path) -> None:
    # The twin: the same scan over a copy of the tree with three such writes.
    for package in PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__", "ts"))
    with (tmp_path / "approvals" / "admin" / "pauses.py").open("a") as f:
        f.write("\n\ndef skip_all(step):\n    Step.objects.filter(pk=step.pk).update(status='skipped')\n")
    with (tmp_path / "threads" / "engine" / "saga.py").open("a") as f:
        f.write("\n\ndef end(run):\n    run.status = Run.Status.DONE\n    run.save(update_fields=['status'])\n")
    found = status_writes(tmp_path)
    assert [f.split(" ", 1)[1] for f in found] == [
        "update(status=...)", ".status = ...", "save(update_fields=[... 'status' ...])"], found
    assert found[0].startswith("approvals/admin/pauses.py:") and found[1].startswith("threads/engine/saga.py:")


LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def _markdown_files() -> list[Path]:
    """The project's own Markdown: tracked or new, never what git ignores (caches, venvs)."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z", "--", "*.md"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )
    if listed.returncode == 0:
        names = [n for n in listed.stdout.split("\0") if n]
        return sorted(ROOT / n for n in names if (ROOT / n).exists())
    skip = {".git", ".venv", ".venv-django6", "node_modules", ".stalwart", ".pytest_cache"}
    return sorted(p for p in ROOT.rglob("*.md") if not skip & set(p.relative_to(ROOT).parts))


def test_there_are_docs_to_check() -> None:
    names = {str(p.relative_to(ROOT)) for p in _markdown_files()}
    assert {"README.md", "docs/decisions.md"} <= names


@pytest.mark.parametrize("path", _markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_markdown_links_stay_inside_the_repository(path: Path) -> None:
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    broken = []
    for target in LINK.findall(text):
        if target.startswith("#"):
            continue
        if re.match(r"^[a-z]+:", target):
            broken.append(f"{target} (outside the repository)")
            continue
        resolved = (path.parent / target.split("#", 1)[0]).resolve()
        if not resolved.is_relative_to(ROOT) or not resolved.exists():
            broken.append(target)
    assert broken == [], f"{path.relative_to(ROOT)} links to {broken}"
