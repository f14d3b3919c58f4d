from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ThreadsConfig(AppConfig):
    name = "threads"
    verbose_name = _("Threads and pauses")
    default_auto_field = "django.db.models.BigAutoField"
