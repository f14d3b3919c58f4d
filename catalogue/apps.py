from django.apps import AppConfig


class CatalogueConfig(AppConfig):
    name = "catalogue"
    default_auto_field = "django.db.models.BigAutoField"
