from django.apps import AppConfig


class StalwartSiteConfig(AppConfig):
    name = "stalwart_site"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from stalwart_site import checks  # noqa: F401  (registers the system checks)
