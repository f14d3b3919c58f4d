from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ApprovalsConfig(AppConfig):
    name = "approvals"
    verbose_name = _("Approvals")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The engine tells of new pauses through a hook registered from here,
        # so threads never imports the answering side.
        from approvals.notify import notify_pause
        from approvals.outbox import not_notified_take
        from threads.engine.hooks import pause_listener_add

        pause_listener_add(notify_pause, not_notified_take)
