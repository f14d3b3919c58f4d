"""The MCP clients' keys, moved here from ``approvals`` (its 0014): the table
made there is taken over as it is (state only), then renamed, and the
console's operators keep their permissions on it (their content type moves
with the model)."""

from django.db import migrations, models

from approvals.groups import groups_make


def permissions_follow(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    ContentType.objects.filter(app_label="approvals", model="mcpclient").update(app_label="doors_mcp")
    groups_make(ContentType, apps.get_model("auth", "Permission"), apps.get_model("auth", "Group"))


def permissions_back(apps, schema_editor):
    apps.get_model("contenttypes", "ContentType").objects.filter(app_label="doors_mcp", model="mcpclient").update(
        app_label="approvals")


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ("approvals", "0014_doors_replay_journal"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.CreateModel(
                name="McpClient",
                fields=[
                    ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False,
                                               verbose_name="ID")),
                    ("name", models.SlugField(help_text="Letters, digits, '-' and '_': it names the client's threads.",
                                              max_length=40, unique=True, verbose_name="name")),
                    ("key_prefix", models.CharField(db_index=True, editable=False, max_length=12,
                                                    verbose_name="key starts with")),
                    ("key_hash", models.CharField(editable=False, max_length=64)),
                    ("privileges", models.JSONField(blank=True, default=list, verbose_name="privileges")),
                    ("context", models.JSONField(blank=True, default=dict, verbose_name="context values")),
                    ("created_by", models.CharField(blank=True, editable=False, max_length=150,
                                                    verbose_name="created by")),
                    ("created_at", models.DateTimeField(auto_now_add=True, verbose_name="created at")),
                    ("revoked_at", models.DateTimeField(blank=True, editable=False, null=True,
                                                        verbose_name="revoked at")),
                    ("last_used_at", models.DateTimeField(blank=True, editable=False, null=True,
                                                          verbose_name="last used")),
                ],
                options={"verbose_name": "MCP client", "verbose_name_plural": "MCP clients", "ordering": ["name"],
                         "db_table": "approvals_mcpclient"},
            ),
        ]),
        migrations.AlterModelTable(name="McpClient", table=None),
        migrations.RunPython(permissions_follow, permissions_back),
    ]
