# The tools page's model: no table (managed=False), only its address and view_tool permission.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("catalogue", "0001_initial"),
    ]

    operations = [
        migrations.CreateModel(
            name="Tool",
            fields=[
                ("name", models.CharField(max_length=200, primary_key=True, serialize=False, verbose_name="tool")),
            ],
            options={
                "verbose_name": "tool",
                "verbose_name_plural": "tools",
                "managed": False,
                "default_permissions": ("view",),
            },
        ),
    ]
