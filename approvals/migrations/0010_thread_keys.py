"""Threads per session (threads 0012, 0014): webhook deliveries and gateway calls
name their thread by its new key."""

from django.db import migrations, models


def rekey(apps, schema_editor):
    Thread = apps.get_model("threads", "Thread")
    moved = {t.name: t.id for t in Thread.objects.filter(id__contains="~").only("id", "name")}
    for model in ("Delivery", "McpCall"):
        rows = apps.get_model("approvals", model).objects
        for old in rows.exclude(thread_id__contains="~").values_list("thread_id", flat=True).distinct():
            if old in moved:
                rows.filter(thread_id=old).update(thread_id=moved[old])


def unkey(apps, schema_editor):
    for model in ("Delivery", "McpCall"):
        rows = apps.get_model("approvals", model).objects
        for key in rows.filter(thread_id__contains="~").values_list("thread_id", flat=True).distinct():
            rows.filter(thread_id=key).update(thread_id=key.split("~", 1)[0])


class Migration(migrations.Migration):

    dependencies = [
        ("approvals", "0009_operators_read_feedback"),
        ("threads", "0014_thread_keys_moved"),
    ]

    operations = [
        migrations.AlterField(
            model_name="delivery",
            name="thread_id",
            field=models.CharField(max_length=160),
        ),
        migrations.AlterField(
            model_name="mcpcall",
            name="thread_id",
            field=models.CharField(max_length=160),
        ),
        migrations.RunPython(rekey, unkey),
    ]
