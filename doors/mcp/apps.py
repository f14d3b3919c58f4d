from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class McpDoorConfig(AppConfig):
    name = "doors.mcp"
    label = "doors_mcp"
    verbose_name = _("MCP gateway")
    default_auto_field = "django.db.models.BigAutoField"
