from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from catalogue import registry


def chat_view(request: HttpRequest) -> HttpResponse:
    # Its Content-Security-Policy comes from ContentSecurityPolicyMiddleware, like every HTML page's.
    agent = registry.get_agent()
    return render(request, "chat.html", {"agent": agent, "language": registry.choose_language(agent)})
