"""The house rules the tree keeps (STYLE.md "The shape of the house"):

- import-linter's contracts in pyproject.toml: the apps depend one way
  (catalogue <- threads <- approvals <- stalwart_site) and the pure modules
  reach no framework, transitively;
- no import circle between modules, and no private name imported across
  packages;
- no module of the run store or the answering side over 400 lines;
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
PACKAGES = ("catalogue", "threads", "approvals", "stalwart_site")
LINT_IMPORTS = str(Path(sys.executable).with_name("lint-imports"))
MAX_LINES = 400


def lint_imports(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([LINT_IMPORTS, "--no-cache", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, env={"PYTHONPATH": str(cwd), "PATH": "/usr/bin:/bin"})


@pytest.mark.parametrize("contract", ["layers", "pure"])
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
    done = lint_imports(tmp_path)
    assert done.returncode == 1
    assert "catalogue.helper_for_test" in done.stdout and "approvals.webhooks" in done.stdout
    assert done.stdout.count("BROKEN") == 2, done.stdout


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
    "path", [p for p in _python_files() if p.relative_to(ROOT).parts[0] in ("threads", "approvals")],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_module_stays_small(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(ROOT)} has {lines} lines: split it by sub-area"


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
