"""The LangGraph bridge's routes (docs/langgraph.md), served before the HTTP API's by
``stalwart_site.urls_langgraph`` (the URLconf ``make_app`` serves)."""

from django.urls import path

from doors.langgraph.api import (
    AssistantApi,
    AssistantSearchApi,
    InfoApi,
    RunApi,
    RunCreateApi,
    RunJoinApi,
    RunStreamApi,
    RunWaitApi,
    ThreadApi,
    ThreadCreateApi,
    ThreadHistoryApi,
    ThreadSearchApi,
    ThreadStateApi,
)
from doors.langgraph.views import (
    LangGraphInterruptListApi,
    LangGraphResumeApi,
    LangGraphSyncApi,
)

urlpatterns = [
    path("threads/<str:thread>/interrupts", LangGraphInterruptListApi.as_view(), name="langgraph-interrupts"),
    path("threads/<str:thread>/resume", LangGraphResumeApi.as_view(), name="langgraph-resume"),
    path("threads/<str:thread>/sync", LangGraphSyncApi.as_view(), name="langgraph-sync"),
    # The Agent Server API's (doors.langgraph.api), in its own paths.
    path("info", InfoApi.as_view(), name="lg-info"),
    path("assistants/search", AssistantSearchApi.as_view(), name="lg-assistants-search"),
    path("assistants/<str:assistant>", AssistantApi.as_view(), name="lg-assistant"),
    path("threads", ThreadCreateApi.as_view(), name="lg-threads"),
    path("threads/search", ThreadSearchApi.as_view(), name="lg-threads-search"),
    path("threads/<str:thread>", ThreadApi.as_view(), name="lg-thread"),
    path("threads/<str:thread>/state", ThreadStateApi.as_view(), name="lg-thread-state"),
    path("threads/<str:thread>/history", ThreadHistoryApi.as_view(), name="lg-thread-history"),
    path("threads/<str:thread>/runs", RunCreateApi.as_view(), name="langgraph-runs"),
    path("threads/<str:thread>/runs/wait", RunWaitApi.as_view(), name="lg-runs-wait"),
    path("threads/<str:thread>/runs/stream", RunStreamApi.as_view(), name="lg-runs-stream"),
    path("threads/<str:thread>/runs/<str:run>", RunApi.as_view(), name="lg-run"),
    path("threads/<str:thread>/runs/<str:run>/join", RunJoinApi.as_view(), name="lg-run-join"),
]
