from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class HttpDoorConfig(AppConfig):
    name = "doors.http"
    label = "doors_http"
    verbose_name = _("HTTP API")
    default_auto_field = "django.db.models.BigAutoField"
