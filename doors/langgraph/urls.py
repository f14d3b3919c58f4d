"""The LangGraph bridge's routes (docs/langgraph.md), served before the HTTP API's by
``stalwart_site.urls_langgraph`` (the URLconf ``make_app`` serves)."""

from django.urls import path

from doors.langgraph.views import (
    LangGraphInterruptListApi,
    LangGraphResumeApi,
    LangGraphRunCreateApi,
    LangGraphSyncApi,
)

urlpatterns = [
    path("threads/<str:thread>/interrupts", LangGraphInterruptListApi.as_view(), name="langgraph-interrupts"),
    path("threads/<str:thread>/resume", LangGraphResumeApi.as_view(), name="langgraph-resume"),
    path("threads/<str:thread>/runs", LangGraphRunCreateApi.as_view(), name="langgraph-runs"),
    path("threads/<str:thread>/sync", LangGraphSyncApi.as_view(), name="langgraph-sync"),
]
