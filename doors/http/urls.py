"""The HTTP API's routes (docs/http-api.md)."""

from django.urls import path

from doors.http.api import (
    ConfigApi,
    HealthApi,
    PlanApi,
    ThreadFeedbackCreateApi,
    ThreadInterruptListApi,
    ThreadMessageCreateApi,
    ThreadRollbackApi,
)
from doors.http.resume import ThreadResumeApi

urlpatterns = [
    path("healthz", HealthApi.as_view(), name="healthz"),
    path("config.json", ConfigApi.as_view(), name="config"),
    path("plan", PlanApi.as_view(), name="plan"),
    path("threads/<str:thread_id>/messages", ThreadMessageCreateApi.as_view(), name="thread-messages"),
    path("threads/<str:thread_id>/interrupts", ThreadInterruptListApi.as_view(), name="thread-interrupts"),
    path("threads/<str:thread_id>/feedback", ThreadFeedbackCreateApi.as_view(), name="thread-feedback"),
    path("threads/<str:thread_id>/resume", ThreadResumeApi.as_view(), name="thread-resume"),
    path("threads/<str:thread_id>/rollback", ThreadRollbackApi.as_view(), name="thread-rollback"),
]
