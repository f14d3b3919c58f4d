from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from catalogue import registry

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
    "form-action 'self'"
)


def chat_view(request: HttpRequest) -> HttpResponse:
    agent = registry.get_agent()
    response = render(request, "chat.html", {"agent": agent, "language": registry.choose_language(agent)})
    response["Content-Security-Policy"] = CSP
    return response


def not_found_json(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    return JsonResponse({"error": "not_found", "detail": "There is nothing here."}, status=404)
