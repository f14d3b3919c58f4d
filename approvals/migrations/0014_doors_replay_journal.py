"""The doors' call tables become rows of the engine's replay journal
(``threads.Replay``), and the MCP clients' keys move to the MCP door's app
(``doors_mcp``: its table is taken over there, its rows kept).

- ``McpCall``: a row per ``tools/call``; an undelivered one stays live (the
  same call in the same session gets its run), a delivered one is kept as
  delivered. Of several undelivered twins (two calls at once, before the
  journal's constraint), the newest stays live and the others expire.
- ``AguiRun``: a turn keyed by its message id, a resume by its pauses; an
  answered one keeps its events; one still being answered stays open and
  held by nobody, so its retry gets what it started.
- ``LangGraphCall``: a mirrored interrupt (pending -> open, resuming ->
  settling with its resume value, resumed -> kept, stale -> expired) or a
  middleware's tool call.
"""

import hashlib
import json

from django.db import migrations

LGC_STATUS = {"pending": "open", "resuming": "settling", "resumed": "kept", "stale": "expired"}


def digest(value):
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, separators=(",", ":"),
                                                          ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()



def made(Replay, created_at, **fields):
    row = Replay.objects.create(**fields)
    Replay.objects.filter(pk=row.pk).update(created_at=created_at)


def calls_to_journal(apps, schema_editor):
    Replay = apps.get_model("threads", "Replay")
    McpCall = apps.get_model("approvals", "McpCall")
    live = set()
    for call in McpCall.objects.order_by("-created_at", "-id").iterator():
        key = (call.thread_id, call.arguments_hash)
        if call.delivered_at is not None:
            status = "delivered"
        elif key in live:
            status = "expired"
        else:
            status = "open"
            live.add(key)
        made(Replay, call.created_at, door="mcp", kind="call", caller=call.thread_id, identity=call.arguments_hash,
             key=call.tool[:255], fingerprint=call.arguments_hash, thread_id=call.thread_id, run_id=call.run_id,
             status=status, meta={"client": call.client, "tool": call.tool}, delivered_at=call.delivered_at)
    AguiRun = apps.get_model("approvals", "AguiRun")
    for row in AguiRun.objects.order_by("created_at", "id").iterator():
        answered = row.answered_at is not None
        made(Replay, row.created_at, door="agui", kind=row.kind, caller=row.thread_id,
             identity=digest(f"{row.kind}\n{row.key}"), key=row.key[:255], fingerprint=row.fingerprint,
             thread_id=row.thread_id, run_id=row.run_id, status="kept" if answered else "open",
             result={"events": row.events} if answered else None, settled_at=row.answered_at)
    LangGraphCall = apps.get_model("approvals", "LangGraphCall")
    for row in LangGraphCall.objects.order_by("created_at").iterator():
        if row.source == "middleware":
            made(Replay, row.created_at, door="langchain", kind="tool_call", caller=row.graph,
                 identity=digest(f"{row.graph_thread}\n{row.tool_call_id}"), key=row.tool_call_id[:255],
                 thread_id=row.thread_id, run_id=row.run_id,
                 status="kept" if row.status == "resumed" else "open",
                 meta={"graph_thread": row.graph_thread})
            continue
        made(Replay, row.created_at, door="langgraph", kind="interrupt", caller=row.graph,
             identity=digest([row.thread_id, row.interrupt_id, row.digest, row.generation]),
             key=row.interrupt_id[:255], fingerprint=row.digest, thread_id=row.thread_id, run_id=row.run_id,
             status=LGC_STATUS[row.status], result=row.resume, settled_at=row.resumed_at,
             meta={"graph": row.graph, "graph_thread": row.graph_thread, "interrupt": row.interrupt_id,
                   "digest": row.digest, "generation": row.generation})


class Migration(migrations.Migration):

    dependencies = [
        ("approvals", "0013_decisions_page"),
        ("threads", "0015_replay_journal"),
    ]

    operations = [
        migrations.RunPython(calls_to_journal, migrations.RunPython.noop),
        migrations.DeleteModel(name="McpCall"),
        migrations.DeleteModel(name="AguiRun"),
        migrations.DeleteModel(name="LangGraphCall"),
        migrations.SeparateDatabaseAndState(state_operations=[migrations.DeleteModel(name="McpClient")]),
    ]
