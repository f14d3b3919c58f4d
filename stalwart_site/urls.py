from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

from approvals.api import ThreadResumeApi
from approvals.views import pair_view
from stalwart_site.agui.views import AguiConnectApi, AguiInfoApi, AguiRunApi
from stalwart_site.errors import bad_request_json, not_found_json, server_error_json
from stalwart_site.views import SchemaApi, SchemaDocsView, chat_view
from threads.api import (
    ConfigApi,
    HealthApi,
    PlanApi,
    ThreadFeedbackCreateApi,
    ThreadInterruptListApi,
    ThreadMessageCreateApi,
    ThreadRollbackApi,
)

urlpatterns = [
    path("", chat_view, name="chat"),
    path("healthz", HealthApi.as_view(), name="healthz"),
    path("config.json", ConfigApi.as_view(), name="config"),
    path("plan", PlanApi.as_view(), name="plan"),
    path("threads/<str:thread_id>/messages", ThreadMessageCreateApi.as_view(), name="thread-messages"),
    path("threads/<str:thread_id>/interrupts", ThreadInterruptListApi.as_view(), name="thread-interrupts"),
    path("threads/<str:thread_id>/feedback", ThreadFeedbackCreateApi.as_view(), name="thread-feedback"),
    path("threads/<str:thread_id>/resume", ThreadResumeApi.as_view(), name="thread-resume"),
    path("threads/<str:thread_id>/rollback", ThreadRollbackApi.as_view(), name="thread-rollback"),
    path("api/schema/", SchemaApi.as_view(), name="schema"),
    path("api/docs/", SchemaDocsView.as_view(url_name="schema"), name="docs"),
    path("pair/", pair_view, name="pair"),
    # AG-UI (SPEC §17): the file's first agent at /agui/, each agent at /agui/<agent>/.
    path("agui/", AguiRunApi.as_view(), name="agui-run"),
    path("agui/info", AguiInfoApi.as_view(), name="agui-info"),
    path("agui/connect", AguiConnectApi.as_view(), name="agui-connect"),
    path("agui/<str:agent>/", AguiRunApi.as_view(), name="agui-agent-run"),
    path("agui/<str:agent>/info", AguiInfoApi.as_view(), name="agui-agent-info"),
    path("agui/<str:agent>/connect", AguiConnectApi.as_view(), name="agui-agent-connect"),
    path("i18n/", include("django.conf.urls.i18n")),  # set_language: the admin header's language switch
    path("admin/", admin.site.urls),
]

handler400 = bad_request_json
handler404 = not_found_json
handler500 = server_error_json
