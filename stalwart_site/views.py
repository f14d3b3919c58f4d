from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from catalogue import registry
from stalwart_site.embed import WIDGET_MODULES, chat_headers


def chat_view(request: HttpRequest) -> HttpResponse:
    # The policy every HTML page gets (ContentSecurityPolicyMiddleware), with framing by the embed origins.
    agent = registry.get_agent()
    response = render(request, "chat.html", {
        "agent": agent, "language": registry.choose_language(agent), "modules": WIDGET_MODULES,
    })
    return chat_headers(response)
