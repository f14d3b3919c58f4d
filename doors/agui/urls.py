"""AG-UI's routes (docs/ag-ui.md): the file's first agent at ``/agui/``, each agent at ``/agui/<agent>/``."""

from django.urls import path

from doors.agui.views import AguiConnectApi, AguiInfoApi, AguiRunApi

urlpatterns = [
    path("agui/", AguiRunApi.as_view(), name="agui-run"),
    path("agui/info", AguiInfoApi.as_view(), name="agui-info"),
    path("agui/connect", AguiConnectApi.as_view(), name="agui-connect"),
    path("agui/<str:agent>/", AguiRunApi.as_view(), name="agui-agent-run"),
    path("agui/<str:agent>/info", AguiInfoApi.as_view(), name="agui-agent-info"),
    path("agui/<str:agent>/connect", AguiConnectApi.as_view(), name="agui-agent-connect"),
]
