"""The gateway's MCP side (async): one low-level MCP server per agent.

``tools/list`` is the agent's catalogue less its withdrawn tools, plus
``stalwart_pause_status``. ``tools/call`` proposes the call to the engine
(``calls.call_start``); what is not a wait is answered at once (a read's
result, a refusal as ``isError`` with its rule and sentence). A write that
waits for a person, in this order of preference:

1. ``mcp: {approver: client}`` and a client that takes form elicitation: the
   client is asked (the pause's question, its choices), and its answer goes
   through the same claim as any other; a decline skips;
2. a client that takes URL elicitation: it is sent to the pause's page in the
   console, which checks who opens it, and the call is held;
3. otherwise the call is held, with progress notifications naming the pause
   when the client sent a ``progressToken``.

A held call waits for the run to go on (woken by the thread's events on the
channel layer, and reading the run every ``POLL`` seconds whatever the layer
says), up to the wait budget (the agent's ``mcp: {wait: SECONDS}``, else the
known limit of the client that calls, else 50 s); then it answers
``{"status": "waiting", "pause": {...}}``. Answered anywhere (console,
widget, HTTP, a webhook channel, this client), one claim decides; the held
call gets the outcome, or, if the client gave up, the same call repeated
later gets it (``calls.call_start``). A cancelled or dropped request leaves
the pause as it was.

Both protocol eras the SDK serves from one endpoint are served: a
2025-11-25 (handshake) client is asked by elicitation requests sent to it;
a 2026-07-28 client is asked by an ``InputRequiredResult`` and answers by
calling again. ``notifications/tools/list_changed`` reaches the first on its
session, the second on its ``subscriptions/listen`` stream.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from typing import Any

import mcp.types as types
from asgiref.sync import SyncToAsync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import connections
from django.utils import translation
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from mcp.server import NotificationOptions, Server, ServerRequestContext
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from catalogue import registry
from doors.mcp import calls
from doors.mcp.calls import Caller, Held
from doors.mcp.limits import InProgress

log = logging.getLogger("stalwart.mcp")

DEFAULT_WAIT = 50.0
# The known limits of shipped clients on a tool call (seconds), by the name they give themselves: a
# held call answers "waiting" before the client gives up on it.
CLIENT_WAITS = (("cursor", 270.0), ("claude", 50.0), ("vscode", 50.0), ("visual studio code", 50.0))
DELIVER = "stalwart_mcp_deliver"  # on an HTTP request's scope: names a call's outcome about to be sent
POLL = 2.0  # seconds between reads of a held call's run, whatever the channel layer says
PROGRESS_EVERY = 5.0
WATCH_EVERY = 2.0  # seconds between looks at the agent's withdrawn tools

TEXT_WAITING = _("{tool} waits for a person's approval (pause {pause}): {url}. Call {status_tool} with "
                 "this pause id, or make the same call again, to get its outcome.")
TEXT_PROGRESS = _("Waiting for a person to approve {tool} (pause {pause}): {url}")
TEXT_SKIPPED = _("{tool} was skipped: a person decided not to run it.")
TEXT_CANCELLED = _("{tool} was cancelled, with the rest of its run.")
TEXT_UNDONE = _("{tool} ran and was undone since.")
TEXT_UNKNOWN = _("{tool} may or may not have taken effect (its reply was lost); a person decides which "
                 "(pause {pause}). It is not sent again.")
TEXT_STUCK = _("Undoing {tool}'s run is stuck; a person decides what to do (pause {pause}).")
TEXT_FAILED = _("{tool} failed: {error}")
TEXT_LOST = _("Your answer came after another one: the pause was answered already.")
TEXT_NO_PAUSE = _("No pause with that id waits for this client.")
TEXT_ASK_DECISION = _("{question} Choose one: {choices}.")
TEXT_ASK_URL = _("{tool} waits for a person's approval: this page shows what becomes of it.")
# The engine's outcome words, as the gateway's results say them (a call still on its way waits too).
STATUS_SHOWN = {"running": "waiting", "superseded": "cancelled"}


def _connections_tidied() -> None:
    """Around each ``db`` hop, as Channels' ``close_old_connections``, but a SQLite connection in
    good order is kept for the thread's next hop: opening one (and its pragmas) cost a read about as
    much as the statements it sends (docs/decisions.md, "A gateway read's cost"). The hops run on the
    event loop's few worker threads, each with its own connection (Django's are per thread), so they
    stay few; one in a transaction, after an error or with autocommit changed is closed as before.
    PostgreSQL's connections go back to their pool."""
    for conn in connections.all(initialized_only=True):
        if (conn.vendor == "sqlite" and conn.connection is not None and not conn.in_atomic_block
                and not conn.errors_occurred and conn.get_autocommit() == conn.settings_dict["AUTOCOMMIT"]):
            continue
        conn.close_if_unusable_or_obsolete()


class _Hop(SyncToAsync):
    def thread_handler(self, loop: Any, *args: Any, **kwargs: Any) -> Any:
        _connections_tidied()
        try:
            return super().thread_handler(loop, *args, **kwargs)
        finally:
            _connections_tidied()


def db(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` in a worker thread of the event loop's, as Channels runs the ORM from async code
    (``_connections_tidied`` before and after): held calls poll side by side, not one at a time."""
    return _Hop(fn, thread_sensitive=False)


def wait_budget(configured: float | None, client_name: str) -> float:
    if configured is not None:
        return configured
    name = client_name.lower()
    return next((seconds for known, seconds in CLIENT_WAITS if known in name), DEFAULT_WAIT)


def _text(value: str) -> list[types.ContentBlock]:
    return [types.TextContent(type="text", text=value)]


def unknown_tool(name: str, sentence: str) -> MCPError:
    """A tool the catalogue does not list: the JSON-RPC error the MCP specification's tools page gives
    (``-32602``, ``Unknown tool: NAME``), not a result; the check's sentence, in the agent's language, as
    its data. Nothing was stored (the engine refuses it before anything is)."""
    def shown(text: str) -> str:  # a lone surrogate, written out: JSON cannot carry it
        return text.encode("utf-8", "backslashreplace").decode("utf-8")

    return MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {shown(name[:80])}",
                    data={"rule": calls.UNKNOWN_TOOL, "sentence": shown(sentence)})


class _ToolsChangeServer(Server[Any]):
    """Says ``tools.listChanged: true`` to handshake-era clients (a plain low-level server says false)."""

    def create_initialization_options(self, notification_options: NotificationOptions | None = None,
                                      experimental_capabilities: Any = None, extensions: Any = None) -> Any:
        return super().create_initialization_options(
            notification_options or NotificationOptions(tools_changed=True), experimental_capabilities, extensions)


class Gateway:
    """One agent's MCP server, its handlers, and who is told when its tools change."""

    def __init__(self, agent_name: str, *, base_url: str = "") -> None:
        self.agent_name = agent_name
        self.base_url = base_url  # where the console is, when requests do not say (stdio)
        self.bus = InMemorySubscriptionBus()
        self.sessions: dict[str, Any] = {}  # handshake-era sessions, for list_changed
        self.withdrawn: frozenset[str] | None = None
        self.unsent: dict[Any, int] = {}  # stdio: request id -> the call's journal row, delivered once sent
        self.in_progress = InProgress()
        self.server = _ToolsChangeServer(
            f"Stalwart {agent_name}", version="1",
            instructions=("Every call goes through Stalwart's check: reads run, writes wait for a person's "
                          "approval, refusals say why."),
            on_list_tools=self.list_tools, on_call_tool=self.call_tool_limited,
            on_subscriptions_listen=ListenHandler(self.bus))

    # --- who calls -----------------------------------------------------------------------------------------
    @staticmethod
    def client_name(ctx: ServerRequestContext[Any]) -> str:
        params = ctx.session.client_params
        return params.client_info.name if params is not None and params.client_info is not None else ""

    def caller(self, ctx: ServerRequestContext[Any]) -> Caller:
        scope = ctx.request.scope if ctx.request is not None else {}
        return calls.caller_for(scope.get("stalwart_mcp_client"), self.client_name(ctx))

    def url_base(self, ctx: ServerRequestContext[Any]) -> str:
        if ctx.request is not None:
            return f"{ctx.request.url.scheme}://{ctx.request.url.netloc}"
        return self.base_url

    def remember(self, ctx: ServerRequestContext[Any]) -> None:
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return  # told on its subscriptions/listen stream
        key = ctx.request.headers.get("mcp-session-id", "") if ctx.request is not None else "stdio"
        self.sessions[key or str(id(ctx.session))] = ctx.session

    # --- tools/list -------------------------------------------------------------------------------------------
    async def list_tools(self, ctx: ServerRequestContext[Any],
                         params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        self.remember(ctx)
        agent = await db(calls.agent_of)(self.agent_name)
        shown = await db(calls.tools_shown)(agent)
        return types.ListToolsResult(tools=[types.Tool(
            name=t["name"], description=t["description"], input_schema=t["input_schema"],
            annotations=types.ToolAnnotations(read_only_hint=t["read_only"], destructive_hint=t["destructive"],
                                              idempotent_hint=t["idempotent"], open_world_hint=True),
        ) for t in shown])

    # --- tools/call ---------------------------------------------------------------------------------------------
    async def call_tool_limited(self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> Any:
        """``call_tool`` within the caller's limit of calls in progress (``doors.mcp.limits``)."""
        scope = ctx.request.scope if ctx.request is not None else {}
        with self.in_progress.one(str(scope.get("stalwart_mcp_caller") or "stdio"), settings.STALWART_MCP_HELD):
            return await self.call_tool(ctx, params)

    async def call_tool(self, ctx: ServerRequestContext[Any],
                        params: types.CallToolRequestParams) -> types.CallToolResult | types.InputRequiredResult:
        self.remember(ctx)
        agent = await db(calls.agent_of)(self.agent_name)
        caller = self.caller(ctx)
        arguments = dict(params.arguments or {})
        with translation.override(agent.default_language):
            if params.name == calls.PAUSE_STATUS_TOOL:
                found = await db(calls.pause_of)(caller, str(arguments.get("pause_id", "")))
                if found is None:
                    return types.CallToolResult(content=_text(gettext(TEXT_NO_PAUSE)), is_error=True,
                                                structured_content={"status": "not_found"})
                return self.result(params.name, found, self.url_base(ctx))
            held = await db(calls.call_start)(caller, agent, params.name, arguments)
            if held.outcome.status == "refused" and held.outcome.rule == calls.UNKNOWN_TOOL:
                raise unknown_tool(params.name, held.outcome.sentence)
            if held.outcome.status == "waiting" and held.pause is not None:
                asked = await self.ask(ctx, params, caller, agent, held)
                if isinstance(asked, types.InputRequiredResult):
                    return asked
                held = asked
            if held.waits:
                held = await self.hold(ctx, caller, held, wait_budget(agent.mcp.wait, self.client_name(ctx)))
            if not held.waits:
                self.deliver_on_send(ctx, held.replay_id)
            return self.result(params.name, held, self.url_base(ctx))

    def deliver_on_send(self, ctx: ServerRequestContext[Any], replay_id: int | None) -> None:
        """The call's outcome counts as delivered once the client's transport took its result: over
        HTTP when the response carrying it was sent to a client still there, on the call's POST or on the
        GET that resumed its stream (``doors.mcp.wire``),
        over stdio when the result went out on stdout (``doors.mcp.stdio``). Until then the same call
        gets it again."""
        if replay_id is None:
            return
        scope = ctx.request.scope if ctx.request is not None else None
        if scope is not None and callable(scope.get(DELIVER)):
            scope[DELIVER](ctx.request_id, replay_id)
        else:
            self.unsent[ctx.request_id] = replay_id

    async def ask(self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams, caller: Caller,
                  agent: Any, held: Held) -> Held | types.InputRequiredResult:
        """Elicitation, where the client takes it (see the module's docstring); else the call as it is."""
        pause = held.pause
        assert pause is not None
        caps = ctx.session.client_capabilities
        elicits = caps.elicitation if caps is not None else None
        form = elicits is not None and elicits.form is not None
        url = elicits is not None and elicits.url is not None
        modern = ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
        responses = params.input_responses or {}
        if agent.mcp.approver == "client" and form and pause.kind == "confirm":
            schema = {"type": "object", "required": ["decision"], "properties": {
                "decision": {"type": "string", "enum": list(pause.choices), "title": pause.question}}}
            message = gettext(TEXT_ASK_DECISION).format(question=pause.question, choices=", ".join(pause.choices))
            if modern:
                answer = responses.get("decision")
                if not isinstance(answer, types.ElicitResult):
                    return types.InputRequiredResult(input_requests={"decision": types.ElicitRequest(
                        params=types.ElicitRequestFormParams(message=message, requested_schema=schema))})
            else:
                answer = await ctx.session.elicit_form(message, schema, related_request_id=ctx.request_id)
            return await self.answered(caller, held, answer)
        if url:
            link = calls.pause_url(pause.id, self.url_base(ctx))
            message = gettext(TEXT_ASK_URL).format(tool=pause.tool)
            if modern:
                if not isinstance(responses.get("approval"), types.ElicitResult):
                    return types.InputRequiredResult(input_requests={"approval": types.ElicitRequest(
                        params=types.ElicitRequestURLParams(message=message, url=link))})
            else:
                # Told, not awaited: the person answers on the page; the call is held meanwhile.
                asyncio.ensure_future(self._elicit_url(ctx, message, link, pause.id))
        return held

    @staticmethod
    async def _elicit_url(ctx: ServerRequestContext[Any], message: str, link: str, pause_id: str) -> None:
        try:
            await ctx.session.elicit_url(message, link, pause_id, related_request_id=ctx.request_id)
        except Exception:  # a client that went away, or refused: the call is held all the same
            log.info("URL elicitation for pause %s was not taken", pause_id, exc_info=True)

    async def answered(self, caller: Caller, held: Held, answer: types.ElicitResult) -> Held:
        """The client's own answer to a form elicitation: accept with a decision, decline skips, cancel waits on."""
        if answer.action == "cancel":
            return held
        decision = "skip"
        if answer.action == "accept":
            decision = str((answer.content or {}).get("decision") or "approve")
        return await db(calls.answer_for)(caller, held, decision)

    async def hold(self, ctx: ServerRequestContext[Any], caller: Caller, held: Held, budget: float) -> Held:
        """Wait for the run to go on, up to ``budget`` seconds (see the module's docstring)."""
        from threads.engine import thread_group

        started = time.monotonic()
        deadline = started + budget
        layer = get_channel_layer()
        channel = await layer.new_channel() if layer is not None else None
        group = thread_group(caller.thread_id)
        if layer is not None:
            await layer.group_add(group, channel)
        told = -PROGRESS_EVERY
        try:
            while held.waits:
                now = time.monotonic()
                if now >= deadline:
                    break
                if now - told >= PROGRESS_EVERY and held.pause is not None:
                    told = now
                    await ctx.session.report_progress(now - started, budget, gettext(TEXT_PROGRESS).format(
                        tool=held.pause.tool, pause=held.pause.id,
                        url=calls.pause_url(held.pause.id, self.url_base(ctx))))
                wait = min(POLL, deadline - now, PROGRESS_EVERY)
                if layer is not None:
                    try:
                        await asyncio.wait_for(layer.receive(channel), timeout=wait)
                    except TimeoutError:
                        pass
                else:
                    await asyncio.sleep(wait)
                held = await db(calls.call_outcome)(held)
        finally:
            if layer is not None:
                try:
                    await layer.group_discard(group, channel)
                except Exception:  # the call's answer matters more than a layer that went away
                    log.warning("could not leave group %s", group, exc_info=True)
        return held

    # --- results -----------------------------------------------------------------------------------------------
    def result(self, tool: str, held: Held, base: str) -> types.CallToolResult:
        outcome = held.outcome
        status = STATUS_SHOWN.get(outcome.status, outcome.status)
        lost = f"{gettext(TEXT_LOST)} " if held.lost else ""
        if status == "done":
            result = outcome.result if isinstance(outcome.result, dict) else {"result": outcome.result}
            return types.CallToolResult(
                content=_text(lost + json.dumps(outcome.result, ensure_ascii=False, default=str)),
                structured_content=result)
        if status == "refused":
            return types.CallToolResult(content=_text(outcome.sentence), is_error=True, structured_content={
                "status": "refused", "rule": outcome.rule, "sentence": outcome.sentence})
        pause = outcome.pause
        if status in ("waiting", "outcome_unknown", "saga_stuck") and pause is not None:
            shown = calls.pause_shown(pause, base)
            words = {"waiting": TEXT_WAITING, "outcome_unknown": TEXT_UNKNOWN, "saga_stuck": TEXT_STUCK}
            sentence = calls.refused_said(held) + gettext(words[status]).format(
                tool=pause.tool or tool, pause=pause.id, url=shown["url"], status_tool=calls.PAUSE_STATUS_TOOL)
            body = {"status": status, "pause": shown, **({"not_an_approver": held.refused} if held.refused else {})}
            return types.CallToolResult(content=_text(sentence), structured_content=body)
        if status == "waiting":  # on its way (an approved call being sent)
            return types.CallToolResult(content=_text(outcome.reply or status),
                                        structured_content={"status": "waiting", "run": outcome.run})
        words = {"skipped": TEXT_SKIPPED, "cancelled": TEXT_CANCELLED, "undone": TEXT_UNDONE, "failed": TEXT_FAILED}
        sentence = gettext(words.get(status, TEXT_FAILED)).format(tool=tool, error=outcome.error)
        body: dict[str, Any] = {"status": status}
        if outcome.error:
            body["error"] = outcome.error
        if held.lost:
            body["lost"] = True
        return types.CallToolResult(content=_text(lost + sentence), structured_content=body,
                                    is_error=status in ("refused", "failed"))

    # --- tools that change --------------------------------------------------------------------------------------
    async def watch(self) -> None:
        """Tell clients when an operator withdraws or restores a tool (in any process: the
        withdrawals are read through their shared cache token, which costs no query)."""
        while True:
            try:
                agent = await db(calls.agent_of)(self.agent_name)
                withdrawn = await db(registry.withdrawn_tools)(agent)
                if self.withdrawn is not None and withdrawn != self.withdrawn:
                    await self.tools_changed()
                self.withdrawn = withdrawn
            except asyncio.CancelledError:
                raise
            except Exception:  # a database away for a moment: look again next time
                log.warning("could not read the withdrawn tools of %s", self.agent_name, exc_info=True)
            await asyncio.sleep(WATCH_EVERY)

    async def tools_changed(self) -> None:
        await self.bus.publish(ToolsListChanged())
        for key, session in list(self.sessions.items()):
            try:
                await session.send_tool_list_changed()
            except Exception:  # a session that ended
                self.sessions.pop(key, None)
