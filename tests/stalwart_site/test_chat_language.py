"""The chat page at ``GET /`` speaks the browser's language (its ``Accept-Language``) when the
page's switch has not chosen one; the switch, and the cookie it sets, still win
(docs/widget.md, "Language")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.test import Client

from stalwart_site.views import LANGUAGE_COOKIE, browser_language

pytestmark = pytest.mark.django_db


def _page(client: Client, path: str = "/", accept: str | None = None) -> tuple[str, str, str]:
    """What a person's browser gets: the page's language, the widget's, and the switch's current link."""
    headers = {"HTTP_ACCEPT_LANGUAGE": accept} if accept is not None else {}
    response = client.get(path, **headers)
    assert response.status_code == 200
    html = response.content.decode()
    page = re.search(r'<html lang="([^"]+)"', html)
    widget = re.search(r'<stalwart-chat base="" language="([^"]+)"', html)
    current = re.search(r'aria-current="true">([^<]+)</a>', html)
    assert page and widget and current
    assert "Accept-Language" in response.get("Vary", "")
    return page.group(1), widget.group(1), current.group(1)


@pytest.mark.parametrize("accept", ["pt-BR", "pt-BR,pt;q=0.9,en;q=0.8", "pt", "pt-PT", "fr-FR, pt-BR;q=0.5"])
def test_a_portuguese_browser_gets_the_chat_in_portuguese(shop_dir: Path, accept: str) -> None:
    assert _page(Client(), accept=accept) == ("pt-BR", "pt-BR", "Português")


@pytest.mark.parametrize("accept", ["en-US,en;q=0.9", "en;q=0.9, pt-BR;q=0.5", "fr-FR", "", "*", "pt;q=0, en"])
def test_an_english_or_unknown_browser_gets_the_agents_language(shop_dir: Path, accept: str) -> None:
    # The shop's agent speaks English: an English browser and one that names no language it has agree.
    assert _page(Client(), accept=accept) == ("en", "en", "English")


def test_the_switch_wins_over_the_browser_and_its_cookie_is_kept(shop_dir: Path) -> None:
    client = Client()
    assert _page(client, "/?language=en", accept="pt-BR") == ("en", "en", "English")
    assert client.cookies[LANGUAGE_COOKIE].value == "en"
    # Later pages of this browser keep the chosen English though the browser still asks for Portuguese.
    assert _page(client, "/", accept="pt-BR") == ("en", "en", "English")
    assert _page(client, "/?language=pt-BR", accept="en-US") == ("pt-BR", "pt-BR", "Português")
    assert _page(client, "/", accept="en-US") == ("pt-BR", "pt-BR", "Português")


@pytest.mark.parametrize(("header", "language"), [
    ("pt-BR", "pt-BR"), ("PT-br", "pt-BR"), ("en-GB", "en"), ("de, en;q=0.1", "en"),
    ("en;q=0.2, pt;q=0.8", "pt-BR"), ("pt;q=abc, en", "en"), ("de", ""), ("", ""), (";;;,,,", ""),
    ("x" * 5000, ""),
])
def test_browser_language_reads_the_header_by_its_q_values(header: str, language: str) -> None:
    assert browser_language(header) == language


@pytest.mark.parametrize("accept", ["en-US,en;q=0.9", "", "fr-FR"])
def test_a_portuguese_agent_speaks_portuguese_to_an_english_browser(shop_dir: Path, accept: str) -> None:
    # Its turns are read in Portuguese: the page that sends them speaks it too, unless the switch says English.
    from catalogue.models import AgentSetting

    AgentSetting.objects.create(agent="Shop", language="pt-BR")
    assert _page(Client(), accept=accept) == ("pt-BR", "pt-BR", "Português")
    assert _page(Client(), "/?language=en", accept=accept) == ("en", "en", "English")
