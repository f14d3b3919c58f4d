from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LangGraphDoorConfig(AppConfig):
    name = "doors.langgraph"
    label = "doors_langgraph"
    verbose_name = _("LangGraph")
    default_auto_field = "django.db.models.BigAutoField"
