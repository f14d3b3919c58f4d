from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

from approvals.api import ThreadResumeApi
from approvals.views import pair_view
from stalwart_site.views import chat_view, not_found_json
from threads.api import ConfigApi, HealthApi, PlanApi, ThreadInterruptListApi, ThreadMessageCreateApi

urlpatterns = [
    path("", chat_view, name="chat"),
    path("healthz", HealthApi.as_view(), name="healthz"),
    path("config.json", ConfigApi.as_view(), name="config"),
    path("plan", PlanApi.as_view(), name="plan"),
    path("threads/<str:thread_id>/messages", ThreadMessageCreateApi.as_view(), name="thread-messages"),
    path("threads/<str:thread_id>/interrupts", ThreadInterruptListApi.as_view(), name="thread-interrupts"),
    path("threads/<str:thread_id>/resume", ThreadResumeApi.as_view(), name="thread-resume"),
    path("pair/", pair_view, name="pair"),
    path("i18n/", include("django.conf.urls.i18n")),  # set_language: the admin header's language switch
    path("admin/", admin.site.urls),
]

handler404 = not_found_json
