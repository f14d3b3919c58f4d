"""Stalwart's settings: every value from the environment (django-environ).

Variables (all listed in ``.env.example``):
``STALWART_DATA_DIR``, ``STALWART_AGENT_FILE``, ``DATABASE_URL``, ``REDIS_URL``,
``SECRET_KEY``, ``QLS_OPERATOR_TOKEN``, ``DEBUG``, ``STALWART_PUBLIC_URL``,
``ALLOWED_HOSTS``, ``STALWART_MAX_BODY``, ``STALWART_MAX_TURN``, ``STALWART_FOUR_EYES``.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

import environ
from django.core.exceptions import ImproperlyConfigured

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
OPERATOR_TOKEN = env.str("QLS_OPERATOR_TOKEN", default="")

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
    "channels",
    "catalogue",
    "threads",
    "approvals",
    "stalwart_site",
]
MIDDLEWARE = [
    "stalwart_site.middleware.BodyLimitMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "stalwart_site.middleware.PasswordChangeFirstMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
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

# --- Channels ----------------------------------------------------------------------
REDIS_URL = env.str("REDIS_URL", default="")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {"BACKEND": "channels_redis.core.RedisChannelLayer", "CONFIG": {"hosts": [REDIS_URL]}}
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# --- DRF --------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    # Widget requests carry the Stalwart-Session header, not a cookie, so
    # no session authentication (and no cookie-based CSRF) on the API.
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "UNAUTHENTICATED_USER": None,
    "EXCEPTION_HANDLER": "stalwart_site.errors.exception_handler",
}

# --- Stalwart -----------------------------------------------------------------------
STALWART_AGENT_NAME = env.str("STALWART_AGENT", default="") or None
STALWART_MAX_BODY = env.int("STALWART_MAX_BODY", default=256 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = STALWART_MAX_BODY
STALWART_MAX_TURN = env.int("STALWART_MAX_TURN", default=8000)
STALWART_ASK_TIMEOUT = env.int("STALWART_ASK_TIMEOUT", default=600)
# Four eyes: whoever edited a call in the console may not approve the edited proposal.
STALWART_FOUR_EYES = env.bool("STALWART_FOUR_EYES", default=True)
# With a secret (make_app(secret=...)), resumes must carry a Stalwart-Signature.
STALWART_RESUME_SECRET = env.str("STALWART_RESUME_SECRET", default="")

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
