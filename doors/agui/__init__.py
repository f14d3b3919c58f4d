"""AG-UI (docs/ag-ui.md): a Stalwart agent driven by any AG-UI client
(CopilotKit, ``@ag-ui/client``'s ``HttpAgent``), its pauses as the
protocol's interrupts and resumes.

- ``events``: what the engine answers, in AG-UI's shapes (the
  ``ag-ui-protocol`` package's models): tool calls, results, the reply, the
  state and messages snapshots, a pause as an ``Interrupt`` with its
  ``responseSchema``.
- ``runs``: a request's work through the engine's facade: a turn (its user
  message's id the idempotency key), a resume (every open pause answered,
  each checked before any is claimed), the thread as it stands (connect).
- ``views``: ``POST /agui/<agent>/``, ``GET /agui/<agent>/info``,
  ``POST /agui/<agent>/connect`` (the file's first agent also at ``/agui/``).
"""
