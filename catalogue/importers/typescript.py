"""TypeScript declarations into catalogue tools (docs/agent-file.md, "TypeScript .d.ts").

``catalogue/ts/extract.mjs`` (Node, with the ``typescript`` package installed
by ``npm ci`` in ``catalogue/ts``) reads the ``.d.ts`` files under a folder and
prints each exported function: parameters, return type (a ``Promise``
unwrapped) and doc-comment tags. Nothing of the user's code runs: the compiler
only parses and type-checks declarations.

Kind: ``@read`` reads, ``@write`` writes, both is a write (never guessed toward
read); neither is the error ``tool_kind_undeclared`` and the import exits 1.
The binding ``{"typescript": {"module": "lib/orders.d.ts", "function": name}}``
records where the tool came from; the agent file gives it a binding that runs.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from catalogue.importers import SourceError
from catalogue.lints import Finding, kind_undeclared
from catalogue.tools import Tool

TS_DIR = Path(__file__).resolve().parent.parent / "ts"
EXTRACT = TS_DIR / "extract.mjs"

NO_NODE = "Node.js is needed to read TypeScript declarations: install node (v18 or later)"
NO_TYPESCRIPT = "the typescript package is not installed: run `npm ci` in {folder}"
NOT_A_FOLDER = "not a folder"
NO_DECLARATIONS = "no .d.ts files under this folder"
EXTRACT_FAILED = "the TypeScript reader failed: {reason}"
TYPE_ERROR = "TypeScript error: {reason}"
EXTRACT_TIMEOUT = 120.0


def extract(folder: str | Path) -> dict[str, Any]:
    """What ``extract.mjs`` reports for the folder."""
    folder = Path(folder)
    if not folder.is_dir():
        raise SourceError(str(folder), NOT_A_FOLDER)
    node = shutil.which("node")
    if node is None:
        raise SourceError(str(folder), NO_NODE)
    if not (TS_DIR / "node_modules" / "typescript").is_dir():
        raise SourceError(str(folder), NO_TYPESCRIPT.format(folder=TS_DIR))
    try:
        done = subprocess.run([node, str(EXTRACT), str(folder.resolve())], capture_output=True, text=True,
                              timeout=EXTRACT_TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        raise SourceError(str(folder), EXTRACT_FAILED.format(reason="it did not finish in time")) from None
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        raise SourceError(str(folder), EXTRACT_FAILED.format(reason=reason))
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def import_declarations(folder: str | Path) -> tuple[list[Tool], list[Finding]]:
    """The folder's exported functions as tools, and ``tool_kind_undeclared`` findings."""
    report = extract(folder)
    if not report.get("files"):
        raise SourceError(str(folder), NO_DECLARATIONS)
    if report.get("errors"):
        first = report["errors"][0]
        raise SourceError(first["place"], TYPE_ERROR.format(reason=first["reason"]))
    tools: list[Tool] = []
    findings: list[Finding] = []
    for entry in report["tools"]:
        if not entry["read"] and not entry["write"]:
            findings.append(kind_undeclared(entry["name"]))
            continue
        tools.append(Tool(
            name=entry["name"],
            kind="read" if entry["read"] and not entry["write"] else "write",
            description=entry.get("description") or "",
            input_schema=entry["input_schema"],
            result_schema=entry.get("result_schema"),
            binding={"typescript": {"module": entry["module"], "function": entry["name"]}},
        ))
    return tools, findings
