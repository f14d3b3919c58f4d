"""The MCP gateway (docs/mcp.md): an agent's tools served to any MCP client,
every call through Stalwart's check, its pauses, receipts and console.

- ``calls``: the Django side, sync: who calls (``Caller``), the tools a
  client is shown, a call proposed to the engine (``call_start``) and what
  became of it (``Outcome``), the same call repeated in a session found again.
- ``server``: the MCP protocol side, async: ``tools/list``, ``tools/call``,
  holding a write while it waits (progress, elicitation), both protocol eras
  the SDK serves (the 2025-11-25 handshake one and 2026-07-28).
- ``http``: streamable HTTP at ``/mcp/`` and ``/mcp/<agent>/`` in front of
  Django (bearer keys, loopback without any), ``stdio``: ``stalwart mcp``.
- ``wire``: what goes out over HTTP: the SDK's non-JSON refusals as
  JSON-RPC errors, a result marked delivered once sent; ``events``: the
  2025-11-25 streams resumable with ``Last-Event-ID`` (per worker, bounded).
- ``models``, ``clients``, ``admin``: the clients' keys, made and revoked by
  operators in the console.
"""
