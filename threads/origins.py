"""Who a request comes from, in one rule for the SSE stream, the WebSocket and CORS.

- ``host_allowed``: the ``Host`` a request names is one of ``ALLOWED_HOSTS``
  (Django's own check, for the routes Django's middleware does not see).
- ``same_site``: a request from this site's own pages, or from no page at all
  (no ``Origin``): its origin's host is one of ``ALLOWED_HOSTS``. Only then
  does the admin's session cookie count (a WebSocket has no CORS to protect
  it; another site's page must not read threads with a staff cookie).
- ``embedding_allowed``: an origin of ``STALWART_EMBED_ORIGINS``, the pages
  that embed the web components. django-cors-headers answers CORS for the
  Django routes from the same list (``CORS_ALLOWED_ORIGINS``); the stream's
  consumer answers it with this function.
"""

from __future__ import annotations

from urllib.parse import urlparse

from django.conf import settings
from django.http.request import split_domain_port, validate_host


def host_allowed(host: str) -> bool:
    domain, _port = split_domain_port(host)
    return bool(domain) and validate_host(domain, settings.ALLOWED_HOSTS)


def same_site(origin: str | None) -> bool:
    if not origin:
        return True  # not a browser page (browsers send Origin on cross-origin fetches and every WebSocket)
    return host_allowed(urlparse(origin).netloc)


def embedding_allowed(origin: str | None) -> bool:
    return bool(origin) and origin in settings.CORS_ALLOWED_ORIGINS
