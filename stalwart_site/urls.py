from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

from approvals.status import pause_status_view
from approvals.views import pair_view
from stalwart_site.errors import bad_request_json, not_found_json, server_error_json
from stalwart_site.views import SchemaApi, SchemaDocsView, chat_view, favicon_view

urlpatterns = [
    path("", chat_view, name="chat"),
    path("", include("doors.http.urls")),
    path("", include("doors.agui.urls")),
    path("api/schema/", SchemaApi.as_view(), name="schema"),
    path("api/docs/", SchemaDocsView.as_view(url_name="schema"), name="docs"),
    path("favicon.ico", favicon_view, name="favicon"),
    path("pair/", pair_view, name="pair"),
    path("pauses/<str:pause_id>/<str:mac>/", pause_status_view, name="pause-status"),
    path("i18n/", include("django.conf.urls.i18n")),  # set_language: the admin header's language switch
    path("admin/", admin.site.urls),
]

handler400 = bad_request_json
handler404 = not_found_json
handler500 = server_error_json
