"""Operators read the feedback list (issue 26): ``approvals.groups`` now gives
the operators group ``threads.view_feedback``. ``groups_make`` adds what a
group lacks, so running it again gives existing databases the permission (a
new database has it from 0005 already, which reads the same table)."""

from django.db import migrations

from approvals.groups import OPERATORS, groups_make


def grant(apps, schema_editor):
    groups_make(apps.get_model("contenttypes", "ContentType"), apps.get_model("auth", "Permission"),
                apps.get_model("auth", "Group"))


def revoke(apps, schema_editor):
    group = apps.get_model("auth", "Group").objects.filter(name=OPERATORS).first()
    if group is not None:
        group.permissions.remove(*apps.get_model("auth", "Permission").objects.filter(
            content_type__app_label="threads", codename="view_feedback"))


class Migration(migrations.Migration):

    dependencies = [
        ("approvals", "0008_pairing_failures_in_threads_limits"),
        ("threads", "0003_feedback"),
    ]

    operations = [migrations.RunPython(grant, revoke)]
