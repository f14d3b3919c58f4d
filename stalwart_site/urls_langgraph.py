"""The URLconf ``stalwart_site.langgraph.make_app`` serves: the LangGraph
bridge's routes first (its ``/threads/{id}/interrupts`` and ``/resume`` are the
graph's), then everything ``stalwart_site.urls`` serves (the console at ``/admin/``)."""

from django.urls import include, path

from stalwart_site.urls import handler400, handler404, handler500
from stalwart_site.urls import urlpatterns as served

urlpatterns = [path("", include("doors.langgraph.urls")), *served]

__all__ = ["handler400", "handler404", "handler500", "urlpatterns"]
