"""The console's staff stream (docs/decisions.md, "The queue staff live in"):
every pause opened or closed, and every approval short of a policy's quorum,
across threads, as server-sent events at ``GET /admin/threads/interrupt/stream``.

A Channels consumer (``stalwart_site.routing``) with the admin's session
cookie: active staff who may see pauses (``threads.view_interrupt``, checked
here, not in the page), from this site's own pages only; anyone else gets
the 404 a missing route would. It joins the channel layer's staff group
(``threads.engine.STAFF_GROUP``), which the engine tells after each commit
that opened or closed a pause, on any worker: with Redis, a pause made on one
worker reaches the queues another serves.

Events::

    event: pause   id: <the event's row id>   data: {"change": "opened"|"closed"|"approved", "pause", "thread", ...}
    event: count   data: {"count": N, "words": "N"}   (open pauses, for a person who may answer)

``id`` is the row id of the thread event that told it, one sequence across
threads, so a stream resumed with ``Last-Event-ID`` replays what it missed
(at most ``REPLAY_LIMIT``; past that it says ``reset`` and the page reads its
rows again). A fresh stream starts with an ``hello`` carrying the current last
id, so the browser's ``EventSource`` resumes from there. A quiet stream reads
the database once a minute and after a channel-layer failure, as the thread
stream does. The count is read once per worker per change, however many
staff streams that worker holds (``_counts``).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import OrderedDict
from typing import Any

from channels.exceptions import StopConsumer
from channels.generic.http import AsyncHttpConsumer

from approvals.templatetags.console import count_words, open_count
from threads.consumers import DETAIL_GET_ONLY, DETAIL_HOST, Follower, scope_headers, scope_query, scope_staff
from threads.engine import STAFF_GROUP, pause_change
from threads.errors import BadRequest, NotFound
from threads.models import Event
from threads.origins import host_allowed
from threads.streams import CATCH_UP_EVERY, HEARTBEAT, RETRY_MS, db_call, last_event_id_given

log = logging.getLogger("stalwart.streams")

REPLAY_LIMIT = 500
VIEW = "threads.view_interrupt"
ANSWER = "threads.answer_interrupt"


def block(event: str, data: Any, event_id: int | None = None) -> str:
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {json.dumps(data, ensure_ascii=False, separators=(',', ':'))}\n\n"


def changes_after(after: int, limit: int = REPLAY_LIMIT) -> tuple[list[dict[str, Any]], int]:
    """The pause changes stored after event ``after`` (oldest first), and the last event id now."""
    rows = list(Event.objects.filter(pk__gt=after, type__in=[Event.Type.WAITING, Event.Type.ANSWERED, Event.Type.APPROVAL])
                .order_by("pk").values_list("pk", "type", "data", "thread_id")[:limit + 1])
    changes = [c for pk, type_, data, thread in rows[:limit] if (c := pause_change(pk, type_, data, thread))]
    if len(rows) > limit:
        changes.append({"id": rows[limit - 1][0], "change": "reset"})
    return changes, last_event_id()


def last_event_id() -> int:
    return int(Event.objects.order_by("-pk").values_list("pk", flat=True).first() or 0)


def may(user: Any) -> tuple[bool, bool]:
    """(may follow, may answer): the permissions, read in a worker thread."""
    return bool(user.has_perm(VIEW)), bool(user.has_perm(ANSWER))


# The open count per change, shared by this worker's streams: the first stream told of a
# change reads it; the others wait for that read. Keyed by the change's last event id.
_counts: OrderedDict[Any, asyncio.Future[int]] = OrderedDict()


async def count_for(key: Any) -> int:
    found = _counts.get(key)
    if found is None:
        found = asyncio.get_running_loop().create_future()
        _counts[key] = found
        while len(_counts) > 32:
            _counts.popitem(last=False)
        try:
            found.set_result(await db_call(open_count)())
        except Exception as exc:  # noqa: BLE001 - every waiter gets the same failure
            found.set_exception(exc)
            _counts.pop(key, None)
    return await asyncio.shield(found)


class StaffPausesConsumer(Follower, AsyncHttpConsumer):  # type: ignore[misc]
    """``GET /admin/threads/interrupt/stream``: pauses opened and closed, for staff."""

    joined = False
    answers = False
    beating: asyncio.Task[None] | None = None

    async def http_request(self, message: dict[str, Any]) -> None:
        if message.get("more_body"):
            return
        if not await self.stream_open():
            raise StopConsumer()

    async def stream_open(self) -> bool:
        headers = scope_headers(self.scope)
        if not host_allowed(headers.get("host", "")):
            await self._json(400, BadRequest(DETAIL_HOST).body())
            return False
        if self.scope.get("method") != "GET":
            await self._json(405, BadRequest(DETAIL_GET_ONLY).body(), [(b"allow", b"GET")])
            return False
        user = self.scope.get("user")
        if not scope_staff(self.scope, headers.get("origin")):
            await self._not_found()
            return False
        view, self.answers = await db_call(may)(user)
        if not view:
            await self._not_found()
            return False
        # None (none given, or not a number) starts afresh.
        last = last_event_id_given(headers.get("last-event-id") or scope_query(self.scope, "last_event_id"))
        self.lock = asyncio.Lock()
        self.sent: OrderedDict[int, None] = OrderedDict()
        # Join before reading: a change committed in between arrives live and is dropped as sent.
        await self.channel_layer.group_add(STAFF_GROUP, self.channel_name)
        self.joined = True
        await self.send_headers(status=200, headers=[
            (b"content-type", b"text/event-stream; charset=utf-8"), (b"cache-control", b"no-store"),
            (b"x-accel-buffering", b"no")])
        await self.send_body(f"retry: {RETRY_MS}\n\n".encode(), more_body=True)
        if last is None:
            self.high = await db_call(last_event_id)()
            await self._send(block("hello", {"last": self.high}, self.high))
        else:
            self.high = int(last)
            await self.catch_up()
        await self._send_count(("open", self.high))
        self.beating = asyncio.ensure_future(self.beat())
        return True

    async def _not_found(self) -> None:
        await self._json(404, NotFound().body())

    async def _json(self, status: int, body: dict[str, Any], more: list[tuple[bytes, bytes]] | None = None) -> None:
        """A refusal in the HTTP API's error shape, ``{"error", "detail"}``, as the thread stream's."""
        await self.send_response(status, json.dumps(body).encode(), headers=[
            (b"content-type", b"application/json"), (b"cache-control", b"no-store"), *(more or [])])

    async def _send(self, text: str) -> None:
        await self.send_body(text.encode(), more_body=True)

    async def _send_changes(self, changes: list[dict[str, Any]]) -> bool:
        out = []
        for change in changes:
            key = change.get("id")
            if isinstance(key, int):
                if key in self.sent:
                    continue
                self.sent[key] = None
                while len(self.sent) > 4 * REPLAY_LIMIT:
                    self.sent.popitem(last=False)
                self.high = max(self.high, key)
            out.append(block("pause", {k: v for k, v in change.items() if k != "id"}, key))
        if out:
            async with self.lock:
                await self._send("".join(out))
        return bool(out)

    async def _send_count(self, key: Any) -> None:
        if not self.answers:
            return
        count = await count_for(key)
        async with self.lock:
            await self._send(block("count", {"count": count, "words": count_words(count)}, self.high))

    async def catch_up(self) -> None:
        changes, _now = await db_call(changes_after)(self.high)
        if await self._send_changes(changes):
            await self._send_count(("caught-up", self.high))

    async def beat(self) -> None:
        beats = 0
        while True:
            await asyncio.sleep(HEARTBEAT)
            beats += 1
            async with self.lock:
                await self._send(": heartbeat\n\n")
            if beats % CATCH_UP_EVERY == 0:
                await self.catch_up()

    async def pauses_change(self, message: dict[str, Any]) -> None:
        changes = [c for c in message.get("changes", []) if isinstance(c, dict)]
        if await self._send_changes(changes):
            await self._send_count(("live", max((c.get("id") or 0) for c in changes)))

    async def stream_catch_up(self, message: dict[str, Any]) -> None:
        await self.catch_up()

    async def disconnect(self) -> None:
        if self.beating is not None:
            self.beating.cancel()
        if self.joined:
            try:
                await self.channel_layer.group_discard(STAFF_GROUP, self.channel_name)
            except Exception:  # the client is gone either way
                log.warning("could not leave the staff group", exc_info=True)
