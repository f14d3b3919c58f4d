"""The floor under a pause and a resume: what their round trips to PostgreSQL
cost with nothing else done.

    python bench/roundtrips.py                       # 10 and 19 round trips, 2,000 times each
    python bench/roundtrips.py --shape pause=9 --shape resume=17 --repeat 5000

A pause is 10 round trips on PostgreSQL (BEGIN, 7 statements, COMMIT, then
the answer's read, which commits on its own) and a resume 19 (two BEGIN ...
COMMIT around 14 statements in all, then the answer's read);
``tests/threads/test_query_counts.py`` pins them. This sends that many bare
``SELECT 1`` through psycopg (the driver Django uses, in the same
transaction shape: BEGIN and COMMIT sent by the driver), so the time per
operation is the least those round trips can cost on this machine and
server, before any SQL is planned or any Python runs. Compare it with
``bench/hitl.py --peer`` in the same session: when the floor of a shape is
above the peer's whole operation, no Python can make that shape as fast.
Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

DEFAULT_PG_URL = "postgres://postgres@127.0.0.1:5432/hitl_bench"
# name: (statements inside transactions, transactions, statements in autocommit)
SHAPES = {"pause": (7, 1, 1), "resume": (14, 2, 1)}  # each: the answer's read in autocommit


def shape_of(text: str) -> tuple[str, tuple[int, int, int]]:
    name, _, trips = text.partition("=")
    total = int(trips)
    if total < 3:
        raise argparse.ArgumentTypeError("a shape is at least BEGIN, one statement and COMMIT")
    return name, (total - 2, 1, 0)


def one(conn: object, statements: int, transactions: int, autocommit: int) -> None:
    for _ in range(autocommit):
        conn.autocommit = True  # type: ignore[attr-defined]
        conn.execute("SELECT 1")  # type: ignore[attr-defined]
    conn.autocommit = False  # type: ignore[attr-defined]
    per = [statements // transactions + (1 if i < statements % transactions else 0) for i in range(transactions)]
    for n in per:
        for _ in range(n):  # the first sends BEGIN before it, as psycopg does for Django
            conn.execute("SELECT 1")  # type: ignore[attr-defined]
        conn.commit()  # type: ignore[attr-defined]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pg-url", default=DEFAULT_PG_URL)
    parser.add_argument("--repeat", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--shape", type=shape_of, action="append",
                        help="name=round trips in one transaction (BEGIN and COMMIT counted); default: pause and resume")
    args = parser.parse_args()
    import psycopg

    shapes = dict(args.shape) if args.shape else SHAPES
    try:
        conn = psycopg.connect(args.pg_url)
    except psycopg.OperationalError as exc:
        raise SystemExit(f"cannot reach PostgreSQL at {args.pg_url}: {exc}") from exc
    out: dict[str, dict[str, float]] = {}
    with conn:
        for name, (statements, transactions, autocommit) in shapes.items():
            trips = statements + 2 * transactions + autocommit
            for _ in range(200):  # warm
                one(conn, statements, transactions, autocommit)
            per_op = []
            for _ in range(args.rounds):
                start = time.perf_counter()
                for _ in range(args.repeat):
                    one(conn, statements, transactions, autocommit)
                per_op.append((time.perf_counter() - start) / args.repeat * 1000)
            ms = statistics.median(per_op)
            out[name] = {"round_trips": trips, "ms_per_op": round(ms, 3), "ops_per_s_at_most": round(1000 / ms, 1),
                         "ms_per_round_trip": round(ms / trips, 4)}
    print(f"{'shape':<10}{'round trips':>12}{'ms/op':>10}{'ops/s at most':>16}{'ms/round trip':>16}")
    for name, row in out.items():
        print(f"{name:<10}{row['round_trips']:>12}{row['ms_per_op']:>10.3f}{row['ops_per_s_at_most']:>16.1f}"
              f"{row['ms_per_round_trip']:>16.4f}")
    print(json.dumps({"bench": "stalwart_roundtrips", "repeat": args.repeat, "rounds": args.rounds, "shapes": out}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
