"""The one way Stalwart starts: the CLI, ``serve``/``make_app``, ``Desk``,
``manage.py`` and the test suite all come through here.

``prepare`` sets the environment Django's settings read (settings read the
environment and nothing else): it makes the data folder, keeps a generated
``SECRET_KEY`` there on first start when none is set, and turns the agent
file's ``storage:`` into ``DATABASE_URL`` when that is unset. ``setup``
then starts Django (once per process) and migrates; called again in the same
process with another agent file, it points the registry at that file.

Both refuse an unsafe configuration before anything starts
(``UnsafeConfiguration``, a sentence naming the variable and the rule): a
secret or token of any kind that is set but blank or whitespace would
silently weaken or turn off the check it guards (an HMAC under an empty key
is one anyone can make), so it is never taken as "off"; leave the variable
unset for that. One that is set but short is refused too (``threads.strength``:
32 bytes for a signing secret, 24 characters for the operator token), since
a short HMAC key falls to an offline search from one signed value. The
settings run the same refusals, for a server that imports them directly.
"""

from __future__ import annotations

import os
import secrets
import time
from pathlib import Path

from approvals.webhooks import STANDARD_PREFIX, standard_key
from catalogue.agentfile import read_storage
from threads.strength import MAKE_ONE, MIN_SECRET_BYTES, MIN_TOKEN_CHARACTERS

SECRET_FILE = "secret_key"
# The operator token's first name, still read when STALWART_OPERATOR_TOKEN is unset.
OLD_OPERATOR_TOKEN = "QLS_OPERATOR_TOKEN"

# Every secret or token Stalwart reads, and what it guards (for the sentence).
SECRETS = {
    "SECRET_KEY": "the server's signing key (pause tokens, sessions)",
    "STALWART_RESUME_SECRET": "the resume secret (signed answers, make_app(secret=...))",
    "STALWART_WEBHOOK_SECRET": "the webhook secret (signed pause deliveries)",
    "STALWART_CONTEXT_SECRET": "the context secret (the signed Stalwart-Context header)",
    "STALWART_OPERATOR_TOKEN": "the operator token (--operator-token)",
    OLD_OPERATOR_TOKEN: "the operator token (its old name; STALWART_OPERATOR_TOKEN is the new one)",
}
# The least length of each: bytes of UTF-8 for a signing secret (of the key
# itself for a Standard Webhooks ``whsec_<base64>`` secret), characters for the token.
MINIMUM = {
    "SECRET_KEY": (MIN_SECRET_BYTES, "bytes"),
    "STALWART_RESUME_SECRET": (MIN_SECRET_BYTES, "bytes"),
    "STALWART_WEBHOOK_SECRET": (MIN_SECRET_BYTES, "bytes"),
    "STALWART_CONTEXT_SECRET": (MIN_SECRET_BYTES, "bytes"),
    "STALWART_OPERATOR_TOKEN": (MIN_TOKEN_CHARACTERS, "characters"),
    OLD_OPERATOR_TOKEN: (MIN_TOKEN_CHARACTERS, "characters"),
}
REFUSED_BLANK = "{name} is set but blank: {what} would accept anything. Set a real value, or unset {name}."
REFUSED_SHORT = ("{name} is too short: {what} must be at least {minimum} {unit} ({length} given), or it can be "
                 "guessed. Make one with: {make}")
# What `createstaff --operator` prints: the rollback route's bearer is not an account's password.
OPERATOR_TOKEN_HOW = ("The HTTP rollback route takes the operator token, not this password: start `stalwart serve` "
                      f"with --operator-token or STALWART_OPERATOR_TOKEN, at least {MIN_TOKEN_CHARACTERS} random "
                      f"characters, e.g. export STALWART_OPERATOR_TOKEN=$({MAKE_ONE})")
REFUSED_WEBHOOK = "STALWART_WEBHOOK_URL is set without STALWART_WEBHOOK_SECRET: deliveries would be unsigned."


class UnsafeConfiguration(Exception):
    """A configuration Stalwart refuses to start with; the message says which and why."""


def refuse_unsafe(environ: dict[str, str] | os._Environ[str]) -> None:
    """Raise ``UnsafeConfiguration`` for a blank or short secret or token of any kind."""
    for name, what in SECRETS.items():
        value = environ.get(name)
        if value is None:
            continue
        if not value.strip():
            raise UnsafeConfiguration(REFUSED_BLANK.format(name=name, what=what))
        minimum, unit = MINIMUM[name]
        length = strength(name, value)
        if length < minimum:
            raise UnsafeConfiguration(REFUSED_SHORT.format(name=name, length=length, unit=unit, what=what,
                                                           minimum=minimum, make=MAKE_ONE))
    if (environ.get("STALWART_WEBHOOK_URL") or "").strip() and environ.get("STALWART_WEBHOOK_SECRET") is None:
        raise UnsafeConfiguration(REFUSED_WEBHOOK)


def strength(name: str, value: str) -> int:
    """The length the minimum of ``name`` is measured in."""
    if MINIMUM[name][1] == "characters":
        return len(value)
    if name == "STALWART_WEBHOOK_SECRET" and value.startswith(STANDARD_PREFIX):
        return len(standard_key(value))  # the Standard Webhooks key is the decoded bytes
    return len(value.encode())


def _given_secrets(resume_secret: str | None, operator_token: str | None) -> dict[str, str]:
    given = {"STALWART_RESUME_SECRET": resume_secret, "STALWART_OPERATOR_TOKEN": operator_token}
    return {name: value for name, value in given.items() if value is not None}


def data_dir() -> Path:
    return Path(os.environ.get("STALWART_DATA_DIR") or ".stalwart").resolve()


def kept_secret_key(folder: Path) -> str:
    """The data folder's secret key, generated on first start (never a hard-coded default)."""
    path = folder / SECRET_FILE
    try:  # O_EXCL: of two first starts at once, one writes the key and both read it
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(secrets.token_urlsafe(50))
    for _ in range(50):
        key = path.read_text(encoding="utf-8").strip()
        if key:
            return key
        time.sleep(0.02)
    raise RuntimeError(f"{path} is empty: delete it, or set SECRET_KEY")


def prepare(
    *,
    agent_file: str | Path | None = None,
    agent: str | None = None,
    resume_secret: str | None = None,
    operator_token: str | None = None,
    public_url: str | None = None,
    webhook_url: str | None = None,
) -> None:
    """Set the environment for Django's settings; call before Django starts."""
    refuse_unsafe({**os.environ, **_given_secrets(resume_secret, operator_token)})
    given = {
        "STALWART_WEBHOOK_URL": webhook_url,
        "STALWART_AGENT_FILE": str(agent_file) if agent_file else None,
        "STALWART_AGENT": agent,
        "STALWART_RESUME_SECRET": resume_secret,
        "STALWART_OPERATOR_TOKEN": operator_token,
        "STALWART_PUBLIC_URL": public_url,
    }
    for name, value in given.items():
        if value:
            os.environ[name] = value
    folder = data_dir()
    folder.mkdir(parents=True, exist_ok=True)
    os.environ["STALWART_DATA_DIR"] = str(folder)
    if not os.environ.get("SECRET_KEY"):
        os.environ["SECRET_KEY"] = kept_secret_key(folder)
    path = os.environ.get("STALWART_AGENT_FILE")
    if path and not os.environ.get("DATABASE_URL"):
        storage = read_storage(path)
        if storage:
            os.environ["DATABASE_URL"] = storage
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "stalwart_site.settings")


def setup(
    *,
    agent_file: str | Path | None = None,
    agent: str | None = None,
    resume_secret: str | None = None,
    operator_token: str | None = None,
    public_url: str | None = None,
    migrate: bool = True,
) -> None:
    """Start Django for ``agent_file`` (once per process) and migrate the database."""
    import django
    from django.conf import settings

    refuse_unsafe({**os.environ, **_given_secrets(resume_secret, operator_token)})
    if not settings.configured:
        prepare(agent_file=agent_file, agent=agent, resume_secret=resume_secret,
                operator_token=operator_token, public_url=public_url)
        django.setup()
    else:
        # Django is up already (a test session, or a team's own process): the
        # new agent file and secret apply from here on.
        from catalogue import registry

        if agent_file:
            registry.use(str(agent_file), agent)
        if resume_secret:
            settings.STALWART_RESUME_SECRET = resume_secret
    if migrate:
        from django.core.management import call_command

        call_command("migrate", interactive=False, verbosity=0)
