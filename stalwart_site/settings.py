"""Stalwart's settings: every value from the environment (django-environ).

Every variable read here is listed in ``.env.example`` (tests/test_settings_env.py
keeps it so), with a safe development value; nothing here creates a folder or
reads a file: ``stalwart_site.bootstrap`` prepares the environment first.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlparse

import environ
from django.core.exceptions import ImproperlyConfigured

from stalwart_site.bootstrap import UnsafeConfiguration, refuse_unsafe
from threads.forwarded import trusted_networks

env = environ.Env()

# --- Paths -----------------------------------------------------------------
BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = Path(env.str("STALWART_DATA_DIR", default=".stalwart")).resolve()
AGENT_FILE = env.str("STALWART_AGENT_FILE", default="") or None

# --- Security ----------------------------------------------------------------
DEBUG = env.bool("DEBUG", default=False)


# Made and kept in the data folder by stalwart_site.bootstrap on first start
# when unset; never a hard-coded default.
SECRET_KEY = env.str("SECRET_KEY", default="")
if not SECRET_KEY.strip():
    raise ImproperlyConfigured(
        "SECRET_KEY is not set: start through `stalwart` or manage.py (which keep one in the data folder), "
        "or set SECRET_KEY."
    )
# Every entry point refused blank and short secrets already (the bootstrap);
# the same refusals here stop a server that imports these settings directly.
try:
    refuse_unsafe(os.environ)
except UnsafeConfiguration as exc:
    raise ImproperlyConfigured(str(exc)) from exc
PUBLIC_URL = env.str("STALWART_PUBLIC_URL", default="").rstrip("/")
_public = urlparse(PUBLIC_URL) if PUBLIC_URL else None
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]", "testserver"])
if _public and _public.hostname and _public.hostname not in ALLOWED_HOSTS:
    ALLOWED_HOSTS.append(_public.hostname)
CSRF_TRUSTED_ORIGINS = [f"{_public.scheme}://{_public.netloc}"] if _public else []
HTTPS = bool(_public and _public.scheme == "https")
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=HTTPS)
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31536000 if HTTPS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = HTTPS
SECURE_HSTS_PRELOAD = HTTPS
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if HTTPS else None
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
# QLS_OPERATOR_TOKEN, the token's old name, is still read when the new one is unset.
OPERATOR_TOKEN = env.str("STALWART_OPERATOR_TOKEN", default="") or os.environ.get("QLS_OPERATOR_TOKEN", "")

# What a new password must be (the console's password change, the first one included).
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 12}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# --- Applications --------------------------------------------------------------
INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    "catalogue",
    "threads",
    "approvals",
    # The doors, each the mapping of one protocol onto the engine's facade (doors/__init__.py).
    "doors.http",
    "doors.mcp",
    "doors.agui",
    "doors.langgraph",
    "stalwart_site",
]
MIDDLEWARE = [
    "corsheaders.middleware.CorsMiddleware",  # first: even a 413 carries its CORS grant (embedding block below)
    # Next the security headers, so the answers the middleware below makes by
    # itself (a 413, a 400 for a bad header) carry them too.
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "stalwart_site.middleware.RequestIdMiddleware",
    "stalwart_site.middleware.ContentSecurityPolicyMiddleware",
    "stalwart_site.middleware.BodyLimitMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "stalwart_site.middleware.PasswordChangeFirstMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "stalwart_site.middleware.ConsoleAddressMiddleware",  # last: its 400 page is the console's, signed in
]
ROOT_URLCONF = "stalwart_site.urls"
ASGI_APPLICATION = "stalwart_site.asgi.application"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    }
]
STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = DATA_DIR / "static"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("pt-br", "Português (Brasil)")]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
USE_TZ = True
TIME_ZONE = "UTC"

# --- Database --------------------------------------------------------------------
# DATABASE_URL (the bootstrap fills it from the agent file's `storage:` when
# unset), else runs.db in the data folder.
DATABASES = {"default": env.db_url_config(env.str("DATABASE_URL", default="") or "sqlite:///runs.db")}
_db = DATABASES["default"]
if _db["ENGINE"] == "django.db.backends.sqlite3":
    if _db["NAME"] not in ("", ":memory:") and not Path(_db["NAME"]).is_absolute():
        _db["NAME"] = str(DATA_DIR / _db["NAME"])
    # IMMEDIATE transactions take the write lock at BEGIN, so two workers'
    # claims queue instead of failing with "database is locked" mid-way.
    # WAL lets readers go on while a writer commits; synchronous=NORMAL is
    # durable in WAL mode against a crash of the process (not of the OS).
    _db.setdefault("OPTIONS", {}).update({
        "transaction_mode": "IMMEDIATE", "timeout": 30,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    })
    _db.setdefault("TEST", {})["NAME"] = str(DATA_DIR / "test-runs.db")
elif _db["ENGINE"] == "django.db.backends.postgresql":
    # Under ASGI each request runs in its own thread, so persistent
    # (per-thread) connections would never be reused: a pool instead.
    _db["CONN_MAX_AGE"] = 0
    _db.setdefault("OPTIONS", {})["pool"] = {"min_size": 1, "max_size": env.int("STALWART_DB_POOL", default=10)}
    # Parameters bound on the server, and a statement a pooled connection has
    # run 5 times kept prepared there: the engine's statements are parsed and
    # planned once per connection, not on every pause and resume (docs/
    # decisions.md, "Statements prepared on the server"). A PgBouncer older
    # than 1.21 in transaction mode keeps no prepared statements:
    # STALWART_DB_PREPARE=false there.
    _db["OPTIONS"]["server_side_binding"] = True
    _db["OPTIONS"]["prepare_threshold"] = 5 if env.bool("STALWART_DB_PREPARE", default=True) else None

# --- Channels ----------------------------------------------------------------------
REDIS_URL = env.str("REDIS_URL", default="")
# What the channel layer's and the shared cache's keys start with, so that
# deployments (or the test suite's parallel workers) can share one Redis
# database without hearing each other. Empty: the keys are "asgi..." and "stalwart:...".
REDIS_PREFIX = env.str("STALWART_REDIS_PREFIX", default="")
if REDIS_URL:
    CHANNEL_LAYERS = {
        # redis-py reads with a 5 s socket timeout by default, the same as the layer's
        # blocking pop (BZPOPMIN, 5 s): an idle listener's read would race it and fail.
        "default": {"BACKEND": "channels_redis.core.RedisChannelLayer",
                    "CONFIG": {"hosts": [{"address": REDIS_URL, "socket_timeout": 30}],
                               "prefix": REDIS_PREFIX + "asgi"}}
    }
else:
    # Channels' in-memory layer, with a fan-out that scales (stalwart_site.layers).
    CHANNEL_LAYERS = {"default": {"BACKEND": "stalwart_site.layers.InMemoryChannelLayer"}}
# How many `stalwart serve` processes share the database (0: not said, a
# warning without REDIS_URL); more than one needs REDIS_URL (a system check
# error with DEBUG=False, stalwart_site.checks).
STALWART_WORKERS = env.int("STALWART_WORKERS", default=0)

# --- Cache -------------------------------------------------------------------------
# "shared" is seen by every process of a deployment: it holds the token that
# tells them the operators' withdrawals or settings changed (catalogue.stored).
# Redis with REDIS_URL (several workers); else files in the data folder, shared
# by the processes of one machine (the folder is made on the first write).
if REDIS_URL:
    # Django's RedisCache with its client made once. A call that cannot reach
    # Redis falls back to the database: fail within a second, never hang.
    _shared_cache = {"BACKEND": "catalogue.stored.SharedRedisCache", "LOCATION": REDIS_URL,
                     "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1}}
else:
    _shared_cache = {"BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
                     "LOCATION": str(DATA_DIR / "cache")}
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},  # Django's own default
    "shared": {**_shared_cache, "KEY_PREFIX": REDIS_PREFIX + "stalwart"},
}

# --- DRF --------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    # Refuses deep nesting, lone surrogates and NaN/Infinity before any view reads a body.
    "DEFAULT_PARSER_CLASSES": ["stalwart_site.parsers.StrictJSONParser"],
    # Widget requests carry the Stalwart-Session header, not a cookie, so
    # no session authentication (and no cookie-based CSRF) on the API.
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "UNAUTHENTICATED_USER": None,
    "EXCEPTION_HANDLER": "stalwart_site.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}
# /api/schema/ (OpenAPI 3.1) and /api/docs/ (Swagger UI from drf-spectacular-sidecar: no CDN, the CSP stays strict).
SPECTACULAR_SETTINGS = {
    "TITLE": "Stalwart",
    "DESCRIPTION": "Tools for AI agents, with a person in the loop: reads run, writes wait for approval. "
                   "Errors are `{\"error\": <code>, \"detail\": <sentence>}`.",
    "VERSION": "1",
    "OAS_VERSION": "3.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "doors.http.openapi.components_hoist"],
}

# --- Stalwart -----------------------------------------------------------------------
STALWART_AGENT_NAME = env.str("STALWART_AGENT", default="") or None
STALWART_MAX_BODY = env.int("STALWART_MAX_BODY", default=256 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = STALWART_MAX_BODY
STALWART_MAX_TURN = env.int("STALWART_MAX_TURN", default=8000)
STALWART_ASK_TIMEOUT = env.int("STALWART_ASK_TIMEOUT", default=600)
# Proxies whose forwarding header is believed (docs/operating.md, "Behind a proxy"): addresses or networks.
try:
    STALWART_TRUSTED_PROXIES = trusted_networks(env.list("STALWART_TRUSTED_PROXIES", default=[]))
except ValueError as exc:
    raise ImproperlyConfigured(str(exc)) from exc
# What one MCP client key (or one loopback address, with no key) may hold at once (docs/mcp.md, "Limits").
STALWART_MCP_SESSIONS = env.int("STALWART_MCP_SESSIONS", default=100)
STALWART_MCP_HELD = env.int("STALWART_MCP_HELD", default=20)
# The sweep for steps whose worker died (docs/operating.md, "A worker that dies
# mid-call"): how often it runs, and how long a running step's heartbeat may be
# silent before its lease lapses.
STALWART_SWEEP_SECONDS = env.float("STALWART_SWEEP_SECONDS", default=5.0)
STALWART_LEASE_SECONDS = env.float("STALWART_LEASE_SECONDS", default=5.0)
# /pair/ (a --dev-pair code signs a browser in) is served only when `stalwart serve --dev-pair` set this.
STALWART_DEV_PAIR = env.bool("STALWART_DEV_PAIR", default=False)
# Four eyes: whoever edited a call in the console may not approve the edited proposal.
STALWART_FOUR_EYES = env.bool("STALWART_FOUR_EYES", default=True)
# Who the engine tells of a pause (threads.engine.notify): the answering side's durable
# outbox. A dotted path, as Django names its SESSION_ENGINE: code, not an environment value.
STALWART_NOTIFIER = "approvals.notify.OutboxNotifier"
# Who is told, after commit, of every pause that closes, whichever door answered it
# (threads.engine.notify.PauseClosed): the LangGraph door carries its graph on.
STALWART_PAUSE_LISTENERS = ["doors.langgraph.listen.pause_closed"]
# With a secret (make_app(secret=...)), resumes must carry a Stalwart-Signature.
STALWART_RESUME_SECRET = env.str("STALWART_RESUME_SECRET", default="")
# With it, context comes only from a signed Stalwart-Context header (an HS256 JWT);
# without it (the demo) a body `context` is accepted as unsigned (docs/http-api.md,
# "Signed context (Stalwart-Context)").
STALWART_CONTEXT_SECRET = env.str("STALWART_CONTEXT_SECRET", default="")

# --- Embedding (web components) ---------------------------------------------------
# STALWART_EMBED_ORIGINS (comma-separated, e.g. "https://shop.example,https://www.shop.example")
# lets those origins, and only those, load the widget's module and call the API
# (CORS: django-cors-headers here, stalwart_site.embed for the static files) and
# frame `/` (CSP frame-ancestors, stalwart_site.embed.chat_headers). Empty, the
# default: no cross-origin grant at all. No credentials: the widget's session is
# the Stalwart-Session header, never a cookie.
STALWART_EMBED_ORIGINS = [o.strip().rstrip("/") for o in env.list("STALWART_EMBED_ORIGINS", default=[]) if o.strip()]
INSTALLED_APPS.append("corsheaders")  # its system checks refuse a malformed origin at start
CORS_ALLOWED_ORIGINS = STALWART_EMBED_ORIGINS
# agui/: AG-UI clients (docs/ag-ui.md); threads, assistants/ and info: LangGraph's Agent Server API (docs/langgraph.md)
CORS_URLS_REGEX = r"^/(static/|threads(/|$)|assistants/|info$|agui/|config\.json$|plan$|healthz$)"
CORS_ALLOW_METHODS = ["GET", "POST", "OPTIONS"]
CORS_ALLOW_HEADERS = ["content-type", "idempotency-key", "stalwart-context", "stalwart-session", "stalwart-client",
                      "last-event-id", "x-api-key"]
CORS_EXPOSE_HEADERS = ["Stalwart-Session"]
CORS_ALLOW_CREDENTIALS = False
CORS_PREFLIGHT_MAX_AGE = 600

# A webhook told of each new pause (`stalwart serve --webhook URL`), signed
# under STALWART_WEBHOOK_SECRET; delivered from the outbox (approvals.outbox).
STALWART_WEBHOOK_URL = env.str("STALWART_WEBHOOK_URL", default="").strip()
STALWART_WEBHOOK_SECRET = env.str("STALWART_WEBHOOK_SECRET", default="")
if STALWART_WEBHOOK_URL and not STALWART_WEBHOOK_SECRET.strip():
    raise ImproperlyConfigured(
        "STALWART_WEBHOOK_URL is set but STALWART_WEBHOOK_SECRET is blank: deliveries must be signed. "
        "Set STALWART_WEBHOOK_SECRET (e.g. `python -c \"import secrets; print(secrets.token_urlsafe(32))\"`)."
    )
if STALWART_WEBHOOK_URL and urlparse(STALWART_WEBHOOK_URL).scheme not in ("http", "https"):
    raise ImproperlyConfigured("STALWART_WEBHOOK_URL must be an http:// or https:// address.")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {
        "stalwart": {"handlers": ["console"], "level": env.str("STALWART_LOG_LEVEL", default="INFO")},
        "stalwart.security": {"handlers": ["console"], "level": "WARNING", "propagate": False},
        "django.request": {"handlers": ["console"], "level": "ERROR", "propagate": False},
    },
}
