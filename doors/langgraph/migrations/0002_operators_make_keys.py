"""Operators make and revoke LangGraph keys (docs/langgraph.md, "Keys"): ``approvals.groups`` now gives
the operators group the LangGraph key permissions. ``groups_make`` adds what a group lacks, so running it
again gives existing databases the permissions."""

from django.db import migrations

from approvals.groups import OPERATORS, groups_make


def grant(apps, schema_editor):
    groups_make(apps.get_model("contenttypes", "ContentType"), apps.get_model("auth", "Permission"),
                apps.get_model("auth", "Group"))


def revoke(apps, schema_editor):
    group = apps.get_model("auth", "Group").objects.filter(name=OPERATORS).first()
    if group is not None:
        group.permissions.remove(*apps.get_model("auth", "Permission").objects.filter(
            content_type__app_label="doors_langgraph", codename__endswith="_langgraphkey"))


class Migration(migrations.Migration):

    dependencies = [
        ("doors_langgraph", "0001_initial"),
        ("approvals", "0014_doors_replay_journal"),
        ("doors_mcp", "0001_initial"),  # groups_make grants its permissions too: its content type moved first
    ]

    operations = [migrations.RunPython(grant, revoke)]
