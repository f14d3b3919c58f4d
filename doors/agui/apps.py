from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AguiDoorConfig(AppConfig):
    name = "doors.agui"
    label = "doors_agui"
    verbose_name = _("AG-UI")
    default_auto_field = "django.db.models.BigAutoField"
