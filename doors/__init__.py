"""The doors: each the mapping of one protocol onto the engine's facade
(``threads.engine``), and nothing else.

- ``doors.http``: the HTTP API (turns, pauses, resumes, plans, rollback,
  feedback, configuration; the widget speaks it);
- ``doors.mcp``: the MCP gateway (streamable HTTP and stdio), with its
  client keys;
- ``doors.agui``: AG-UI, for CopilotKit and ``@ag-ui/client`` front ends;
- ``doors.langgraph``: the LangGraph bridge over a team's compiled graph,
  and the LangChain ``create_agent`` middleware.

A door turns its protocol's request into a call of the facade and the
facade's typed answer into its protocol's reply. It reads no run-store
table (an import-linter contract forbids ``threads.models`` and the engine's
submodules here), re-checks nothing the engine checks, keeps no state
machine of its own (the calls it may see twice are rows of the engine's
replay journal) and starts no thread (background work is the serving
process's ``Worker``). Every door passes the conformance suite
(docs/conformance.md).
"""
