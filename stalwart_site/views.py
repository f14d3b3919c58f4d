from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from catalogue import registry
from stalwart_site.embed import WIDGET_MODULES, chat_headers


def chat_view(request: HttpRequest) -> HttpResponse:
    agent = registry.get_agent()
    response = render(request, "chat.html", {
        "agent": agent, "language": registry.choose_language(agent), "modules": WIDGET_MODULES,
    })
    return chat_headers(response)


def not_found_json(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    return JsonResponse({"error": "not_found", "detail": "There is nothing here."}, status=404)
