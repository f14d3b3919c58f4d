"""Many SSE streams on `stalwart serve`: fan-out time and memory per stream.

    python bench/streams.py                           # 1,000 streams on one process (in-memory layer)
    python bench/streams.py --streams 1000 \\
        --database-url postgres://postgres@127.0.0.1:5432/h10 --redis-url redis://127.0.0.1:6379/10
                                                      # and the same over two workers with Redis

One thread gets a first turn; N clients open `GET /threads/{id}/stream` and
read the replay (so each has joined the thread's group). Then one more turn
is posted and each client notes when the turn's event (the next id) arrives.
Printed as JSON: the time from sending the turn until the last stream has the
event (and the median and the first), the server's resident memory per open
stream (VmRSS after minus before, over N), and, with two workers, the same
with half the streams on each worker and the turn posted on the first.
The clients are raw asyncio sockets in this one process, so their own CPU
time is in the figure. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.server import Browser, Server  # noqa: E402


def proc_status(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def rss_kib(pid: int) -> int:
    return proc_status(pid, "VmRSS")


class Stream:
    """One SSE client on a raw socket; looks for ``id: <n>`` lines in what arrives."""

    def __init__(self, port: int, path: str, session: str) -> None:
        self.port, self.path, self.session = port, path, session
        self.buffer = b""
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def open(self, replayed_up_to: int) -> None:
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        self.writer.write((f"GET {self.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
                           f"Stalwart-Session: {self.session}\r\n\r\n").encode())
        await self.writer.drain()
        await self.wait_for(replayed_up_to)

    async def wait_for(self, seq: int) -> float:
        marker = f"id: {seq}\n".encode()
        assert self.reader is not None
        while marker not in self.buffer:
            chunk = await self.reader.read(65536)
            if not chunk:
                raise ConnectionError(f"stream closed before event {seq}: {self.buffer[-300:]!r}")
            self.buffer = self.buffer[-4096:] + chunk
        return time.perf_counter()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


async def fan_out(servers: list[Server], streams: int, batch: int = 50) -> dict[str, Any]:
    """Open ``streams`` streams spread over ``servers``, post a turn on the first, time the fan-out."""
    browser = Browser(servers[0].url)
    thread = f"bench-{uuid.uuid4().hex[:8]}"
    first = browser.say(thread, "show order 4411")
    assert first.status_code == 200, first.text
    session = str(browser.session)
    # The replay's last id: the first turn's events, read once through a short-lived stream.
    replay = Stream(servers[0].port, f"/threads/{thread}/stream", session)
    replay.reader, replay.writer = await asyncio.open_connection("127.0.0.1", servers[0].port)
    replay.writer.write((f"GET /threads/{thread}/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                         f"Stalwart-Session: {session}\r\n\r\n").encode())
    await replay.writer.drain()
    while b"event: reply" not in replay.buffer:
        replay.buffer += await replay.reader.read(65536)
    text = replay.buffer.decode("utf-8", "replace")
    last = max(int(line[4:]) for line in text.splitlines() if line.startswith("id: "))
    replay.close()

    before = {s.port: rss_kib(s.proc.pid) for s in servers if s.proc}
    clients = [Stream(servers[i % len(servers)].port, f"/threads/{thread}/stream", session) for i in range(streams)]
    opened = time.perf_counter()
    for start in range(0, streams, batch):
        await asyncio.gather(*(c.open(last) for c in clients[start:start + batch]))
    open_seconds = time.perf_counter() - opened
    await asyncio.sleep(1.0)
    after = {s.port: rss_kib(s.proc.pid) for s in servers if s.proc}
    threads = {s.port: proc_status(s.proc.pid, "Threads") for s in servers if s.proc}

    waits = [asyncio.ensure_future(c.wait_for(last + 1)) for c in clients]
    await asyncio.sleep(0.2)
    sent = time.perf_counter()
    posted = await asyncio.to_thread(browser.say, thread, "show order 4411")
    answered = time.perf_counter() - sent
    assert posted.status_code == 200, posted.text
    done, pending = await asyncio.wait(waits, timeout=30)
    if pending:
        again = await asyncio.to_thread(browser.say, thread, "show order 4411")
        late, _ = await asyncio.wait(pending, timeout=10)
        print(f"after one more turn ({again.status_code}), {len(late)} of the {len(pending)} late streams had it",
              file=sys.stderr)
        for task in pending:
            task.cancel()
        missing = [i for i, w in enumerate(waits) if w in pending]
        for s in servers:
            print("\n".join(line for line in s.log().splitlines() if "WARNING" in line or "Error" in line
                            or "lost" in line)[-3000:], file=sys.stderr)
        raise SystemExit(f"{len(pending)} of {streams} streams did not get the event in 60 s "
                         f"(per worker: {[sum(1 for i in missing if i % len(servers) == k) for k in range(len(servers))]})")
    arrived = [w.result() for w in waits]
    delays = sorted(t - sent for t in arrived)
    for c in clients:
        c.close()
    browser.close()
    per_worker = {}
    for i, s in enumerate(servers):
        mine = [t - sent for j, t in enumerate(arrived) if j % len(servers) == i]
        per_worker[f"worker_{i + 1}"] = {
            "streams": len(mine),
            "last_s": round(max(mine), 4),
            "memory_per_stream_kib": round((after[s.port] - before[s.port]) / max(1, len(mine)), 1),
            "rss_before_mib": round(before[s.port] / 1024, 1),
            "rss_after_mib": round(after[s.port] / 1024, 1),
            "os_threads_with_streams_open": threads[s.port],
        }
    return {
        "streams": streams,
        "workers": len(servers),
        "open_all_s": round(open_seconds, 2),
        "turn_answered_s": round(answered, 4),
        "first_has_it_s": round(delays[0], 4),
        "median_has_it_s": round(statistics.median(delays), 4),
        "last_has_it_s": round(delays[-1], 4),
        "per_worker": per_worker,
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--streams", type=int, default=1000)
    p.add_argument("--database-url", default="", help="PostgreSQL for the two-worker run")
    p.add_argument("--redis-url", default="", help="Redis for the two-worker run")
    args = p.parse_args()
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="stalwart-bench-") as tmp:
        folder = Path(tmp) / "one"
        folder.mkdir()
        with Server(folder) as server:
            out["one_process_in_memory"] = asyncio.run(fan_out([server], args.streams))
        if args.database_url and args.redis_url:
            folder = Path(tmp) / "two"
            folder.mkdir()
            env = {"DATABASE_URL": args.database_url, "REDIS_URL": args.redis_url, "STALWART_WORKERS": "2"}
            with Server(folder, env=env) as a, Server(folder, env=env) as b:
                out["two_workers_redis"] = asyncio.run(fan_out([a, b], args.streams))
        else:
            out["two_workers_redis"] = "skipped: pass --database-url (PostgreSQL) and --redis-url"
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
