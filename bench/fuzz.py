"""schemathesis against a real `stalwart serve`, with a larger budget than the
suite's (issue 14's measure: at least 20,000 requests).

    python bench/fuzz.py                                  # SQLite, 80 examples per operation
    python bench/fuzz.py --examples 150 --max-time 1800 --seed 7
    python bench/fuzz.py --report /tmp/run.ndjson         # summarise an earlier run's NDJSON report

Runs every phase (coverage, fuzzing, stateful through the document's links)
with the checks `not_a_server_error` and `response_schema_conformance`, then
prints JSON: requests sent, answers by status, failures by check and
operation. Nothing here asserts; the suite's bounded run is
tests/e2e/test_fuzz.py.
"""

from __future__ import annotations

import argparse
import collections
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.server import Server  # noqa: E402

CHECKS = "not_a_server_error,response_schema_conformance"


def summarise(report: Path) -> dict[str, Any]:
    requests = 0
    statuses: collections.Counter[str] = collections.Counter()
    failures: collections.Counter[str] = collections.Counter()
    phases: collections.Counter[str] = collections.Counter()
    for line in report.read_text().splitlines():
        event = json.loads(line)
        finished = event.get("ScenarioFinished")
        if not finished:
            continue
        recorder = finished["recorder"]
        for interaction in (recorder.get("interactions") or {}).values():
            requests += 1
            phases[finished.get("phase", "?")] += 1
            response = interaction.get("response")
            statuses[str(response["status_code"]) if response else "no answer"] += 1
        for checks in (recorder.get("checks") or {}).values():
            for check in checks:
                if check.get("status") == "failure":
                    failures[f"{check['name']} {recorder.get('label', '?')}"] += 1
    return {"requests": requests, "by_phase": dict(phases), "by_status": dict(sorted(statuses.items())),
            "failures": dict(failures)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=80)
    parser.add_argument("--max-time", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=1414)
    parser.add_argument("--report", type=Path, help="summarise this NDJSON report instead of running")
    args = parser.parse_args()
    if args.report:
        print(json.dumps(summarise(args.report), indent=2))
        return
    folder = Path(tempfile.mkdtemp(prefix="stalwart-fuzz-"))
    st = Path(sys.executable).with_name("st")
    start = time.monotonic()
    (folder / "data").mkdir()
    with Server(folder / "data") as server:
        done = subprocess.run(
            [str(st), "run", f"{server.url}/api/schema/?format=json", "--checks", CHECKS,
             "--max-examples", str(args.examples), "--max-time", str(args.max_time), "--seed", str(args.seed),
             "--request-timeout", "30", "--continue-on-failure", "--no-color",
             "--report", "ndjson", "--report-dir", str(folder)],
            capture_output=True, text=True, cwd=folder,
        )
        server_errors = server.log().count("internal error (request")
    report = next(folder.glob("*.ndjson"))
    figures = summarise(report)
    figures.update({"seconds": round(time.monotonic() - start, 1), "seed": args.seed,
                    "examples_per_operation": args.examples, "schemathesis_exit": done.returncode,
                    "server_logged_500s": server_errors, "report": str(report)})
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
