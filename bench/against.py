"""``--against DIR``, shared by bench/hitl.py, bench/mcp.py and bench/agui.py (docs/benchmarks.md).

DIR is another checkout of Stalwart (an earlier commit in a ``git worktree``,
with its own ``.venv``). Its own copy of the same bench runs one round at a
time, with the same arguments but ``--rounds 1``, between this tree's rounds,
who goes first alternating (this tree in odd rounds), in a data folder of its
own and, on PostgreSQL, a database of its own; the last line of its stdout is
one JSON object, which is read. Printed: each side's median rates and, the
figure that travels, the median of the per-round ratios (this tree's rate over
the other's, the two measured minutes apart on the same machine).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

T = TypeVar("T")
U = TypeVar("U")
HELP = ("another checkout of Stalwart (with its own .venv) whose own copy of this bench runs round by round "
        "with this one: before and after a change, in one run")
SETUP = "(git worktree add ../before COMMIT, then its ./scripts/test --co -q once)"


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def python(folder: Path) -> Path:
    return folder / ".venv" / "bin" / "python"


def checkout(folder: Path, script: str) -> Path:
    """The other checkout, resolved; a clear exit unless it has ``bench/<script>`` and its own virtualenv."""
    folder = folder.resolve()
    if not (folder / "bench" / script).exists() or not python(folder).exists():
        raise SystemExit(f"--against needs a checkout with bench/{script} and its own .venv: {folder} {SETUP}")
    return folder


def commit(folder: Path) -> str:
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=folder, capture_output=True,
                          text=True).stdout.strip() or "?"


def other_database(url: str) -> str:
    """The other checkout's database beside this tree's: the same server, the name with ``_against``."""
    parts = urlsplit(url)
    return parts._replace(path=(parts.path.rstrip("/") or "/stalwart") + "_against").geturl()


def separate(mine: str, theirs: str, what: str) -> None:
    """Never one database for both sides: the two schemas may differ."""
    if mine == theirs:
        raise SystemExit(f"{what} (the two schemas may differ)")


def pg_ensure(url: str, hint: str = "Start it or pass another URL.") -> None:
    """Connect, creating the database if the server answers but it does not exist; else a clear exit."""
    import psycopg
    from psycopg import sql
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    try:
        psycopg.connect(url, connect_timeout=5).close()
        return
    except psycopg.OperationalError as exc:
        if "does not exist" not in str(exc):
            raise SystemExit(f"PostgreSQL does not answer at {url}: {str(exc).strip()}\n{hint}") from None
    name = conninfo_to_dict(url)["dbname"]
    with psycopg.connect(make_conninfo(url, dbname="postgres"), autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    log(f"created database {name}")


def run(folder: Path, script: str, argv: list[str], *, timeout: float,
        env: dict[str, str] | None = None) -> dict[str, Any]:
    """One run of the other checkout's ``bench/<script>`` in its own virtualenv: its last stdout line, read.

    This tree's data folder and database are not passed on (``env`` may name the other's database)."""
    clean = {k: v for k, v in os.environ.items() if k not in ("STALWART_DATA_DIR", "DATABASE_URL")}
    done = subprocess.run([str(python(folder)), f"bench/{script}", *argv], cwd=folder, capture_output=True,
                          text=True, timeout=timeout, env={**clean, **(env or {})})
    if done.returncode != 0 or not done.stdout.strip():
        raise RuntimeError(f"the other checkout's bench failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def other_round(folder: Path, script: str, argv: list[str], rnd: int, rounds: int, *, timeout: float,
                env: dict[str, str] | None = None) -> dict[str, Any]:
    log(f"round {rnd}/{rounds}: the other checkout ({folder.name}) ...")
    return run(folder, script, [*argv, "--rounds", "1"], timeout=timeout, env=env)


def alternate(rnd: int, mine: Callable[[], T], other: Callable[[], U] | None) -> tuple[T, U | None]:
    """Round ``rnd`` (from 1) of both sides: this tree first in odd rounds, the other first in even ones."""
    if other is None:
        return mine(), None
    if rnd % 2 == 0:
        theirs = other()
        return mine(), theirs
    ours = mine()
    return ours, other()


def median_ratio(mine: Iterable[float], theirs: Iterable[float]) -> float:
    """This tree's rate over the other's, per round, then the median."""
    return round(statistics.median(m / t for m, t in zip(mine, theirs, strict=True)), 3)


Rates = dict[str, dict[str, float]]  # one round of one side: {measure: {"per_s": ..., "p50_ms": ...}}


def summary(folder: Path, mine: list[Rates], theirs: list[Rates]) -> dict[str, Any]:
    """Both sides' medians per measure and the median of the per-round ratios of ``per_s``."""
    measures: dict[str, Any] = {}
    for name in mine[0]:
        if not all(name in t for t in theirs):
            continue
        measures[name] = {side: {k: round(statistics.median(r[name][k] for r in rounds), 2) for k in rounds[0][name]}
                          for side, rounds in (("this", mine), ("other", theirs))}
        measures[name]["ratio"] = median_ratio((r[name]["per_s"] for r in mine), (t[name]["per_s"] for t in theirs))
    return {"folder": str(folder), "commit": commit(folder), "rounds": theirs, "measures": measures}


def lines(result: dict[str, Any], unit: str) -> str:
    """The table ``--against`` prints: each side's median rate and p50, then the ratio of the rates."""
    width = max([len(n) for n in result["measures"]] + [8])
    out = [f"This tree / the other checkout ({result['folder']}, {result['commit']}), "
           f"median of {len(result['rounds'])} round(s) each; ratio: median of the per-round ratios",
           f"  {'':<{width}}{'this ' + unit:>13}{'p50 ms':>9}{'other ' + unit:>13}{'p50 ms':>9}{'ratio':>8}{'change':>9}"]
    for name, m in result["measures"].items():
        this, other, r = m["this"], m["other"], m["ratio"]
        out.append(f"  {name:<{width}}{this['per_s']:>13}{this.get('p50_ms', '-'):>9}{other['per_s']:>13}"
                   f"{other.get('p50_ms', '-'):>9}{r:>8.3f}{(r - 1) * 100:>+8.1f}%")
    return "\n".join(out)


def log_rates(rates: Rates, unit: str) -> None:
    log("  " + "  ".join(f"{name} {f['per_s']}{unit}" for name, f in rates.items()))
