"""The widget's files on their own: the DOM-free helpers (node's test runner),
the string tables against the product guide's, the module graph GET / preloads,
and the npm package (pack, type declarations)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from functools import cache
from pathlib import Path

import pytest

from tests.support.server import ROOT

STATIC = ROOT / "static" / "stalwart"
HERE = Path(__file__).resolve().parent
SEED_COPY = HERE / "seed_strings_en.json"
# The product guide's table, where this checkout sits beside the shared folder.
SEED = ROOT.parent / "shared" / "seeds" / "002_9935f35ec105d8fa.txt"
# Keys the widget needs beyond the guide's table; present in every language's table.
OWN_KEYS = {
    "origin_staff", "reason_write", "reason_egress", "reason_argument_origin", "reason_tainted_call",
    "stale", "youChose", "thumbsFailed", "undoneWith", "stillToUndo",
    # What came of an answered call, on its collapsed card.
    "outcome_succeeded", "outcome_failed", "outcome_refused", "outcome_skipped", "outcome_cancelled", "outcome_undone",
    "outcome_unsure",
    # Approval policies: the reason, who approves, the quorum's count, this page's approval recorded.
    "reason_policy", "approvalsCount", "approvalsBy", "approvalRecorded", "waitingOthers", "othersChose", "notAnApprover",
    "reasonsTitleOthers",
}
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")


@cache
def seed_table() -> dict[str, str]:
    """The shipped English table, as committed from the guide (tests/web/seed_strings_en.json)."""
    return dict(json.loads(SEED_COPY.read_text(encoding="utf-8")))


def parse_seed(text: str) -> dict[str, str]:
    block = text[text.index("| Key | Shipped text |"):text.index("The limits")]
    lines = [line for line in block.split("\n")[2:] if line.strip()]
    pairs = iter(lines)
    return {key.removesuffix(" |"): value.removesuffix(" |") for key, value in zip(pairs, pairs, strict=True)}


@cache
def table(language: str) -> dict[str, str]:
    assert NODE is not None
    out = subprocess.run(
        [NODE, "--input-type=module", "-e",
         f"import t from {json.dumps((STATIC / f'strings.{language}.js').as_uri())};"
         "process.stdout.write(JSON.stringify(t))"],
        capture_output=True, text=True, check=True, timeout=60,
    )
    return dict(json.loads(out.stdout))


@needs_node
def test_the_dom_free_helpers_pass_their_node_tests():
    files = sorted(str(p) for p in (HERE / "js").glob("*.test.mjs"))
    assert files
    run = subprocess.run([NODE, "--test", *files], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert re.search(r"^# fail 0$", run.stdout, re.M) and re.search(r"^# pass [1-9]", run.stdout, re.M)


def test_the_committed_copy_is_the_guides_table():
    if not SEED.exists():
        pytest.skip(f"the guide is not beside this checkout ({SEED})")
    assert parse_seed(SEED.read_text(encoding="utf-8")) == seed_table()


@needs_node
def test_the_shipped_english_table_is_exactly_the_guides_plus_the_widgets_own_keys():
    en = table("en")
    assert {k: en[k] for k in seed_table()} == seed_table()
    assert set(en) - set(seed_table()) == OWN_KEYS
    assert list(en)[: len(seed_table())] == list(seed_table())  # same order, so a diff reads against the guide


@needs_node
def test_the_pt_br_table_is_complete_and_its_own():
    en, pt = table("en"), table("pt-BR")
    assert set(pt) == set(en)
    same = {k for k in en if pt[k] == en[k] and re.search(r"[A-Za-z]{2}", re.sub(r"\{\w+\}", "", en[k]))}
    assert same == set()


def imports_of(path: Path) -> list[Path]:
    text = path.read_text(encoding="utf-8")
    found = re.findall(r"""^\s*(?:import|export)\s[^;]*?from\s+["'](\.[^"']+)["']""", text, re.M | re.S)
    return [(path.parent / f).resolve() for f in found]


def module_graph() -> list[Path]:
    seen: list[Path] = []
    todo = [STATIC / "index.js"]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.append(path)
        todo.extend(imports_of(path))
    return seen


def test_get_slash_preloads_exactly_the_modules_the_entry_imports():
    from stalwart_site.embed import WIDGET_MODULES

    graph = {str(p.relative_to(STATIC.parent)) for p in module_graph()} - {"stalwart/index.js"}
    assert set(WIDGET_MODULES) == graph
    assert all(p.exists() for p in module_graph())


def test_no_markup_is_ever_made_from_data():
    for path in sorted(STATIC.rglob("*.js")):
        text = path.read_text(encoding="utf-8")
        for forbidden in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"]:
            assert forbidden not in text, f"{path.name} uses {forbidden}"
        assert "setAttribute(\"style\"" not in text and "on" + "click=" not in text


def test_each_element_lives_in_its_own_file_and_builds_nothing_in_its_constructor():
    names = ["chat", "confirm", "decision", "rollback", "trace"]
    for name in names:
        text = (STATIC / f"stalwart-{name}.js").read_text(encoding="utf-8")
        assert re.search(rf"export class Stalwart{name.title()}Element extends", text)
        assert "constructor(" not in text  # the shared base only calls attachShadow
    base = (STATIC / "base.js").read_text(encoding="utf-8")
    ctor = base[base.index("constructor() {"):base.index("connectedCallback()")]
    assert [line.strip() for line in ctor.splitlines()[1:] if line.strip() not in ("", "}")] == [
        "super();", 'this.attachShadow({ mode: "open" });',
    ]


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
def test_the_package_packs_with_its_modules_and_declarations():
    run = subprocess.run(["npm", "pack", "--dry-run", "--json"], cwd=STATIC, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    (pack,) = json.loads(run.stdout)
    assert pack["name"] == "@stalwart-agents/agent-ui"
    files = {f["path"] for f in pack["files"]}
    assert {str(p.relative_to(STATIC)) for p in module_graph()} <= files
    assert {"index.d.ts", "strings.d.ts", "package.json", "README.md"} <= files
    manifest = json.loads((STATIC / "package.json").read_text(encoding="utf-8"))
    assert manifest["exports"]["."] == {"types": "./index.d.ts", "default": "./index.js"}


TSC = ROOT / "catalogue" / "ts" / "node_modules" / "typescript" / "bin" / "tsc"


@needs_node
def test_the_type_declarations_type_a_page_that_uses_the_elements(tmp_path):
    if not TSC.exists():
        pytest.skip("typescript is not installed (scripts/test runs `npm ci` in catalogue/ts)")
    (tmp_path / "page.ts").write_text("""
import { setStrings, StalwartChatElement, type Pause } from "@stalwart-agents/agent-ui";
setStrings({ send: "Go" }, "pt-BR");
const chat: StalwartChatElement = document.createElement("stalwart-chat");
chat.fetcher = fetch;
const confirm = document.createElement("stalwart-confirm");
confirm.interrupt = null as Pause | null;
confirm.addEventListener("stalwart-decision", (e) => console.log(e.detail.interrupt, e.detail.decision, e.detail.token));
document.createElement("stalwart-rollback").report = { undone: [], not_undoable: [], stuck: [] };
document.createElement("stalwart-trace").events = [{ id: 1, type: "step", data: {} }];
""", encoding="utf-8")
    (tmp_path / "tsconfig.json").write_text(json.dumps({
        "compilerOptions": {
            "strict": True, "noEmit": True, "target": "es2022", "lib": ["es2022", "dom"], "module": "es2022",
            "moduleResolution": "bundler", "paths": {"@stalwart-agents/agent-ui": [str(STATIC / "index.d.ts")]},
        },
        "files": ["page.ts"],
    }), encoding="utf-8")
    run = subprocess.run([NODE, str(TSC), "-p", str(tmp_path)], capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_entry_module_and_all_it_imports_stay_under_40_kb_gzipped():
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_widget", ROOT / "bench" / "widget.py")
    assert spec and spec.loader
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    size = bench.size()
    assert size["modules"] == len(module_graph())
    assert size["gzip_bytes"] < 40 * 1024, size
