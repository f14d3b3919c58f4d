"""Threads per session, the rows (threads 0012 made the columns): every
existing thread is moved to its key, its rows with it, and back."""

import hashlib

from django.db import migrations, models

CHILDREN = ("Message", "Run", "Interrupt", "Event", "Feedback")


def key_of(name, session_hash):  # threads.keys.thread_key, as it was when this migration was written
    digest = hashlib.sha256((session_hash + "\0" + name).encode()).hexdigest()[:16]
    return f"{name}~{digest}"


def move(apps, schema_editor, moves):
    Thread = apps.get_model("threads", "Thread")
    for old, new in moves:
        if old == new or Thread.objects.filter(pk=new).exists():
            continue
        thread = Thread.objects.get(pk=old)
        thread.pk, thread.name = new, thread.name or old
        thread.save(force_insert=True)
        for child in CHILDREN:
            apps.get_model("threads", child).objects.filter(thread_id=old).update(thread_id=new)
        # Its rows moved: the old row goes alone (no cascade through other apps' models of this state).
        schema_editor.execute(f"DELETE FROM {Thread._meta.db_table} WHERE id = %s", [old])


def rekey(apps, schema_editor):
    Thread = apps.get_model("threads", "Thread")
    Thread.objects.filter(name="").update(name=models.F("id"))
    move(apps, schema_editor, [(t.id, key_of(t.id, t.session_hash))
                for t in Thread.objects.exclude(id__contains="~").only("id", "session_hash")])


def unkey(apps, schema_editor):
    Thread = apps.get_model("threads", "Thread")
    move(apps, schema_editor, [(t.id, t.name) for t in Thread.objects.filter(id__contains="~").only("id", "name")])


class Migration(migrations.Migration):

    dependencies = [
        ("threads", "0013_step_handed_back"),
    ]

    operations = [
        migrations.RunPython(rekey, unkey),
    ]
