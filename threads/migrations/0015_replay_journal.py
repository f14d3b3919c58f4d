"""The replay journal (``threads.Replay``) replaces ``IdempotencyKey``: each
kept ``Idempotency-Key`` becomes a row of the HTTP door. A key whose request
was still running becomes an open row held by nobody, so its retry gets the
answer of what it started instead of "in progress" for ever."""

import hashlib

from django.db import migrations, models

LIVE = ("open", "settling", "kept")


def digest(text):
    return hashlib.sha256(text.encode()).hexdigest()


def keys_to_journal(apps, schema_editor):
    IdempotencyKey = apps.get_model("threads", "IdempotencyKey")
    Replay = apps.get_model("threads", "Replay")
    for key in IdempotencyKey.objects.all().iterator():
        done = key.status == "done"
        row = Replay.objects.create(
            door="http", kind="turn", caller=key.session_hash, identity=digest(key.key), key=key.key[:255],
            fingerprint=key.fingerprint, status="kept" if done else "open",
            result={"status": key.response_status or 200, "body": key.response_body} if done else None,
            settled_at=key.updated_at if done else None)
        Replay.objects.filter(pk=row.pk).update(created_at=key.created_at)  # its 24 hours count from then


def journal_to_keys(apps, schema_editor):
    IdempotencyKey = apps.get_model("threads", "IdempotencyKey")
    Replay = apps.get_model("threads", "Replay")
    for row in Replay.objects.filter(door="http", status__in=LIVE).iterator():
        kept = row.result or {}
        IdempotencyKey.objects.create(
            session_hash=row.caller, key=row.key, fingerprint=row.fingerprint,
            status="done" if row.status == "kept" else "running", response_status=kept.get("status"),
            response_body=kept.get("body"))


class Migration(migrations.Migration):

    dependencies = [
        ("threads", "0014_thread_keys_moved"),
    ]

    operations = [
        migrations.CreateModel(
            name="Replay",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("door", models.CharField(choices=[("http", "HTTP API"), ("mcp", "MCP"), ("agui", "AG-UI"),
                                                   ("langgraph", "LangGraph"),
                                                   ("langchain", "LangChain middleware")],
                                          max_length=16, verbose_name="door")),
                ("kind", models.CharField(max_length=16, verbose_name="kind")),
                ("caller", models.CharField(max_length=200, verbose_name="caller")),
                ("identity", models.CharField(max_length=64)),
                ("key", models.CharField(blank=True, max_length=255, verbose_name="key")),
                ("fingerprint", models.CharField(blank=True, max_length=64)),
                ("thread_id", models.CharField(blank=True, max_length=160)),
                ("run_id", models.CharField(blank=True, max_length=40, verbose_name="run")),
                ("status", models.CharField(choices=[("open", "open"), ("settling", "settling"), ("kept", "kept"),
                                                     ("delivered", "delivered"), ("expired", "expired")],
                                            default="open", max_length=16, verbose_name="status")),
                ("meta", models.JSONField(blank=True, default=dict)),
                ("result", models.JSONField(blank=True, null=True)),
                ("lease_owner", models.CharField(blank=True, max_length=80)),
                ("lease_at", models.DateTimeField(blank=True, null=True)),
                ("created_at", models.DateTimeField(auto_now_add=True, verbose_name="created at")),
                ("updated_at", models.DateTimeField(auto_now=True)),
                ("settled_at", models.DateTimeField(blank=True, null=True)),
                ("delivered_at", models.DateTimeField(blank=True, null=True)),
            ],
            options={
                "verbose_name": "replay journal entry",
                "verbose_name_plural": "replay journal",
                "ordering": ["created_at"],
                "indexes": [
                    models.Index(fields=["thread_id", "door"], name="replay_thread"),
                    models.Index(fields=["run_id"], name="replay_run"),
                    models.Index(fields=["door", "status"], name="replay_door_status"),
                    models.Index(fields=["status", "lease_at"], name="replay_lease"),
                ],
                "constraints": [
                    models.UniqueConstraint(condition=models.Q(("status__in", LIVE)),
                                            fields=("door", "caller", "identity"), name="replay_live_identity"),
                ],
            },
        ),
        migrations.RunPython(keys_to_journal, journal_to_keys),
        migrations.DeleteModel(name="IdempotencyKey"),
    ]
