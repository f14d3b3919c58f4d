"""Threads per session (threads.keys): a thread's stored key combines the
client's id and the session that opened it; the id is kept as ``name``.
The rows move to their keys in 0014, a migration of its own: on PostgreSQL a
schema change may not follow row changes in one transaction (their deferred
foreign-key checks are still pending)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("threads", "0011_wrong_guess"),
    ]

    operations = [
        migrations.AddField(
            model_name="thread",
            name="name",
            field=models.CharField(db_index=True, default="", max_length=128, verbose_name="id"),
        ),
        migrations.AlterField(
            model_name="thread",
            name="id",
            field=models.CharField(max_length=160, primary_key=True, serialize=False, verbose_name="key"),
        ),
    ]
