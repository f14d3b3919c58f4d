"""The console's two groups (docs/operating.md, "Staff accounts"), made here so every database has them.
What each may do is ``approvals.groups``. Permissions are made here (not left
to post_migrate) so the groups hold them on the first migrate of an empty
database."""

from django.db import migrations

from approvals.groups import APPROVERS, OPERATORS, groups_make


def make_groups(apps, schema_editor):
    groups_make(apps.get_model("contenttypes", "ContentType"), apps.get_model("auth", "Permission"),
                apps.get_model("auth", "Group"))


def remove_groups(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name__in=[APPROVERS, OPERATORS]).delete()


class Migration(migrations.Migration):

    dependencies = [
        ("approvals", "0004_one_time_password"),
        ("catalogue", "0002_tool_page"),
        ("threads", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(make_groups, remove_groups)]
